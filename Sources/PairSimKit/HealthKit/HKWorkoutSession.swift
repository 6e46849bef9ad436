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
        for sample in recovered.samples {
            let quantity = HKQuantitySample(core: sample)
            builder.collected[quantity.quantityType, default: []].append(quantity)
        }
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

/// `HKLiveWorkoutDataSource`: which of the sensor's readings reach the builder. By default the
/// types Apple collects for the configuration that PairSim's sensor reads: heart rate and active energy.
public final class HKLiveWorkoutDataSource: @unchecked Sendable {
    public internal(set) var typesToCollect: Set<HKQuantityType>

    public init(healthStore: HKHealthStore, workoutConfiguration configuration: HKWorkoutConfiguration?) {
        typesToCollect = [HKQuantityType(.heartRate), HKQuantityType(.activeEnergyBurned)]
    }

    /// Collects `quantityType` too.
    /// Differs: the predicate is not applied; the sensor reads only heart rate and active energy
    public func enableCollection(for quantityType: HKQuantityType, predicate: NSPredicate?) { typesToCollect.insert(quantityType) }
    public func disableCollection(for quantityType: HKQuantityType) { typesToCollect.remove(quantityType) }

    var coreTypes: [SampleType] {
        typesToCollect.compactMap { if case .sample(let type)? = $0.core { type } else { nil } }.sorted { $0.rawValue < $1.rawValue }
    }
}

/// `HKLiveWorkoutBuilderDelegate`: what the builder collected, on the app's driver thread.
public protocol HKLiveWorkoutBuilderDelegate: AnyObject {
    func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>)
    func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder)
}

/// A session's live builder (`HKLiveWorkoutBuilder`): collects the data source's readings as the
/// sensor produces them (each saved to HealthKit as it arrives), keeps their statistics, and saves
/// the HKWorkout at `finishWorkout()`.
/// Differs: not a subclass of `HKWorkoutBuilder` (not declared); the members PairSim models are its own
public final class HKLiveWorkoutBuilder: @unchecked Sendable {
    public weak var delegate: HKLiveWorkoutBuilderDelegate?
    public var dataSource: HKLiveWorkoutDataSource?
    public private(set) weak var workoutSession: HKWorkoutSession?
    public let workoutConfiguration: HKWorkoutConfiguration
    public internal(set) var startDate: Date?
    public private(set) var endDate: Date?
    public private(set) var workoutEvents: [HKWorkoutEvent] = []
    public private(set) var metadata: [String: Any] = [:]
    /// Whether the builder records the session's pauses and resumes as workout events.
    public var shouldCollectWorkoutEvents = true
    let session: Int
    let runtime: AppRuntime
    var collected: [HKQuantityType: [HKQuantitySample]] = [:]
    var active: TimeInterval = 0
    var activeSince: Date?
    var pausedAt: Date?

    init(session: HKWorkoutSession) {
        workoutSession = session
        workoutConfiguration = session.workoutConfiguration
        self.session = session.id
        runtime = session.runtime
        runtime.workoutBuilders[session.id] = self
    }

    // MARK: Collecting

    public func beginCollection(withStart start: Date, completion: @escaping @Sendable (Bool, Error?) -> Void) {
        let types = dataSource?.coreTypes ?? []
        runtime.request({ .workout(session: self.session, .beginCollection(id: $0, at: start.instant, types: types)) }) { [self] error in
            if error == nil {
                startDate = start
                if workoutSession?.state == .running { activeSince = start }
            }
            completion(error == nil, error.map(HKError.init))
        }
    }

    public func beginCollection(at start: Date) async throws {
        try await healthKitDone { self.beginCollection(withStart: start, completion: $0) }
    }

    public func endCollection(withEnd end: Date, completion: @escaping @Sendable (Bool, Error?) -> Void) {
        runtime.request({ .workout(session: self.session, .endCollection(id: $0, at: end.instant)) }) { [self] error in
            if error == nil {
                endDate = end
                if let since = activeSince { active += max(0, end.timeIntervalSince(since)) }
                activeSince = nil
            }
            completion(error == nil, error.map(HKError.init))
        }
    }

    public func endCollection(at end: Date) async throws {
        try await healthKitDone { self.endCollection(withEnd: end, completion: $0) }
    }

