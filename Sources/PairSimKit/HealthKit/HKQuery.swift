import Foundation
internal import PairSimCore

/// `HKObserverQueryCompletionHandler`: call it when done with an update (for background
/// delivery, before the wake's budget ends, or HealthKit retries with backoff and stops after 3).
public typealias HKObserverQueryCompletionHandler = @Sendable () -> Void

/// A date predicate for sample queries (`HKQuery.predicateForSamples(withStart:end:options:)`),
/// or a UUID predicate (`HKQuery.predicateForObject(with:)`).
public struct HKSamplePredicate: Sendable {
    let start: Date?
    let end: Date?
    let uuids: [UUID]?
}

/// The options of `predicateForSamples` (PairSim matches samples that overlap the range).
public struct HKQueryOptions: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let strictStartDate = HKQueryOptions(rawValue: 1)
    public static let strictEndDate = HKQueryOptions(rawValue: 2)
}

/// How sample query results are ordered (`NSSortDescriptor(key: HKSampleSortIdentifierEndDate, …)`).
public enum HKSampleSort: Sendable {
    /// Newest end date first (`HKSampleSortIdentifierEndDate`, ascending: false).
    case endDateDescending
    /// Oldest start first (HealthKit's default).
    case startDateAscending
}

/// `HKObjectQueryNoLimit`.
public let HKObjectQueryNoLimit = 0

/// A HealthKit query (`HKQuery`).
public class HKQuery: @unchecked Sendable {
    public let objectType: HKObjectType?
    let predicate: HKSamplePredicate?
    /// Assigned when executed.
    var id: Int?

    init(objectType: HKObjectType?, predicate: HKSamplePredicate?) {
        self.objectType = objectType
        self.predicate = predicate
    }

    /// Samples overlapping `[startDate, endDate]`.
    public static func predicateForSamples(withStart startDate: Date?, end endDate: Date?, options: HKQueryOptions = []) -> HKSamplePredicate {
        HKSamplePredicate(start: startDate, end: endDate, uuids: nil)
    }

    /// The object with this UUID.
    public static func predicateForObject(with uuid: UUID) -> HKSamplePredicate {
        HKSamplePredicate(start: nil, end: nil, uuids: [uuid])
    }
}

/// A long-running query told *that* a type changed (`HKObserverQuery`, R: O2).
public final class HKObserverQuery: HKQuery, @unchecked Sendable {
    let updateHandler: (HKObserverQuery, @escaping HKObserverQueryCompletionHandler, Error?) -> Void

    public init(sampleType: HKSampleType, predicate: HKSamplePredicate?,
                updateHandler: @escaping (HKObserverQuery, @escaping HKObserverQueryCompletionHandler, Error?) -> Void) {
        self.updateHandler = updateHandler
        super.init(objectType: sampleType, predicate: predicate)
    }
}

/// Samples of a type (`HKSampleQuery`).
public final class HKSampleQuery: HKQuery, @unchecked Sendable {
    let limit: Int
    let sort: HKSampleSort
    let resultsHandler: (HKSampleQuery, [HKSample]?, Error?) -> Void

    public init(sampleType: HKSampleType, predicate: HKSamplePredicate?, limit: Int, sortDescriptors: [HKSampleSort]?,
                resultsHandler: @escaping (HKSampleQuery, [HKSample]?, Error?) -> Void) {
        self.limit = limit
        sort = sortDescriptors?.first ?? .startDateAscending
        self.resultsHandler = resultsHandler
        super.init(objectType: sampleType, predicate: predicate)
    }

    var spec: QuerySpec {
        .samples(objectType!.core, from: predicate?.start?.instant, to: predicate?.end?.instant, uuids: predicate?.uuids,
                 newestFirst: sort == .endDateDescending, limit: limit == HKObjectQueryNoLimit ? nil : limit)
    }
}

/// What changed since an anchor: added samples, deleted objects, a new anchor (`HKAnchoredObjectQuery`).
public final class HKAnchoredObjectQuery: HKQuery, @unchecked Sendable {
    let anchor: HKQueryAnchor?
    let resultsHandler: (HKAnchoredObjectQuery, [HKSample]?, [HKDeletedObject]?, HKQueryAnchor?, Error?) -> Void

    /// PairSim returns everything since the anchor (`limit` must be `HKObjectQueryNoLimit`).
    public init(type: HKSampleType, predicate: HKSamplePredicate?, anchor: HKQueryAnchor?, limit: Int,
                resultsHandler: @escaping (HKAnchoredObjectQuery, [HKSample]?, [HKDeletedObject]?, HKQueryAnchor?, Error?) -> Void) {
        precondition(limit == HKObjectQueryNoLimit, "PairSimKit: HKAnchoredObjectQuery supports HKObjectQueryNoLimit only")
        self.anchor = anchor
        self.resultsHandler = resultsHandler
        super.init(objectType: type, predicate: predicate)
    }
}

/// A HealthKit error (`HKError`).
public struct HKError: Error, Hashable, CustomStringConvertible, Sendable {
    /// `HKError.Code` by name.
    public enum Code: String, Sendable {
        case errorDatabaseInaccessible, errorAuthorizationDenied, errorInvalidArgument, errorNoData
    }
    public let code: Code
    public let message: String

    init(_ name: String) {
        code = Code(rawValue: name) ?? .errorInvalidArgument
        message = name
    }

    public var description: String {
        code == .errorDatabaseInaccessible ? "HealthKit data is unavailable (device locked)" : message
    }
}

extension QueryResult {
    /// Samples and workouts as public objects, or the error.
    var objects: Result<[HKSample], HKError> {
        switch self {
        case .objects(let samples, let workouts), .anchored(let samples, let workouts, _, _):
            return .success(workouts.map { HKWorkout(core: $0) } + samples.map { HKSample.of($0) })
        case .failed(let name):
            return .failure(HKError(name))
        }
    }
}
