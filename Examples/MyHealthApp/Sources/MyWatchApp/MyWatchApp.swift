import Foundation
import PairSimKit

/// The watch half of MyHealthApp, written as watchOS code is: an app delegate that activates
/// WatchConnectivity at launch, a workout manager that runs an `HKWorkoutSession` with its
/// `HKLiveWorkoutBuilder`, and, once `finishWorkout` has saved the workout, its UUID sent to the
/// iPhone app — `sendMessage` when the phone is reachable, `transferUserInfo` otherwise or when the
/// message fails (the user info waits and arrives later).
public final class MyWatchApp: PairSimWatchApp {
    public static let registration = AppRegistration(
        name: "my-watch-app", summary: "records workouts and tells the iPhone app each one's UUID",
        actions: [UserActionSpec("start-workout", "<activity>", "start a workout: running, walking, cycling"),
                  UserActionSpec("end-workout", "", "end it: the workout is saved and its UUID sent to the phone")],
        makeWatchApp: { MyWatchApp() })

    let workoutManager = WorkoutManager()

    public init() {}

    public func applicationDidFinishLaunching() {
        workoutManager.requestAuthorization()
        PhoneConnection.shared.activate()
    }

    /// Relaunched with a workout under way (after a crash): carry on with it.
    public func handleActiveWorkoutRecovery() {
        workoutManager.recover()
    }

    public func perform(_ action: UserAction) async throws -> String {
        switch action.verb {
        case "start-workout":
            let activities: [String: HKWorkoutActivityType] = ["running": .running, "walking": .walking, "cycling": .cycling]
            guard let type = activities[action.argument(0) ?? "running"] else { throw AppError("start-workout: running, walking or cycling") }
            try await workoutManager.startWorkout(workoutType: type)
            return "workout started"
        case "end-workout":
            guard let workout = try await workoutManager.endWorkout() else { return "ended; the workout was not saved" }
            return "saved workout \(workout.uuid.uuidString)"
        default:
            throw AppError("unknown action \(action.verb)")
        }
    }

    public func status() -> [String] {
        [workoutManager.running ? "workout running: \(Int(workoutManager.heartRate)) bpm, \(Int(workoutManager.activeEnergy)) kcal" : "no workout"]
    }
}

/// The workout manager of Apple's "Build a workout app for Apple Watch", trimmed.
final class WorkoutManager: NSObject, HKWorkoutSessionDelegate, HKLiveWorkoutBuilderDelegate {
    let healthStore = HKHealthStore()
    var session: HKWorkoutSession?
    var builder: HKLiveWorkoutBuilder?
    var running = false
    var heartRate: Double = 0
    var activeEnergy: Double = 0
    private var ended: CheckedContinuation<HKWorkout?, Error>?

    func requestAuthorization() {
        let typesToShare: Set = [HKQuantityType.workoutType()]
        let typesToRead: Set = [HKQuantityType.quantityType(forIdentifier: .heartRate)!,
                                HKQuantityType.quantityType(forIdentifier: .activeEnergyBurned)!]
        healthStore.requestAuthorization(toShare: typesToShare, read: typesToRead) { _, _ in }
    }

    func startWorkout(workoutType: HKWorkoutActivityType) async throws {
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = workoutType
        configuration.locationType = .outdoor
        session = try HKWorkoutSession(healthStore: healthStore, configuration: configuration)
        builder = session?.associatedWorkoutBuilder()
        session?.delegate = self
        builder?.delegate = self
        builder?.dataSource = HKLiveWorkoutDataSource(healthStore: healthStore, workoutConfiguration: configuration)
        let startDate = Date()
        session?.startActivity(with: startDate)
        try await builder?.beginCollection(at: startDate)
    }

    /// Takes back the session under way and its builder after a relaunch.
    func recover() {
        healthStore.recoverActiveWorkoutSession { session, _ in
            guard let session else { return }
            self.session = session
            self.builder = session.associatedWorkoutBuilder()
            session.delegate = self
            self.builder?.delegate = self
            self.running = session.state == .running
        }
    }

    /// Ends the session; returns the saved workout once the builder has finished it.
    func endWorkout() async throws -> HKWorkout? {
        guard let session else { return nil }
        return try await withCheckedThrowingContinuation { continuation in
            ended = continuation
            session.end()
        }
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState,
                        from fromState: HKWorkoutSessionState, date: Date) {
        running = toState == .running
        // Wait for the session to end before ending the builder.
        guard toState == .ended else { return }
        builder?.endCollection(withEnd: date) { _, _ in
            self.builder?.finishWorkout { workout, error in
                // Only a saved workout has a UUID the phone can find in HealthKit.
                if let workout { PhoneConnection.shared.send(workoutID: workout.uuid) }
                if let error { self.ended?.resume(throwing: error) } else { self.ended?.resume(returning: workout) }
                self.ended = nil
            }
        }
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: Error) {
        print("workout session failed: \(error.localizedDescription)")
    }

    func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>) {
        for type in collectedTypes {
            guard let quantityType = type as? HKQuantityType, let statistics = workoutBuilder.statistics(for: quantityType) else { continue }
            if quantityType == HKQuantityType.quantityType(forIdentifier: .heartRate) {
                heartRate = statistics.mostRecentQuantity()?.doubleValue(for: HKUnit.count().unitDivided(by: .minute())) ?? 0
            } else if quantityType == HKQuantityType.quantityType(forIdentifier: .activeEnergyBurned) {
                activeEnergy = statistics.sumQuantity()?.doubleValue(for: .kilocalorie()) ?? 0
            }
        }
    }

    func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder) {}
}

/// The watch's side of WatchConnectivity.
final class PhoneConnection: NSObject, WCSessionDelegate {
    static let shared = PhoneConnection()

    func activate() {
        guard WCSession.isSupported() else { return }
        WCSession.default.delegate = self
        WCSession.default.activate()
    }

    /// A live message when the phone is reachable; otherwise (or when it fails) user info, which waits.
    func send(workoutID: UUID) {
        let message: [String: Any] = ["workoutID": workoutID.uuidString]
        let session = WCSession.default
        guard session.activationState == .activated, session.isReachable else {
            session.transferUserInfo(message)
            return
        }
        session.sendMessage(message, replyHandler: nil) { error in
            print("sendMessage failed (\(error.localizedDescription)); queueing as user info")
            WCSession.default.transferUserInfo(message)
        }
    }

    func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: Error?) {}
}
