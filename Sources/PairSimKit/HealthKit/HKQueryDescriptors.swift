import Foundation
internal import PairSimCore

/// A type and a predicate for the async query descriptors (`HKSamplePredicate`, iOS 15.4).
public struct HKSamplePredicate<Sample: HKSample>: @unchecked Sendable {
    // @unchecked: `NSPredicate` is not `Sendable`; PairSim's are immutable.
    public let sampleType: HKSampleType
    public let nsPredicate: NSPredicate?

    init(sampleType: HKSampleType, nsPredicate: NSPredicate?) {
        self.sampleType = sampleType
        self.nsPredicate = nsPredicate
    }
}

extension HKSamplePredicate where Sample == HKSample {
    public static func sample(type: HKSampleType, predicate: NSPredicate? = nil) -> HKSamplePredicate<HKSample> {
        HKSamplePredicate(sampleType: type, nsPredicate: predicate)
    }
}

extension HKSamplePredicate where Sample == HKQuantitySample {
    public static func quantitySample(type: HKQuantityType, predicate: NSPredicate? = nil) -> HKSamplePredicate<HKQuantitySample> {
        HKSamplePredicate(sampleType: type, nsPredicate: predicate)
    }
}

extension HKSamplePredicate where Sample == HKCategorySample {
    public static func categorySample(type: HKCategoryType, predicate: NSPredicate? = nil) -> HKSamplePredicate<HKCategorySample> {
        HKSamplePredicate(sampleType: type, nsPredicate: predicate)
    }
}

extension HKSamplePredicate where Sample == HKWorkout {
    public static func workout(_ predicate: NSPredicate? = nil) -> HKSamplePredicate<HKWorkout> {
        HKSamplePredicate(sampleType: HKWorkoutType(), nsPredicate: predicate)
    }
}

/// Samples as an async query (`HKSampleQueryDescriptor`, iOS 15.4): `result(for:)` returns them,
/// every predicate's, in the sort descriptors' order, at most `limit`.
public struct HKSampleQueryDescriptor<Sample: HKSample>: @unchecked Sendable {
    public let predicates: [HKSamplePredicate<Sample>]
    public let sortDescriptors: [SortDescriptor<Sample>]
    public let limit: Int?

    public init(predicates: [HKSamplePredicate<Sample>], sortDescriptors: [SortDescriptor<Sample>], limit: Int? = nil) {
        self.predicates = predicates
        self.sortDescriptors = sortDescriptors
        self.limit = limit
    }

    public func result(for healthStore: HKHealthStore) async throws -> [Sample] {
        // Each predicate's samples, asked of the platform in the platform's order when the sort
        // descriptors are one it has (so a `limit` goes with the question), then merged.
        let order = platformSortDescriptors
        var all: [Sample] = []
        for predicate in predicates {
            let found: [HKSample] = try await withCheckedThrowingContinuation { continuation in
                healthStore.fetch(predicate.sampleType, predicate: predicate.nsPredicate, sortDescriptors: order,
                                  limit: predicates.count == 1 ? (limit ?? HKObjectQueryNoLimit) : HKObjectQueryNoLimit) { continuation.resume(with: $0) }
            }
            all += found.compactMap { $0 as? Sample }
        }
        let sorted = sortDescriptors.isEmpty ? all : all.sorted(using: sortDescriptors)
        return limit.map { Array(sorted.prefix($0)) } ?? sorted
    }

    /// The sort descriptors as `NSSortDescriptor`s when they are HealthKit's sort identifiers.
    var platformSortDescriptors: [NSSortDescriptor]? {
        guard sortDescriptors.count == 1, let descriptor = sortDescriptors.first else { return sortDescriptors.isEmpty ? [] : nil }
        let path = descriptor.keyPath
        if path == \Sample.startDate { return [NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: descriptor.order == .forward)] }
        if path == \Sample.endDate { return [NSSortDescriptor(key: HKSampleSortIdentifierEndDate, ascending: descriptor.order == .forward)] }
        return nil
    }
}

