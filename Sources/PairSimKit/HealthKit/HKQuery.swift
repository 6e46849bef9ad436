import Foundation
internal import PairSimCore

/// `HKObserverQueryCompletionHandler`: call it when done with an update (for background
/// delivery, before the wake's budget ends, or HealthKit retries with backoff and stops after 3).
public typealias HKObserverQueryCompletionHandler = @Sendable () -> Void

/// The options of `predicateForSamples(withStart:end:options:)`.
public struct HKQueryOptions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// The sample starts in the interval.
    public static let strictStartDate = HKQueryOptions(rawValue: 1 << 0)
    /// The sample ends in the interval.
    public static let strictEndDate = HKQueryOptions(rawValue: 1 << 1)
}

/// `HKObjectQueryNoLimit`: every matching object.
public let HKObjectQueryNoLimit = 0

/// A HealthKit query (`HKQuery`). Queries are objects: two queries are equal only if they are the
/// same query, so they go in a `Set` or serve as dictionary keys as HealthKit's do.
public class HKQuery: Hashable, CustomStringConvertible, @unchecked Sendable {
    // @unchecked: as HealthKit's, handed between the app's code and PairSim on one thread.

    /// The type the query asks about.
    public let objectType: HKObjectType?
    /// The predicate it was made with.
    public let predicate: NSPredicate?
    /// Assigned when executed (a long-running query's platform observer).
    var id: Int?
    /// Set by `HKHealthStore.stop`: a long-running query reports nothing more.
    var stopped = false

    init(objectType: HKObjectType?, predicate: NSPredicate?) {
        self.objectType = objectType
        self.predicate = predicate
    }

    @available(*, deprecated, renamed: "objectType")
    public var sampleType: HKSampleType? { objectType as? HKSampleType }

    public static func == (lhs: HKQuery, rhs: HKQuery) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    public var description: String {
        "<\(Swift.type(of: self)) \(objectType?.identifier ?? "-")\(predicate.map { " \($0.predicateFormat)" } ?? "")>"
    }
}

/// A long-running query told *that* a type changed (`HKObserverQuery`, R: O2). Its handler also
/// runs once when the query starts, as HealthKit's does.
public final class HKObserverQuery: HKQuery, @unchecked Sendable {
    let updateHandler: (HKObserverQuery, @escaping HKObserverQueryCompletionHandler, Error?) -> Void
    /// The descriptors of `init(queryDescriptors:updateHandler:)`, each a type and its predicate.
    let descriptors: [HKQueryDescriptor]
    let descriptorsHandler: ((HKObserverQuery, Set<HKSampleType>?, @escaping HKObserverQueryCompletionHandler, Error?) -> Void)?

    public init(sampleType: HKSampleType, predicate: NSPredicate?,
                updateHandler: @escaping (HKObserverQuery, @escaping HKObserverQueryCompletionHandler, Error?) -> Void) {
        self.updateHandler = updateHandler
        descriptors = [HKQueryDescriptor(sampleType: sampleType, predicate: predicate)]
        descriptorsHandler = nil
        super.init(objectType: sampleType, predicate: predicate)
    }

    /// One query for several types (iOS 15): the handler hears which types changed.
    public init(queryDescriptors: [HKQueryDescriptor],
                updateHandler: @escaping (HKObserverQuery, Set<HKSampleType>?, @escaping HKObserverQueryCompletionHandler, Error?) -> Void) {
        descriptors = queryDescriptors
        descriptorsHandler = updateHandler
        self.updateHandler = { query, completion, error in updateHandler(query, nil, completion, error) }
        super.init(objectType: queryDescriptors.first?.sampleType, predicate: queryDescriptors.first?.predicate)
    }

    /// One descriptor registered with the platform: what it watches and, for one with a
    /// predicate, where it last looked.
    struct Watch {
        let descriptor: HKQueryDescriptor
        var anchor: HKQueryAnchor?
        var started = false
    }

    /// The platform registrations (ids) of this query.
    var watched: [Int: Watch] = [:]

