import Foundation
import PairSimKit

/// A watch app written as watchOS workout apps are (Apple's "Build a workout app for Apple Watch"
/// and "Running workout sessions"), on PairSimKit only (R: A8, A9): a workout manager that runs an
/// `HKWorkoutSession` with its `HKLiveWorkoutBuilder`, shows the live heart rate and energy as the
/// builder collects them, ends the collection when the session has ended, saves the workout with
/// `finishWorkout`, and then tells the phone app the workout's UUID over WatchConnectivity —
/// `sendMessage` while the phone is reachable, `transferUserInfo` otherwise or when the message
/// fails — in the payload the seeds' watch app sends (`{"event": "workoutFinished", …}`), so the
/// reference phone app reacts to it.
///
/// Run it: `topology simulate FILE` with `watch: { app: workout-watch }` in the topology, or
/// `watch-node --app workout-watch`.
public final class WorkoutWatchApp: PairSimWatchApp, HKWorkoutSessionDelegate, HKLiveWorkoutBuilderDelegate, WCSessionDelegate {
    public static let actions: [UserActionSpec] = [
        UserActionSpec("start-workout", "<activity>", "start a workout session and its live builder: running, walking, cycling, swimming, rowing, hiit, strength, yoga"),
        UserActionSpec("pause", "", "pause the workout"),
        UserActionSpec("resume", "", "resume the workout"),
        UserActionSpec("finish-workout", "", "end the workout: end collection, finishWorkout(), then send its UUID to the phone"),
    ]

    public static func registration() -> AppRegistration {
        AppRegistration(name: "workout-watch",
                        summary: "a watchOS workout app: HKWorkoutSession + HKLiveWorkoutBuilder; sends the saved workout's UUID to the phone",
                        actions: actions, makeWatchApp: { WorkoutWatchApp() })
    }

    static let activities: [String: HKWorkoutActivityType] = [
        "running": .running, "walking": .walking, "cycling": .cycling, "swimming": .swimming, "rowing": .rowing,
        "hiit": .highIntensityIntervalTraining, "strength": .traditionalStrengthTraining, "yoga": .yoga,
    ]

    let healthStore = HKHealthStore()
    var session: HKWorkoutSession?
    var builder: HKLiveWorkoutBuilder?
    var activityName = ""
    var heartRate: Double = 0
    var activeEnergy: Double = 0
    var running = false
    /// The `finish-workout` action waiting for the saved workout.
    var finishing: CheckedContinuation<HKWorkout?, Error>?
    /// False: the bug of calling `finishWorkout()` without `endCollection(withEnd:)` first
    /// (HealthKit refuses it: no workout is saved, and the phone never hears of one).
    let endsCollectionFirst: Bool

    public init(endsCollectionFirst: Bool = true) { self.endsCollectionFirst = endsCollectionFirst }

    // MARK: WKApplicationDelegate

    public func applicationDidFinishLaunching() {
        if WCSession.isSupported() {
            WCSession.default.delegate = self
            WCSession.default.activate()
        }
        let typesToShare: Set = [HKQuantityType.workoutType()]
        let typesToRead: Set = [
            HKQuantityType.quantityType(forIdentifier: .heartRate)!,
            HKQuantityType.quantityType(forIdentifier: .activeEnergyBurned)!,
        ]
        healthStore.requestAuthorization(toShare: typesToShare, read: typesToRead) { _, _ in }
    }

    /// The system relaunched the app while its workout runs: take the session and builder back.
    public func handleActiveWorkoutRecovery() {
        healthStore.recoverActiveWorkoutSession { session, error in
            guard let session else {
                print("could not recover the workout session: \(error.map { "\($0)" } ?? "none under way")")
                return
            }
            session.delegate = self
            self.session = session
            self.builder = session.associatedWorkoutBuilder()
            self.builder?.delegate = self
            self.activityName = WorkoutWatchApp.activities.first { $0.value == session.workoutConfiguration.activityType }?.key ?? "running"
            self.running = session.state == .running
        }
    }

    // MARK: The user's taps

