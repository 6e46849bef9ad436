import Foundation
import PairSimKit

/// The seeds' watch app (seed 002 steps 1–2, seed 000's workout message) written on PairSimKit
/// only (R: A10), beside the reference phone app, and PairSim's default watch app.
///
/// Its `WorkoutManager` runs an `HKWorkoutSession` with its `HKLiveWorkoutBuilder`, which collects
/// heart rate and active energy live while the session runs. When the session has ended, the
/// `.ended` handler ends the builder's collection and calls `finishWorkout()`, keeping the saved
/// workout's UUID (`healthKitWorkoutUUID`; nil when the save failed or a recovered session lost its
/// builder). Its summary then saves one `ExerciseRecord` per exercise, each linked to that UUID,
/// with the app's own rough calorie estimate (seed 002's `saveWorkoutRecords()`); and, with
/// `watch.workoutMessage`, it tells the phone app the UUID over WatchConnectivity: `sendMessage`
/// while the phone is reachable, `transferUserInfo` otherwise or when the message fails. Messages
/// from the phone that want a reply are answered `{"ok": true}` (a data message with its own bytes).
public final class ReferenceWatchApp: PairSimWatchApp, HKWorkoutSessionDelegate, HKLiveWorkoutBuilderDelegate, WCSessionDelegate {
    /// The app's knobs (topology `watch:`).
    public struct Config: Sendable {
        /// `watch.workoutMessage`: tell the phone app when a workout finished.
        public var workoutMessage = false
        public init() {}
    }

    /// The app's UI actions (docs/COMMANDS.md).
    public static let actions: [UserActionSpec] = [
        UserActionSpec("start-workout", "<activity> [exercise…]",
                       "start a session: \(activityNames.joined(separator: ", ")); optional exercise names become records"),
        UserActionSpec("pause", "", "pause the running session"),
        UserActionSpec("resume", "", "resume the paused session"),
        UserActionSpec("finish-workout", "", "end the session: end collection, finishWorkout(), save the ExerciseRecords linked to the workout, tell the phone"),
    ]

    /// The registration PairSim's catalog uses.
    public static func registration(_ config: Config = Config()) -> AppRegistration {
        AppRegistration(name: "reference", summary: "the seeds' watch app: workout session and live builder, records linked to the workout's UUID, workout message",
                        actions: actions, makeWatchApp: { ReferenceWatchApp(config: config) })
    }

    static let activities: [(name: String, type: HKWorkoutActivityType)] = [
        ("running", .running), ("walking", .walking), ("cycling", .cycling), ("swimming", .swimming),
        ("rowing", .rowing), ("hiit", .highIntensityIntervalTraining), ("strength", .traditionalStrengthTraining), ("yoga", .yoga),
    ]
    static var activityNames: [String] { activities.map(\.name) }
    /// The longest exercise name a record keeps (PairSim's wire refuses longer ones).
    static let maxExerciseBytes = 256

    /// What the app keeps in its defaults, so a relaunch (after a crash, a restart) knows the
    /// session it recovers.
    enum Key {
        static let sessions = "sessions"
        static let exercises = "session.exercises"
        static let activity = "session.activity"
        static let number = "session.number"
    }

    let config: Config
    let healthStore = HKHealthStore()
    let manager: WorkoutManager

    public init(config: Config) {
        self.config = config
        manager = WorkoutManager(healthStore: healthStore)
        manager.app = self
    }

    // MARK: WKApplicationDelegate

    public func applicationDidFinishLaunching() {
        if WCSession.isSupported() {
            WCSession.default.delegate = self
            WCSession.default.activate()
        }
        let typesToShare: Set = [HKQuantityType.workoutType(), HKQuantityType.quantityType(forIdentifier: .heartRate)!,
                                 HKQuantityType.quantityType(forIdentifier: .activeEnergyBurned)!]
        let typesToRead: Set = [HKQuantityType.quantityType(forIdentifier: .heartRate)!,
                                HKQuantityType.quantityType(forIdentifier: .activeEnergyBurned)!]
        healthStore.requestAuthorization(toShare: typesToShare, read: typesToRead) { _, _ in }
    }

    /// The system relaunched the app while its session runs (a crash, a restart): seed 002's
    /// `recoverSession` — the session comes back, and with it the builder unless it was lost.
    public func handleActiveWorkoutRecovery() {
        manager.recover()
    }

    // MARK: The user's taps