    /// Adds samples of the app's own: saved to HealthKit now, and counted in the builder's statistics.
    public func add(_ samples: [HKSample], completion: @escaping @Sendable (Bool, Error?) -> Void) {
        let quantities = samples.compactMap { $0 as? HKQuantitySample }
        HKHealthStore().save(samples) { [self] success, error in
            if success { for sample in quantities { collected[sample.quantityType, default: []].append(sample) } }
            completion(success, error)
        }
    }

    public func addSamples(_ samples: [HKSample]) async throws {
        try await healthKitDone { self.add(samples, completion: $0) }
    }

    /// Adds events of the app's own (laps, markers, segments).
    public func addWorkoutEvents(_ workoutEvents: [HKWorkoutEvent], completion: @escaping @Sendable (Bool, Error?) -> Void) {
        self.workoutEvents += workoutEvents
        runtime.completeLater { completion(true, nil) }
    }

    public func addMetadata(_ metadata: [String: Any], completion: @escaping @Sendable (Bool, Error?) -> Void) {
        self.metadata.merge(metadata) { _, new in new }
        runtime.completeLater { completion(true, nil) }
    }

    // MARK: Finishing

    /// Saves the HKWorkout over the collection's interval (call `endCollection(withEnd:)` first).
    public func finishWorkout(completion: @escaping @Sendable (HKWorkout?, Error?) -> Void) {
        let id = runtime.id()
        runtime.pendingWorkouts[id] = { workout, error in
            completion(workout.map(HKWorkout.init(core:)), error.map(HKError.init))
        }
        runtime.send(.workout(session: session, .finish(id: id)))
    }

    public func finishWorkout() async throws -> HKWorkout? {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HKWorkout?, Error>) in
            finishWorkout { workout, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: workout) }
            }
        }
    }

    /// Throws away what the builder collected (the samples stay in HealthKit).
    public func discardWorkout() { runtime.send(.workout(session: session, .discard)) }

    // MARK: Reading

    /// Active time so far: pauses excluded.
    public var elapsedTime: TimeInterval { elapsedTime(at: Date()) }

    public func elapsedTime(at date: Date) -> TimeInterval {
        active + (activeSince.map { max(0, date.timeIntervalSince($0)) } ?? 0)
    }

    /// The statistics of what the builder collected of `quantityType`: sum for cumulative types;
    /// average, minimum, maximum and most recent for discrete ones.
    public func statistics(for quantityType: HKQuantityType) -> HKStatistics? {
        guard let samples = collected[quantityType], !samples.isEmpty, let start = startDate ?? samples.first?.startDate else { return nil }
        let end = max(endDate ?? Date(), samples.map(\.endDate).max() ?? start)
        let options: HKStatisticsOptions = quantityType.aggregationStyle == .cumulative
            ? .cumulativeSum : [.discreteAverage, .discreteMin, .discreteMax, .mostRecent]
        return HKStatistics(type: quantityType, start: start, end: end, samples: samples, options: options)
    }

    public var allStatistics: [HKQuantityType: HKStatistics] {
        var all: [HKQuantityType: HKStatistics] = [:]
        for type in collected.keys { all[type] = statistics(for: type) }
        return all
    }

    // MARK: The platform's news

    func sessionChanged(to: HKWorkoutSessionState, from: HKWorkoutSessionState, date: Date) {
        guard startDate != nil, endDate == nil else { return }
        switch to {
        case .paused, .stopped, .ended:
            if let since = activeSince { active += max(0, date.timeIntervalSince(since)) }
            activeSince = nil
            if to == .paused {
                pausedAt = date
                recordEvent(HKWorkoutEvent(type: .pause, dateInterval: DateInterval(start: date, duration: 0), metadata: nil))
            }
        case .running:
            activeSince = date
            if from == .paused {
                recordEvent(HKWorkoutEvent(type: .resume, dateInterval: DateInterval(start: date, duration: 0), metadata: nil))
            }
        case .notStarted, .prepared:
            break
        }
    }

    func recordEvent(_ event: HKWorkoutEvent) {
        guard shouldCollectWorkoutEvents else { return }
        workoutEvents.append(event)
        delegate?.workoutBuilderDidCollectEvent(self)
    }

    func collect(_ samples: [HealthSample]) {
        var types = Set<HKSampleType>()
        for core in samples {
            let sample = HKQuantitySample(core: core)
            guard dataSource?.typesToCollect.contains(sample.quantityType) ?? false else { continue }
            collected[sample.quantityType, default: []].append(sample)
            types.insert(sample.quantityType)
        }
        if !types.isEmpty { delegate?.workoutBuilder(self, didCollectDataOf: types) }
    }
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
