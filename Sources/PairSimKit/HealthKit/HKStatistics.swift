import Foundation
internal import PairSimCore

/// What a statistics query computes (`HKStatisticsOptions`).
public struct HKStatisticsOptions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let separateBySource = HKStatisticsOptions(rawValue: 1 << 0)
    public static let discreteAverage = HKStatisticsOptions(rawValue: 1 << 1)
    public static let discreteMin = HKStatisticsOptions(rawValue: 1 << 2)
    public static let discreteMax = HKStatisticsOptions(rawValue: 1 << 3)
    public static let cumulativeSum = HKStatisticsOptions(rawValue: 1 << 4)
    public static let mostRecent = HKStatisticsOptions(rawValue: 1 << 5)
    public static let duration = HKStatisticsOptions(rawValue: 1 << 6)
}

/// Statistics over one interval (`HKStatistics`). PairSim computes them from the samples the app
/// may read, as HealthKit does: a sum splits a sample that straddles the interval in proportion to
/// its overlap; an average, minimum and maximum take each sample that overlaps whole.
public final class HKStatistics: @unchecked Sendable {
    public let quantityType: HKQuantityType
    public let startDate: Date
    public let endDate: Date
    /// The sources whose samples went in (with `.separateBySource`).
    public let sources: [HKSource]?
    let unit: HKUnit
    let sum: Double?
    let average: Double?
    let minimum: Double?
    let maximum: Double?
    let mostRecent: (value: Double, interval: DateInterval)?
    let bySource: [HKSource: Double]

    init(type: HKQuantityType, start: Date, end: Date, samples: [HKQuantitySample], options: HKStatisticsOptions) {
        quantityType = type
        startDate = start
        endDate = end
        unit = samples.first?.quantity.unit ?? HKUnit(from: type.defaultUnitString)
        let unit = self.unit
        let values = samples.map { $0.quantity.doubleValue(for: unit) }
        let span = end.timeIntervalSince(start)
        func share(_ sample: HKQuantitySample) -> Double {
            let length = sample.endDate.timeIntervalSince(sample.startDate)
            guard length > 0, span > 0 else { return 1 }
            let overlap = min(sample.endDate, end).timeIntervalSince(max(sample.startDate, start))
            return max(0, min(1, overlap / length))
        }
        sum = options.contains(.cumulativeSum) && !samples.isEmpty ? zip(samples, values).reduce(0) { $0 + $1.1 * share($1.0) } : nil
        average = options.contains(.discreteAverage) && !values.isEmpty ? values.reduce(0, +) / Double(values.count) : nil
        minimum = options.contains(.discreteMin) ? values.min() : nil
        maximum = options.contains(.discreteMax) ? values.max() : nil
        mostRecent = options.contains(.mostRecent)
            // The UUID's text only breaks a tie: formatting it for every comparison was 60 % of a
            // simulated week whose watch app asks its live builder for statistics at each reading.
            ? samples.max { $0.endDate != $1.endDate ? $0.endDate < $1.endDate : $0.uuid.uuidString < $1.uuid.uuidString }
                .map { ($0.quantity.doubleValue(for: unit), DateInterval(start: $0.startDate, end: $0.endDate)) }
            : nil
        if options.contains(.separateBySource) {
            var bySource: [HKSource: Double] = [:]
            for (sample, value) in zip(samples, values) { bySource[sample.sourceRevision.source, default: 0] += value * share(sample) }
            self.bySource = bySource
            sources = bySource.keys.sorted { $0.bundleIdentifier < $1.bundleIdentifier }
        } else {
            bySource = [:]
            sources = nil
        }
    }

    /// Statistics summed as samples arrived (a live builder's): every sample lies whole within the
    /// interval, so each counts whole, as the sample-by-sample init would count it.
    init(type: HKQuantityType, start: Date, end: Date, running: HKLiveWorkoutBuilder.Running, options: HKStatisticsOptions) {
        quantityType = type
        startDate = start
        endDate = end
        unit = running.unit
        sum = options.contains(.cumulativeSum) && running.count > 0 ? running.total : nil
        average = options.contains(.discreteAverage) && running.count > 0 ? running.total / Double(running.count) : nil
        minimum = options.contains(.discreteMin) && running.count > 0 ? running.minimum : nil
        maximum = options.contains(.discreteMax) && running.count > 0 ? running.maximum : nil
        mostRecent = options.contains(.mostRecent) ? running.mostRecent.map {
            ($0.quantity.doubleValue(for: running.unit), DateInterval(start: $0.startDate, end: $0.endDate))
        } : nil
        bySource = [:]
        sources = nil
    }