    public func perform(_ action: UserAction) async throws -> String {
        switch action.verb {
        case "start-workout":
            guard let name = action.argument(0) else {
                throw AppError("start-workout: usage: start-workout <activity> [exercise…] (activity: \(Self.activityNames.joined(separator: ", ")))")
            }
            guard let type = Self.activities.first(where: { $0.name == name })?.type else {
                throw AppError("start-workout: activity must be one of \(Self.activityNames.joined(separator: ", ")), not \"\(name)\"")
            }
            let named = Array(action.arguments.dropFirst())
            if let long = named.first(where: { $0.utf8.count > Self.maxExerciseBytes }) {
                throw AppError("start-workout: an exercise name is at most \(Self.maxExerciseBytes) bytes (one has \(long.utf8.count)); the wire refuses longer ones")
            }
            if let session = manager.session, session.state != .ended {
                throw AppError("start-workout: a \(manager.activityName) session is already \(session.state.name); finish it first")
            }
            let number = AppDefaults.standard.integer(forKey: Key.sessions) + 1
            AppDefaults.standard.set(number, forKey: Key.sessions)
            AppDefaults.standard.set(name, forKey: Key.activity)
            AppDefaults.standard.set(number, forKey: Key.number)
            AppDefaults.standard.set(named.isEmpty ? Self.defaultExercises(name) : named, forKey: Key.exercises)
            try await manager.start(type, name: name)
            return "started \(name) session #\(number)"
        case "pause":
            guard let session = manager.session, session.state == .running else {
                throw AppError("pause: no running session (state: \(manager.stateName))")
            }
            session.pause()
            return "paused"
        case "resume":
            guard let session = manager.session, session.state == .paused else {
                throw AppError("resume: no paused session (state: \(manager.stateName))")
            }
            session.resume()
            return "resumed"
        case "finish-workout":
            guard let session = manager.session, session.state == .running || session.state == .paused else {
                throw AppError("finish-workout: no session in progress (state: \(manager.stateName))")
            }
            let startDate = session.startDate ?? Date()
            let outcome = await manager.end()
            let records = saveWorkoutRecords(start: startDate, activeDuration: outcome.activeDuration, energy: outcome.energy,
                                             workoutID: manager.healthKitWorkoutUUID)
            let activity = manager.activityName
            manager.reset()
            guard let workout = outcome.workout else {
                return "finished \(activity) without a workout (\(outcome.failure ?? "no workout")): records=\(records) saved with healthKitWorkoutID=nil"
            }
            if config.workoutMessage { tellPhone(workout, activity: activity) }
            return "finished \(activity) workout=\(workout.uuid.uuidString) active=\(Self.duration(outcome.activeDuration)) activeEnergy=\(outcome.energy)kcal records=\(records)"
        default:
            throw AppError("unknown action \(action.verb)")
        }
    }

    /// The exercises a session of `activity` records when the user names none.
    static func defaultExercises(_ activity: String) -> [String] {
        switch activity {
        case "strength": ["Squat", "Bench Press", "Deadlift"]
        case "hiit": ["HIIT"]
        default: [activity.capitalized]
        }
    }

    /// Seed 002's `saveWorkoutRecords()`: one record per exercise, the active time split evenly,
    /// each with its share of the energy less 10 % (deliberately rougher than HealthKit's, R: D4),
    /// every one carrying the workout's UUID — nil when there is none. Returns how many it saved.
    func saveWorkoutRecords(start: Date, activeDuration: TimeInterval, energy: Double, workoutID: UUID?) -> Int {
        let exercises = AppDefaults.standard.stringArray(forKey: Key.exercises) ?? [manager.activityName.capitalized]
        let parts = max(exercises.count, 1)
        let shareMilliseconds = Int64((activeDuration * 1_000).rounded()) / Int64(parts)
        let share = TimeInterval(shareMilliseconds) / 1_000
        let calories = (energy / Double(parts) * 0.9 * 10).rounded() / 10
        let records = exercises.enumerated().map { index, name in
            ExerciseRecordValue(exercise: name, startDate: start.addingTimeInterval(share * Double(index)), duration: share,
                                calories: calories, healthKitWorkoutID: workoutID)
        }
        ExerciseRecords.shared.save(records)
        for key in [Key.exercises, Key.activity, Key.number] { AppDefaults.standard.removeObject(forKey: key) }
        return records.count
    }

    static func duration(_ seconds: TimeInterval) -> String {
        var rest = Int64((seconds * 1_000).rounded())
        guard rest > 0 else { return "0s" }
        var text = ""
        for (unit, suffix) in [(Int64(3_600_000), "h"), (60_000, "m"), (1_000, "s")] where rest >= unit {
            text += "\(rest / unit)\(suffix)"
            rest %= unit
        }
        return rest > 0 ? text + "\(rest)ms" : text
    }

    // MARK: HKWorkoutSessionDelegate, HKLiveWorkoutBuilderDelegate (forwarded to the manager)

    public func workoutSession(_ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState,
                               from fromState: HKWorkoutSessionState, date: Date) {
        manager.sessionChanged(to: toState, date: date)
    }

