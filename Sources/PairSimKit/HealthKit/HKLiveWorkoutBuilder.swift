import Foundation
internal import PairSimCore

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
/// sensor produces them (HealthKit saves them within a minute), keeps their statistics, and saves
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
    /// What was collected of each type, summed as it arrived: computing the statistics again over
    /// every sample at each reading was quadratic in a workout's length (the reference watch app
    /// asks for them at each reading).
    var running: [HKQuantityType: Running] = [:]

    struct Running {
        let unit: HKUnit
        var count = 0
        var total = 0.0
        var minimum = Double.infinity
        var maximum = -Double.infinity
        var mostRecent: HKQuantitySample?
        var earliestStart = Date.distantFuture

        init(unit: HKUnit) { self.unit = unit }

        mutating func add(_ sample: HKQuantitySample) {
            let value = sample.quantity.doubleValue(for: unit)
            count += 1
            total += value
            minimum = min(minimum, value)
            maximum = max(maximum, value)
            earliestStart = min(earliestStart, sample.startDate)
            if let recent = mostRecent {
                let later = sample.endDate != recent.endDate ? sample.endDate > recent.endDate : sample.uuid.uuidString > recent.uuid.uuidString
                if later { mostRecent = sample }
            } else {
                mostRecent = sample
            }
        }
    }

    /// Adds collected samples, keeping their running statistics.
    func append(_ samples: [HKQuantitySample]) {
        // In place: a working copy of `running` made every append copy the whole dictionary.
        for sample in samples {
            collected[sample.quantityType, default: []].append(sample)
            running[sample.quantityType, default: Running(unit: sample.quantity.unit)].add(sample)
        }
    }
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
            if success { append(quantities) }
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
        let options: HKStatisticsOptions = quantityType.aggregationStyle == .cumulative
            ? .cumulativeSum : [.discreteAverage, .discreteMin, .discreteMax, .mostRecent]
        if let sums = running[quantityType], sums.count == samples.count, sums.earliestStart >= start, let latest = sums.mostRecent {
            // Every sample lies whole within the interval (none starts before it; it ends at the
            // latest sample's end or later): its running sums are the statistics.
            return HKStatistics(type: quantityType, start: start, end: max(endDate ?? Date(), latest.endDate), running: sums, options: options)
        }
        let end = max(endDate ?? Date(), samples.map(\.endDate).max() ?? start)
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
        // Each sized once: grown from empty, the set and the list took four allocations a reading.
        var types = Set<HKSampleType>(minimumCapacity: samples.count)
        var kept: [HKQuantitySample] = []
        kept.reserveCapacity(samples.count)
        for core in samples {
            let sample = HKQuantitySample(core: core)
            guard dataSource?.typesToCollect.contains(sample.quantityType) ?? false else { continue }
            kept.append(sample)
            types.insert(sample.quantityType)
        }
        append(kept)
        if !types.isEmpty { delegate?.workoutBuilder(self, didCollectDataOf: types) }
    }
}