/// What changed since an anchor, as an async query (`HKAnchoredObjectQueryDescriptor`, iOS 15.4):
/// `result(for:)` once, or `results(for:)` for the first result and then each later change.
public struct HKAnchoredObjectQueryDescriptor<Sample: HKSample>: @unchecked Sendable {
    /// What changed since the anchor.
    public struct Result: @unchecked Sendable {
        public let addedSamples: [Sample]
        public let deletedObjects: [HKDeletedObject]
        public let newAnchor: HKQueryAnchor
    }

    public let predicates: [HKSamplePredicate<Sample>]
    public let anchor: HKQueryAnchor?
    public let limit: Int?

    public init(predicates: [HKSamplePredicate<Sample>], anchor: HKQueryAnchor?, limit: Int? = nil) {
        self.predicates = predicates
        self.anchor = anchor
        self.limit = limit
    }

    public func result(for healthStore: HKHealthStore) async throws -> Result {
        try await changes(after: anchor, limit: limit, on: healthStore)
    }

    func changes(after anchor: HKQueryAnchor?, limit: Int?, on healthStore: HKHealthStore) async throws -> Result {
        guard let predicate = predicates.first else { return Result(addedSamples: [], deletedObjects: [], newAnchor: anchor ?? HKQueryAnchor(0)) }
        let page = try await withCheckedThrowingContinuation { continuation in
            healthStore.changes(predicate.sampleType, predicate: predicate.nsPredicate, after: anchor, limit: limit ?? HKObjectQueryNoLimit) {
                continuation.resume(with: $0)
            }
        }
        return Result(addedSamples: page.added.compactMap { $0 as? Sample }, deletedObjects: page.deleted, newAnchor: page.anchor)
    }

    /// The first result, then one for each later change of the type, until the task is cancelled.
    public func results(for healthStore: HKHealthStore) -> Results { Results(descriptor: self, store: healthStore) }

    /// The async sequence of `results(for:)`.
    public struct Results: AsyncSequence, @unchecked Sendable {
        public typealias Element = Result
        let descriptor: HKAnchoredObjectQueryDescriptor
        let store: HKHealthStore

        public func makeAsyncIterator() -> Iterator { Iterator(descriptor: descriptor, store: store) }

        public struct Iterator: AsyncIteratorProtocol {
            let descriptor: HKAnchoredObjectQueryDescriptor
            let store: HKHealthStore
            var anchor: HKQueryAnchor?
            var started = false
            let changes = AppChangeSignal()

            init(descriptor: HKAnchoredObjectQueryDescriptor, store: HKHealthStore) {
                self.descriptor = descriptor
                self.store = store
                anchor = descriptor.anchor
            }

            public mutating func next() async throws -> Result? {
                if started {
                    // Wait for the type to change (an observer of it, registered on first use).
                    guard let type = descriptor.predicates.first?.sampleType else { return nil }
                    try await changes.wait(for: type, on: store)
                }
                started = true
                let result = try await descriptor.changes(after: anchor, limit: descriptor.limit, on: store)
                anchor = result.newAnchor
                return result
            }
        }
    }
}

/// Statistics over a predicate's samples, as an async query (`HKStatisticsQueryDescriptor`).
public struct HKStatisticsQueryDescriptor: @unchecked Sendable {
    public let predicate: HKSamplePredicate<HKQuantitySample>
    public let options: HKStatisticsOptions

    public init(predicate: HKSamplePredicate<HKQuantitySample>, options: HKStatisticsOptions) {
        self.predicate = predicate
        self.options = options
    }

    public func result(for healthStore: HKHealthStore) async throws -> HKStatistics? {
        guard let type = predicate.sampleType as? HKQuantityType else { return nil }
        return try await withCheckedThrowingContinuation { continuation in
            healthStore.execute(HKStatisticsQuery(quantityType: type, quantitySamplePredicate: predicate.nsPredicate, options: options) { _, statistics, error in
                if let error = error as? HKError, error.code == .errorNoData { return continuation.resume(returning: nil) }
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: statistics) }
            })
        }
    }
}