    /// Statistics that are one stored sum (a workout's active energy).
    init(type: HKQuantityType, start: Date, end: Date, sum: HKQuantity) {
        quantityType = type
        startDate = start
        endDate = end
        unit = sum.unit
        self.sum = sum.doubleValue(for: sum.unit)
        average = nil
        minimum = nil
        maximum = nil
        mostRecent = nil
        bySource = [:]
        sources = nil
    }

    func quantity(_ value: Double?) -> HKQuantity? { value.map { HKQuantity(unit: unit, doubleValue: $0) } }

    public func sumQuantity() -> HKQuantity? { quantity(sum) }
    public func averageQuantity() -> HKQuantity? { quantity(average) }
    public func minimumQuantity() -> HKQuantity? { quantity(minimum) }
    public func maximumQuantity() -> HKQuantity? { quantity(maximum) }
    public func mostRecentQuantity() -> HKQuantity? { quantity(mostRecent?.value) }
    public func mostRecentQuantityDateInterval() -> DateInterval? { mostRecent?.interval }
    public func sumQuantity(for source: HKSource) -> HKQuantity? { quantity(bySource[source]) }
}

/// Statistics per interval of a collection query (`HKStatisticsCollection`).
public final class HKStatisticsCollection: @unchecked Sendable {
    let intervals: [HKStatistics]

    init(intervals: [HKStatistics]) { self.intervals = intervals }

    /// Every interval that holds data, oldest first.
    public func statistics() -> [HKStatistics] { intervals.filter { $0.hasData } }

    /// The interval `date` falls in.
    public func statistics(for date: Date) -> HKStatistics? { intervals.first { $0.startDate <= date && date < $0.endDate } }

    /// Each interval from the one holding `startDate` to the one holding `endDate`, empty ones
    /// included, oldest first; `block` may set `stop`.
    public func enumerateStatistics(from startDate: Date, to endDate: Date, with block: (HKStatistics, UnsafeMutablePointer<ObjCBool>) -> Void) {
        var stop: ObjCBool = false
        for statistics in intervals where statistics.endDate > startDate && statistics.startDate <= endDate {
            block(statistics, &stop)
            if stop.boolValue { return }
        }
    }

    public func sources() -> Set<HKSource> { Set(intervals.flatMap { $0.sources ?? [] }) }

    /// The intervals whose values differ from `previous`'s for the same interval (new ones included).
    func changed(since previous: HKStatisticsCollection?) -> [HKStatistics] {
        let before = Dictionary((previous?.intervals ?? []).map { ($0.startDate, $0) }, uniquingKeysWith: { first, _ in first })
        return statistics().filter { statistics in !(before[statistics.startDate].map(statistics.sameValues) ?? false) }
    }
}

extension HKStatistics {
    var hasData: Bool { sum != nil || average != nil || minimum != nil || maximum != nil || mostRecent != nil }

    /// The same figures as `other` (sources included).
    func sameValues(_ other: HKStatistics) -> Bool {
        sum == other.sum && average == other.average && minimum == other.minimum && maximum == other.maximum
            && mostRecent?.value == other.mostRecent?.value && mostRecent?.interval == other.mostRecent?.interval && bySource == other.bySource
    }
}

/// Statistics over the samples a predicate selects (`HKStatisticsQuery`).
public final class HKStatisticsQuery: HKQuery, @unchecked Sendable {
    let options: HKStatisticsOptions
    let completion: (HKStatisticsQuery, HKStatistics?, Error?) -> Void

    public init(quantityType: HKQuantityType, quantitySamplePredicate: NSPredicate?, options: HKStatisticsOptions,
                completionHandler: @escaping (HKStatisticsQuery, HKStatistics?, Error?) -> Void) {
        self.options = options
        completion = completionHandler
        super.init(objectType: quantityType, predicate: quantitySamplePredicate)
    }

    func run(on store: HKHealthStore) {
        let type = objectType as! HKQuantityType
        let plan = PredicatePlan(predicate)
        store.fetch(type, predicate: predicate, sortDescriptors: nil, limit: HKObjectQueryNoLimit) { result in
            switch result {
            case .success(let objects):
                let samples = objects.compactMap { $0 as? HKQuantitySample }
                guard !samples.isEmpty || plan.from != nil else {
                    return self.completion(self, nil, HKError(.errorNoData))
                }
                let start = plan.from ?? samples.map(\.startDate).min()!
                let end = plan.to ?? samples.map(\.endDate).max() ?? start
                self.completion(self, HKStatistics(type: type, start: start, end: end, samples: samples, options: self.options), nil)
            case .failure(let error):
                self.completion(self, nil, error)
            }
        }
    }
}