    public func perform(_ action: UserAction) async throws -> String {
        switch action.verb {
        case "start-workout":
            let name = action.argument(0) ?? "running"
            guard let type = Self.activities[name] else { throw AppError("start-workout: unknown activity \(name)") }
            try await startWorkout(type, name: name)
            return "started \(name)"
        case "pause":
            session?.pause()
            return "paused"
        case "resume":
            session?.resume()
            return "resumed"
        case "finish-workout":
            guard let session else { throw AppError("finish-workout: no workout in progress") }
            let workout = try await withCheckedThrowingContinuation { continuation in
                finishing = continuation
                session.end()
            }
            guard let workout else { return "finished, but the workout is not available" }
            return "finished \(activityName) workout=\(workout.uuid.uuidString) duration=\(Int(workout.duration))s"
        default:
            throw AppError("unknown action \(action.verb)")
        }
    }

    func startWorkout(_ type: HKWorkoutActivityType, name: String) async throws {
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
        activityName = name
        heartRate = 0
        activeEnergy = 0
        let startDate = Date()
        session.startActivity(with: startDate)
        try await builder.beginCollection(at: startDate)
    }

    // MARK: HKWorkoutSessionDelegate

    public func workoutSession(_ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState,
                               from fromState: HKWorkoutSessionState, date: Date) {
        // Apple's sample hops to the main queue here to update its SwiftUI state; HealthKit calls
        // PairSim's delegates on the app's own thread, so the state is set directly.
        running = toState == .running
        // Wait for the session to end before ending the builder's collection.
        guard toState == .ended else { return }
        guard endsCollectionFirst else {
            builder?.finishWorkout { workout, error in self.finished(workout, error) }
            return
        }
        builder?.endCollection(withEnd: date) { success, error in
            guard success else { return self.finished(nil, error) }
            self.builder?.finishWorkout { workout, error in
                self.finished(workout, error)
            }
        }
    }

    public func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: Error) {
        print("workout session failed: \(error)")
        finishing?.resume(throwing: error)
        finishing = nil
    }

    func finished(_ workout: HKWorkout?, _ error: Error?) {
        if let workout { tellPhone(workout) }
        if let error { finishing?.resume(throwing: error) } else { finishing?.resume(returning: workout) }
        finishing = nil
        session = nil
        builder = nil
    }

    // MARK: HKLiveWorkoutBuilderDelegate

    public func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>) {
        for type in collectedTypes {
            guard let quantityType = type as? HKQuantityType, let statistics = workoutBuilder.statistics(for: quantityType) else { continue }
            switch quantityType {
            case HKQuantityType.quantityType(forIdentifier: .heartRate):
                let beatsPerMinute = HKUnit.count().unitDivided(by: HKUnit.minute())
                heartRate = statistics.mostRecentQuantity()?.doubleValue(for: beatsPerMinute) ?? 0
            case HKQuantityType.quantityType(forIdentifier: .activeEnergyBurned):
                activeEnergy = statistics.sumQuantity()?.doubleValue(for: HKUnit.kilocalorie()) ?? 0
            default:
                break
            }
        }
    }

    public func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder) {}

    // MARK: WatchConnectivity

    public func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: Error?) {}

    /// The saved workout's UUID for the phone app: live when reachable, else queued as user info.
    func tellPhone(_ workout: HKWorkout) {
        let message: [String: Any] = ["event": "workoutFinished", "uuid": workout.uuid.uuidString.lowercased(), "activity": activityName]
        let session = WCSession.default
        guard session.activationState == .activated, session.isReachable else {
            session.transferUserInfo(message)
            return
        }
        session.sendMessage(message, replyHandler: { _ in }, errorHandler: { _ in
            WCSession.default.transferUserInfo(message)
        })
    }

    public func status() -> [String] {
        guard let builder else { return ["no workout"] }
        return ["\(activityName): \(running ? "running" : "not running"), \(Int(builder.elapsedTime))s, heart rate \(heartRate), \(String(format: "%.1f", activeEnergy)) kcal"]
    }
}