/// Statistics per interval, as an async query (`HKStatisticsCollectionQueryDescriptor`):
/// `result(for:)` once, or `results(for:)` to hear each change.
public struct HKStatisticsCollectionQueryDescriptor: @unchecked Sendable {
    /// The collection, and the intervals a change touched (nil for the first).
    public struct Result: @unchecked Sendable {
        public let statisticsCollection: HKStatisticsCollection
        public let updatedStatistics: [HKStatistics]?
    }

    public let predicate: HKSamplePredicate<HKQuantitySample>
    public let options: HKStatisticsOptions
    public let anchorDate: Date
    public let intervalComponents: DateComponents

    public init(predicate: HKSamplePredicate<HKQuantitySample>, options: HKStatisticsOptions, anchorDate: Date, intervalComponents: DateComponents) {
        self.predicate = predicate
        self.options = options
        self.anchorDate = anchorDate
        self.intervalComponents = intervalComponents
    }

    var query: HKStatisticsCollectionQuery {
        HKStatisticsCollectionQuery(quantityType: predicate.sampleType as! HKQuantityType, quantitySamplePredicate: predicate.nsPredicate,
                                    options: options, anchorDate: anchorDate, intervalComponents: intervalComponents)
    }

    public func result(for healthStore: HKHealthStore) async throws -> HKStatisticsCollection {
        let query = self.query
        return try await withCheckedThrowingContinuation { continuation in
            query.compute(on: healthStore) { collection, error in
                if let collection { continuation.resume(returning: collection) } else { continuation.resume(throwing: error ?? HKError(.errorNoData)) }
            }
        }
    }

    /// The first collection, then one for each later change of the type.
    public func results(for healthStore: HKHealthStore) -> Results { Results(descriptor: self, store: healthStore) }

    public struct Results: AsyncSequence, @unchecked Sendable {
        public typealias Element = Result
        let descriptor: HKStatisticsCollectionQueryDescriptor
        let store: HKHealthStore

        public func makeAsyncIterator() -> Iterator { Iterator(descriptor: descriptor, store: store) }

        public struct Iterator: AsyncIteratorProtocol {
            let descriptor: HKStatisticsCollectionQueryDescriptor
            let store: HKHealthStore
            var last: HKStatisticsCollection?
            let changes = AppChangeSignal()

            /// The first collection (`updatedStatistics` nil), then, at each change of the type
            /// that alters it, the new collection with the intervals that changed.
            public mutating func next() async throws -> Result? {
                guard let previous = last else {
                    let first = try await descriptor.result(for: store)
                    last = first
                    return Result(statisticsCollection: first, updatedStatistics: nil)
                }
                while true {
                    try await changes.wait(for: descriptor.predicate.sampleType, on: store)
                    let collection = try await descriptor.result(for: store)
                    let changed = collection.changed(since: previous)
                    if changed.isEmpty { continue }
                    last = collection
                    return Result(statisticsCollection: collection, updatedStatistics: changed)
                }
            }
        }
    }
}

/// Lets an async sequence wait until a type changes: an observer of the type, registered on the
/// first wait, whose updates resume the waiting task (and complete at once).
final class AppChangeSignal: @unchecked Sendable {
    // @unchecked: used by one iterator, on the app's executor.
    var observer: HKObserverQuery?
    var pending = 0
    var waiter: CheckedContinuation<Void, Error>?

    func wait(for type: HKSampleType, on store: HKHealthStore) async throws {
        if observer == nil {
            // HealthKit calls a new observer once at once: that first call is not a change.
            var first = true
            let query = HKObserverQuery(sampleType: type, predicate: nil) { [weak self] _, completion, _ in
                defer { completion() }
                guard let self, !first else { first = false; return }
                if let waiter = self.waiter {
                    self.waiter = nil
                    waiter.resume()
                } else {
                    self.pending += 1
                }
            }
            observer = query
            store.execute(query)
        }
        if pending > 0 {
            pending -= 1
            return
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in waiter = continuation }
        } onCancel: { [weak self] in
            // Runs where the cancelling code runs: the app's executor, for app code.
            self?.waiter?.resume(throwing: CancellationError())
            self?.waiter = nil
        }
    }
}