/// Statistics per interval — per day, per hour — from an anchor date (`HKStatisticsCollectionQuery`),
/// what step, energy and heart-rate screens use. With a `statisticsUpdateHandler` it keeps running
/// and recomputes when the type changes, as an observer of the type sees it.
public final class HKStatisticsCollectionQuery: HKQuery, @unchecked Sendable {
    public let anchorDate: Date
    public let options: HKStatisticsOptions
    public let intervalComponents: DateComponents
    public var initialResultsHandler: ((HKStatisticsCollectionQuery, HKStatisticsCollection?, Error?) -> Void)?
    public var statisticsUpdateHandler: ((HKStatisticsCollectionQuery, HKStatistics?, HKStatisticsCollection?, Error?) -> Void)?

    public init(quantityType: HKQuantityType, quantitySamplePredicate: NSPredicate?, options: HKStatisticsOptions,
                anchorDate: Date, intervalComponents: DateComponents) {
        self.anchorDate = anchorDate
        self.options = options
        self.intervalComponents = intervalComponents
        super.init(objectType: quantityType, predicate: quantitySamplePredicate)
    }

    func run(on store: HKHealthStore) {
        // The store keeps a running query alive, as HealthKit's does: until its first results,
        // and with an update handler until `stop` (the observer below holds it).
        compute(on: store) { collection, error in
            self.initialResultsHandler?(self, collection, error)
            guard self.statisticsUpdateHandler != nil, !self.stopped, let type = self.objectType as? HKSampleType else { return }
            var last = collection
            let observer = HKObserverQuery(sampleType: type, predicate: nil) { [weak store] _, completion, _ in
                guard let store, !self.stopped, let update = self.statisticsUpdateHandler else { return completion() }
                self.compute(on: store) { collection, error in
                    // The interval the change touched (the latest of them), as HealthKit passes it.
                    let changed = collection?.changed(since: last) ?? []
                    if let collection { last = collection }
                    if error != nil || !changed.isEmpty { update(self, changed.last, collection, error) }
                    completion()
                }
            }
            store.register(observer, runtime: store.runtime)
            self.id = observer.id
        }
    }

    /// The collection from the first interval holding a sample (or the predicate's start) to the last.
    func compute(on store: HKHealthStore, completion: @escaping (HKStatisticsCollection?, Error?) -> Void) {
        let type = objectType as! HKQuantityType
        let plan = PredicatePlan(predicate)
        let options = self.options, anchorDate = self.anchorDate, components = self.intervalComponents
        store.fetch(type, predicate: predicate, sortDescriptors: nil, limit: HKObjectQueryNoLimit) { result in
            switch result {
            case .success(let objects):
                let samples = objects.compactMap { $0 as? HKQuantitySample }
                guard let first = plan.from ?? samples.map(\.startDate).min(), let last = plan.to ?? samples.map(\.endDate).max() else {
                    return completion(HKStatisticsCollection(intervals: []), nil)
                }
                let intervals = Self.intervals(from: first, to: last, anchor: anchorDate, every: components).map { interval in
                    HKStatistics(type: type, start: interval.start, end: interval.end,
                                 samples: samples.filter { $0.endDate > interval.start && $0.startDate < interval.end }, options: options)
                }
                completion(HKStatisticsCollection(intervals: intervals), nil)
            case .failure(let error):
                completion(nil, error)
            }
        }
    }

    /// The intervals, aligned on `anchor` and `every` long, that cover `[start, end]`.
    static func intervals(from start: Date, to end: Date, anchor: Date, every components: DateComponents) -> [DateInterval] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        func step(_ date: Date, _ times: Int) -> Date? {
            var scaled = DateComponents()
            scaled.year = components.year.map { $0 * times }
            scaled.month = components.month.map { $0 * times }
            scaled.weekOfYear = components.weekOfYear.map { $0 * times }
            scaled.day = components.day.map { $0 * times }
            scaled.hour = components.hour.map { $0 * times }
            scaled.minute = components.minute.map { $0 * times }
            scaled.second = components.second.map { $0 * times }
            return calendar.date(byAdding: scaled, to: date)
        }
        guard let probe = step(anchor, 1), probe > anchor else { return [] }
        // Walk back (or forward) from the anchor to the interval holding `start`.
        var times = 0
        while let date = step(anchor, times), date > start { times -= 1; if times < -1_000_000 { return [] } }
        while let next = step(anchor, times + 1), next <= start { times += 1; if times > 1_000_000 { return [] } }
        var intervals: [DateInterval] = []
        while let from = step(anchor, times), let to = step(anchor, times + 1), from <= end, intervals.count < 100_000 {
            intervals.append(DateInterval(start: from, end: to))
            times += 1
        }
        return intervals
    }
}