    public func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: Error) {
        manager.sessionFailed(error)
    }

    public func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>) {
        manager.collected(collectedTypes, by: workoutBuilder)
    }

    public func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder) {}

    // MARK: WatchConnectivity

    public func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: Error?) {}

    public func session(_ session: WCSession, didReceiveMessage message: [String: Any], replyHandler: @escaping ([String: Any]) -> Void) {
        replyHandler(["ok": true])
    }

    public func session(_ session: WCSession, didReceiveMessageData messageData: Data, replyHandler: @escaping (Data) -> Void) {
        replyHandler(messageData)
    }

    /// Seed 000's next step: the phone app hears of the workout at once — live when reachable,
    /// else (or when the message fails) queued as user info, which waits for the phone app.
    func tellPhone(_ workout: HKWorkout, activity: String) {
        let message: [String: Any] = ["event": "workoutFinished", "uuid": workout.uuid.uuidString.lowercased(), "activity": activity]
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
        guard let session = manager.session else { return ["no session"] }
        return ["\(manager.activityName) session #\(AppDefaults.standard.integer(forKey: Key.number)): \(session.state.name), "
                + "active \(Self.duration(manager.builder?.elapsedTime ?? 0)), heart rate \(manager.heartRate)"]
    }
}

/// Seed 002's `WorkoutManager`: the session, its live builder, and the saved workout's UUID.
final class WorkoutManager {
    let healthStore: HKHealthStore
    /// The app whose delegate methods forward here (set by the app).
    weak var app: ReferenceWatchApp?
    private(set) var session: HKWorkoutSession?
    private(set) var builder: HKLiveWorkoutBuilder?
    private(set) var activityName = ""
    /// The saved workout's UUID: set when `finishWorkout()` returns one, nil otherwise.
    private(set) var healthKitWorkoutUUID: UUID?
    private(set) var heartRate: Double = 0
    /// The `finish-workout` tap waiting for the `.ended` handler's outcome.
    private var ending: CheckedContinuation<Outcome, Never>?

    struct Outcome {
        var workout: HKWorkout?
        var failure: String?
        var activeDuration: TimeInterval
        var energy: Double
    }

    init(healthStore: HKHealthStore) { self.healthStore = healthStore }

    var stateName: String { session?.state.name ?? "idle" }

    func start(_ type: HKWorkoutActivityType, name: String) async throws {
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = type
        configuration.locationType = .outdoor
        let session = try HKWorkoutSession(healthStore: healthStore, configuration: configuration)
        let builder = session.associatedWorkoutBuilder()
        builder.dataSource = HKLiveWorkoutDataSource(healthStore: healthStore, workoutConfiguration: configuration)
        session.delegate = app
        builder.delegate = app
        self.session = session
        self.builder = builder
        activityName = name
        healthKitWorkoutUUID = nil
        heartRate = 0
        let startDate = Date()
        session.startActivity(with: startDate)
        try await builder.beginCollection(at: startDate)
    }

    /// Ends the session; the `.ended` handler finishes the workout and resumes this.
    func end() async -> Outcome {
        await withCheckedContinuation { continuation in
            ending = continuation
            session?.end()
        }
    }

    func sessionChanged(to state: HKWorkoutSessionState, date: Date) {
        guard state == .ended, let builder else { return }
        builder.endCollection(withEnd: date) { success, error in
            guard success else { return self.finished(nil, error) }
            builder.finishWorkout { workout, error in self.finished(workout, error) }
        }
    }

    func sessionFailed(_ error: Error) {
        finished(nil, error)
    }

    func finished(_ workout: HKWorkout?, _ error: Error?) {
        healthKitWorkoutUUID = workout?.uuid
        let energy = builder?.statistics(for: HKQuantityType.quantityType(forIdentifier: .activeEnergyBurned)!)?
            .sumQuantity()?.doubleValue(for: .kilocalorie()) ?? 0
        let outcome = Outcome(workout: workout, failure: workout == nil ? error.map { "\($0)" } ?? "finishWorkout() returned no workout" : nil,
                              activeDuration: builder?.elapsedTime ?? 0, energy: (energy * 10).rounded() / 10)
        ending?.resume(returning: outcome)
        ending = nil
    }

    func collected(_ types: Set<HKSampleType>, by builder: HKLiveWorkoutBuilder) {
        let heartRateType = HKQuantityType.quantityType(forIdentifier: .heartRate)!
        guard types.contains(heartRateType), let statistics = builder.statistics(for: heartRateType) else { return }
        heartRate = statistics.mostRecentQuantity()?.doubleValue(for: HKUnit.count().unitDivided(by: .minute())) ?? heartRate
    }

    /// Seed 002's `recoverSession`: the session under way comes back with its builder, if any.
    func recover() {
        healthStore.recoverActiveWorkoutSession { session, _ in
            guard let session else { return }
            session.delegate = self.app
            self.session = session
            self.builder = session.associatedWorkoutBuilder()
            self.builder?.delegate = self.app
            self.activityName = AppDefaults.standard.string(forKey: ReferenceWatchApp.Key.activity)
                ?? ReferenceWatchApp.activities.first { $0.type == session.workoutConfiguration.activityType }?.name ?? "running"
        }
    }

    func reset() {
        session = nil
        builder = nil
        healthKitWorkoutUUID = nil
    }
}

extension HKWorkoutSessionState {
    /// The state's name in replies and `status`.
    var name: String {
        switch self {
        case .notStarted: "notStarted"
        case .prepared: "prepared"
        case .running: "running"
        case .paused: "paused"
        case .stopped: "stopped"
        case .ended: "ended"
        @unknown default: "unknown"
        }
    }
}
