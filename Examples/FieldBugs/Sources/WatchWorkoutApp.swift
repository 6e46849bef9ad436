import Foundation
import PairSimKit

/// The watch app the watch entries start from, written as Apple's "Build a workout app for Apple
/// Watch" writes one: an `HKWorkoutSession` with its `HKLiveWorkoutBuilder`; when the session
/// ends, the builder ends collection and finishes the workout, and the saved workout's UUID goes
/// to the iPhone app — `sendMessage` when the phone is reachable, `transferUserInfo` otherwise or
/// when the message fails. A relaunch during a workout takes the session back
/// (`handleActiveWorkoutRecovery`). Each entry's buggy app overrides the one place its bug lives.
open class WatchWorkoutApp: NSObject, PairSimWatchApp, HKWorkoutSessionDelegate, HKLiveWorkoutBuilderDelegate, WCSessionDelegate {
    public static let actions = [
        UserActionSpec("start-workout", "[running|walking|cycling]", "start a workout session and its live builder"),
        UserActionSpec("finish-workout", "", "end the session; the builder saves the workout and its UUID goes to the phone"),
    ]

    public let healthStore = HKHealthStore()
    public var session: HKWorkoutSession?
    public var builder: HKLiveWorkoutBuilder?

    public required override init() {}

    open func applicationDidFinishLaunching() {
        WCSession.default.delegate = self
        WCSession.default.activate()
        healthStore.requestAuthorization(toShare: [HKObjectType.workoutType()], read: [HKQuantityType(.heartRate)]) { _, _ in }
    }

    /// Relaunched during a workout (after a crash): take the session and its builder back.
    open func handleActiveWorkoutRecovery() {
        healthStore.recoverActiveWorkoutSession { session, error in
            guard let session = session else { return print("nothing to recover: \(error?.localizedDescription ?? "")") }
            session.delegate = self
            self.session = session
            self.builder = session.associatedWorkoutBuilder()
            self.builder?.delegate = self
        }
    }

    open func perform(_ action: UserAction) async throws -> String {
        switch action.verb {
        case "start-workout":
            let types: [String: HKWorkoutActivityType] = ["running": .running, "walking": .walking, "cycling": .cycling]
            guard let type = types[action.argument(0) ?? "running"] else { throw AppError("start-workout: running, walking or cycling") }
            let configuration = HKWorkoutConfiguration()
            configuration.activityType = type
            configuration.locationType = .outdoor
            let session = try HKWorkoutSession(healthStore: healthStore, configuration: configuration)
            let builder = session.associatedWorkoutBuilder()
            builder.dataSource = HKLiveWorkoutDataSource(healthStore: healthStore, workoutConfiguration: configuration)
            session.delegate = self
            builder.delegate = self
            self.session = session
            self.builder = builder
            let start = Date()
            session.startActivity(with: start)
            try await builder.beginCollection(at: start)
            return "workout started"
        case "finish-workout":
            guard let session = session else { throw AppError("finish-workout: no workout in progress") }
            session.end()
            return "ending the workout"
        default:
            throw AppError("unknown action \(action.verb)")
        }
    }

    // MARK: The session and its builder

    public func workoutSession(_ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState,
                               from fromState: HKWorkoutSessionState, date: Date) {
        guard toState == .ended, let builder = builder else { return }
        finish(builder, at: date)
    }

    public func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: Error) {
        print("workout session failed: \(error.localizedDescription)")
    }

    /// Ends collection, then finishes: the order HealthKit requires.
    open func finish(_ builder: HKLiveWorkoutBuilder, at date: Date) {
        builder.endCollection(withEnd: date) { _, _ in
            builder.finishWorkout { workout, error in self.finished(workout, error) }
        }
    }

    public func finished(_ workout: HKWorkout?, _ error: Error?) {
        session = nil
        builder = nil
        guard let workout = workout else { return print("the workout was not saved: \(error?.localizedDescription ?? "no error")") }
        AppLog.event("gallery.saved", ["uuid": .string(workout.uuid.uuidString), "minutes": .int(Int(workout.duration / 60))])
        send(["workoutID": workout.uuid.uuidString])
    }

    public func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>) {}
    public func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder) {}

    // MARK: WatchConnectivity

    /// Live when reachable; otherwise, or when the message fails, as user info, which waits.
    open func send(_ message: [String: Any]) {
        let session = WCSession.default
        guard session.activationState == .activated, session.isReachable else {
            session.transferUserInfo(message)
            return
        }
        session.sendMessage(message, replyHandler: nil) { error in
            print("sendMessage failed (\(error.localizedDescription)); sending it as user info")
            WCSession.default.transferUserInfo(message)
        }
    }

    public func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: Error?) {}

    open func status() -> [String] { [session == nil ? "no workout" : "workout under way"] }
}
