import Foundation
internal import PairSimCore

/// `HKWorkoutSessionState`, with Apple's numbers.
public enum HKWorkoutSessionState: Int, Hashable, Sendable {
    case notStarted = 1, running = 2, ended = 3, paused = 4, prepared = 5, stopped = 6

    init(_ core: WorkoutSessionState) { self = HKWorkoutSessionState(rawValue: core.rawValue)! }
}

/// `HKWorkoutEventType`: what happened during a workout.
public enum HKWorkoutEventType: Int, Hashable, Sendable {
    case pause = 1, resume = 2, lap = 3, marker = 4, motionPaused = 5, motionResumed = 6, segment = 7, pauseOrResumeRequest = 8
}

/// One event of a workout (`HKWorkoutEvent`): the live builder records the session's pauses and resumes.
public final class HKWorkoutEvent: Hashable, @unchecked Sendable {
    public let type: HKWorkoutEventType
    public let dateInterval: DateInterval
    public let metadata: [String: Any]?

    public init(type: HKWorkoutEventType, dateInterval: DateInterval, metadata: [String: Any]?) {
        self.type = type
        self.dateInterval = dateInterval
        self.metadata = metadata
    }

    public static func == (lhs: HKWorkoutEvent, rhs: HKWorkoutEvent) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// `HKWorkoutSessionDelegate`: the session's state changes and failures, on the app's driver thread.
public protocol HKWorkoutSessionDelegate: AnyObject {
    func workoutSession(_ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState,
                        from fromState: HKWorkoutSessionState, date: Date)
    func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: Error)
    func workoutSession(_ workoutSession: HKWorkoutSession, didGenerate event: HKWorkoutEvent)
}

extension HKWorkoutSessionDelegate {
    public func workoutSession(_ workoutSession: HKWorkoutSession, didGenerate event: HKWorkoutEvent) {}
}

/// A workout session on the watch (`HKWorkoutSession`, watchOS): while it runs, the watch app keeps
/// running and reachable, and the session's live builder collects the sensor's readings.
/// One session at a time: starting a second while one is under way fails it with
/// `errorAnotherWorkoutSessionStarted`. PairSim's iPhone has no workout sessions (its fail with
/// `errorHealthDataUnavailable`).
public final class HKWorkoutSession: Hashable, @unchecked Sendable {
    // @unchecked: used on the driver's thread only (PairSim reports other threads).
    public let workoutConfiguration: HKWorkoutConfiguration
    public weak var delegate: HKWorkoutSessionDelegate?
    public private(set) var state: HKWorkoutSessionState = .notStarted
    public private(set) var startDate: Date?
    public private(set) var endDate: Date?
    let id: Int
    let runtime: AppRuntime
    var builder: HKLiveWorkoutBuilder?

    /// Creates a session for `configuration`; nothing happens until `prepare()` or `startActivity(with:)`.
    /// Differs: never throws (every configuration is accepted).
    public init(healthStore: HKHealthStore, configuration workoutConfiguration: HKWorkoutConfiguration) throws {
        self.workoutConfiguration = workoutConfiguration
        runtime = AppRuntime.require("HKWorkoutSession")
        id = runtime.id()
        runtime.workoutSessions[id] = self
    }

    /// The session under way that a relaunched app recovers, with its builder.
    init(recovered: RecoveredWorkout, runtime: AppRuntime) {
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = HKWorkoutActivityType(coreName: recovered.activity)
        workoutConfiguration = configuration
        self.runtime = runtime
        id = recovered.session
        state = HKWorkoutSessionState(recovered.state)
        startDate = recovered.startDate.map { Date($0) }
        runtime.workoutSessions[id] = self
        guard let start = recovered.collectionStart else { return }
        let builder = HKLiveWorkoutBuilder(session: self)
        builder.startDate = Date(start)
        builder.active = TimeInterval(recovered.active.milliseconds) / 1_000
        builder.activeSince = recovered.activeSince.map { Date($0) }
        let dataSource = HKLiveWorkoutDataSource(healthStore: HKHealthStore(), workoutConfiguration: configuration)
        dataSource.typesToCollect = Set(recovered.collecting.map { HKQuantityType(HKQuantityTypeIdentifier($0)) })
        builder.dataSource = dataSource
        builder.append(recovered.samples.map(HKQuantitySample.init(core:)))
        self.builder = builder
    }

    var activity: String { workoutConfiguration.activityType.coreName }

    /// Readies the sensors (the state becomes `prepared`).
    public func prepare() { runtime.send(.workout(session: id, .prepare(activity: activity))) }

    /// Starts the activity at `date` (nil: now); the state becomes `running`.
    public func startActivity(with date: Date?) {
        runtime.send(.workout(session: id, .startActivity(activity: activity, at: date?.instant ?? runtime.now)))
    }

    public func pause() { runtime.send(.workout(session: id, .pause)) }
    public func resume() { runtime.send(.workout(session: id, .resume)) }

    /// Stops the activity at `date` (nil: now); the state becomes `stopped` (end it next).
    public func stopActivity(with date: Date?) {
        runtime.send(.workout(session: id, .stopActivity(at: date?.instant ?? runtime.now)))
    }

    /// Ends the session (the state becomes `ended`); the watch app stops being kept running.
    public func end() { runtime.send(.workout(session: id, .end)) }

    /// The session's live builder (one per session).
    public func associatedWorkoutBuilder() -> HKLiveWorkoutBuilder {
        if let builder { return builder }
        let made = HKLiveWorkoutBuilder(session: self)
        builder = made
        return made
    }

    /// The platform's news of this session.
    func changed(to: HKWorkoutSessionState, from: HKWorkoutSessionState, date: Date) {
        state = to
        if to == .running, startDate == nil { startDate = date }
        if to == .ended || to == .stopped, endDate == nil { endDate = date }
        builder?.sessionChanged(to: to, from: from, date: date)
        delegate?.workoutSession(self, didChangeTo: to, from: from, date: date)
        if to == .ended { runtime.workoutSessions[id] = nil }
    }

    func failed(_ code: String) {
        runtime.workoutSessions[id] = nil
        delegate?.workoutSession(self, didFailWithError: HKError(code))
    }

    public static func == (lhs: HKWorkoutSession, rhs: HKWorkoutSession) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// Waits for a HealthKit completion handler: returns on success, throws its error.
func healthKitDone(_ start: (@escaping @Sendable (Bool, Error?) -> Void) -> Void) async throws {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
        start { _, error in
            if let error { continuation.resume(throwing: error) } else { continuation.resume() }
        }
    }
}

extension HKHealthStore {
    /// The workout session under way when the system relaunched the watch app (after a crash or a
    /// restart of the watch), with its builder and what the builder collected; nil when there is none.
    public func recoverActiveWorkoutSession(completion: @escaping @Sendable (HKWorkoutSession?, Error?) -> Void) {
        let runtime = self.runtime
        let id = runtime.id()
        runtime.pendingRecoveries[id] = { recovered in
            completion(recovered.map { HKWorkoutSession(recovered: $0, runtime: runtime) }, nil)
        }
        runtime.send(.workout(session: runtime.id(), .recover(id: id)))
    }

    public func recoverActiveWorkoutSession() async throws -> HKWorkoutSession? {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HKWorkoutSession?, Error>) in
            recoverActiveWorkoutSession { session, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: session) }
            }
        }
    }
}