    /// The platform says registration `id`'s type changed (or the query just started). The first
    /// call always reaches the handler, as HealthKit's does; after it, a descriptor with a
    /// predicate reaches it only when something the predicate accepts was added since it last
    /// looked — or something was deleted (a deleted object cannot be matched: it is reported).
    func update(_ id: Int, completion: @escaping HKObserverQueryCompletionHandler) {
        guard var watch = watched[id] else { return completion() }
        let type = watch.descriptor.sampleType
        guard let predicate = watch.descriptor.predicate else { return deliver(type, completion: completion) }
        let first = !watch.started
        watch.started = true
        watched[id] = watch
        HKHealthStore().changes(type, predicate: predicate, after: first ? HKQueryAnchor.latest : watch.anchor, limit: HKObjectQueryNoLimit) { [weak self] result in
            guard let self else { return completion() }
            guard case .success(let page) = result else { return self.deliver(type, completion: completion) }
            self.watched[id]?.anchor = page.anchor
            if first || !page.added.isEmpty || !page.deleted.isEmpty {
                self.deliver(type, completion: completion)
            } else {
                completion()
            }
        }
    }

    /// Runs the app's handler for an update of `type`.
    func deliver(_ type: HKSampleType?, completion: @escaping HKObserverQueryCompletionHandler) {
        if let descriptorsHandler {
            descriptorsHandler(self, type.map { [$0] }, completion, nil)
        } else {
            updateHandler(self, completion, nil)
        }
    }
}

/// A type and a predicate, to build queries from (`HKQueryDescriptor`, iOS 15).
public final class HKQueryDescriptor: Hashable, @unchecked Sendable {
    public let sampleType: HKSampleType
    public let predicate: NSPredicate?

    public init(sampleType: HKSampleType, predicate: NSPredicate?) {
        self.sampleType = sampleType
        self.predicate = predicate
    }

    public static func == (lhs: HKQueryDescriptor, rhs: HKQueryDescriptor) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// Samples of a type (`HKSampleQuery`): any predicate, any limit, sorted by `NSSortDescriptor`s
/// (`HKSampleSortIdentifierStartDate` and the like; HealthKit's order by default, oldest start first).
public final class HKSampleQuery: HKQuery, @unchecked Sendable {
    public let limit: Int
    public let sortDescriptors: [NSSortDescriptor]?
    let resultsHandler: (HKSampleQuery, [HKSample]?, Error?) -> Void

    public init(sampleType: HKSampleType, predicate: NSPredicate?, limit: Int, sortDescriptors: [NSSortDescriptor]?,
                resultsHandler: @escaping (HKSampleQuery, [HKSample]?, Error?) -> Void) {
        self.limit = limit
        self.sortDescriptors = sortDescriptors
        self.resultsHandler = resultsHandler
        super.init(objectType: sampleType, predicate: predicate)
    }

    /// iOS 15's form over several descriptors.
    public init(queryDescriptors: [HKQueryDescriptor], limit: Int, sortDescriptors: [NSSortDescriptor] = [],
                resultsHandler: @escaping (HKSampleQuery, [HKSample]?, Error?) -> Void) {
        self.limit = limit
        self.sortDescriptors = sortDescriptors
        self.resultsHandler = resultsHandler
        super.init(objectType: queryDescriptors.first?.sampleType, predicate: queryDescriptors.first?.predicate)
    }
}

/// What changed since an anchor: added samples, deleted objects, a new anchor
/// (`HKAnchoredObjectQuery`). With a `limit`, results come a page at a time: the anchor
/// advances past each page. With an `updateHandler` it keeps running and reports each later
/// change, as HealthKit's does.
public final class HKAnchoredObjectQuery: HKQuery, @unchecked Sendable {
    public typealias Handler = (HKAnchoredObjectQuery, [HKSample]?, [HKDeletedObject]?, HKQueryAnchor?, Error?) -> Void

    let anchor: HKQueryAnchor?
    public let limit: Int
    let resultsHandler: Handler
    /// Set before `execute` to keep the query running (a long-running query).
    public var updateHandler: Handler?

    public init(type: HKSampleType, predicate: NSPredicate?, anchor: HKQueryAnchor?, limit: Int, resultsHandler: @escaping Handler) {
        self.anchor = anchor
        self.limit = limit
        self.resultsHandler = resultsHandler
        super.init(objectType: type, predicate: predicate)
    }

    /// iOS 15's form over several descriptors.
    public init(queryDescriptors: [HKQueryDescriptor], anchor: HKQueryAnchor?, limit: Int, resultsHandler: @escaping Handler) {
        self.anchor = anchor
        self.limit = limit
        self.resultsHandler = resultsHandler
        super.init(objectType: queryDescriptors.first?.sampleType, predicate: queryDescriptors.first?.predicate)
    }
}
