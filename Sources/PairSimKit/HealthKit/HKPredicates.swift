import Foundation
internal import PairSimCore

/// HealthKit's predicates are `NSPredicate`s (R: A13): `HKQuery.predicateForSamples(withStart:end:options:)`
/// and its siblings return one, apps combine them with `NSCompoundPredicate`, and every query
/// takes one. PairSim's are subclasses that know what they ask for, so a query can hand the
/// platform the date window and UUIDs it may narrow its search to, and evaluate the rest itself.
/// A predicate of the app's own (`NSPredicate(block:)`) is evaluated on each object.
class HKObjectPredicate: NSPredicate {
    init() { super.init(value: true) }

    required init?(coder: NSCoder) { nil }

    /// True when `object` satisfies the predicate.
    func matches(_ object: HKObject) -> Bool { true }

    override func evaluate(with object: Any?) -> Bool { (object as? HKObject).map(matches) ?? false }
    override func evaluate(with object: Any?, substitutionVariables bindings: [String: Any]?) -> Bool { evaluate(with: object) }
}

/// `predicateForSamples(withStart:end:options:)`: no options, samples that overlap the interval;
/// `.strictStartDate`, starting in it; `.strictEndDate`, ending in it (HealthKit's reading).
final class HKDateRangePredicate: HKObjectPredicate {
    let start: Date?
    let end: Date?
    let options: HKQueryOptions

    init(start: Date?, end: Date?, options: HKQueryOptions) {
        self.start = start
        self.end = end
        self.options = options
        super.init()
    }

    required init?(coder: NSCoder) { nil }

    override func matches(_ object: HKObject) -> Bool {
        guard let sample = object as? HKSample else { return false }
        if options.contains(.strictStartDate) {
            if let start, sample.startDate < start { return false }
            if let end, sample.startDate >= end { return false }
        }
        if options.contains(.strictEndDate) {
            if let start, sample.endDate < start { return false }
            if let end, sample.endDate > end { return false }
        }
        if !options.contains(.strictStartDate) && !options.contains(.strictEndDate) {
            if let start, sample.endDate < start { return false }
            if let end, sample.startDate > end { return false }
        }
        return true
    }

    override var predicateFormat: String {
        let bounds = [start.map { "endDate >= \($0)" }, end.map { "startDate <= \($0)" }].compactMap { $0 }
        return bounds.isEmpty ? "TRUEPREDICATE" : bounds.joined(separator: " AND ") + (options.isEmpty ? "" : " (options \(options.rawValue))")
    }
}

/// `predicateForObject(with:)` and `predicateForObjects(with:)`.
final class HKUUIDPredicate: HKObjectPredicate {
    let uuids: Set<UUID>

    init(uuids: Set<UUID>) {
        self.uuids = uuids
        super.init()
    }

    required init?(coder: NSCoder) { nil }

    override func matches(_ object: HKObject) -> Bool { uuids.contains(object.uuid) }
    override var predicateFormat: String { "UUID IN {\(uuids.map(\.uuidString).sorted().joined(separator: ", "))}" }
}

/// `predicateForObjects(from:)` for one source or several.
final class HKSourcePredicate: HKObjectPredicate {
    let sources: Set<HKSource>

    init(sources: Set<HKSource>) {
        self.sources = sources
        super.init()
    }

    required init?(coder: NSCoder) { nil }

    override func matches(_ object: HKObject) -> Bool { sources.contains(object.sourceRevision.source) }
    override var predicateFormat: String { "source IN {\(sources.map(\.name).sorted().joined(separator: ", "))}" }
}

/// `predicateForObjects(withMetadataKey:)`, and with `allowedValues`.
final class HKMetadataPredicate: HKObjectPredicate {
    let key: String
    let allowed: [String]?

    init(key: String, allowed: [String]?) {
        self.key = key
        self.allowed = allowed
        super.init()
    }

    required init?(coder: NSCoder) { nil }

    override func matches(_ object: HKObject) -> Bool {
        guard let value = object.metadata?[key] else { return false }
        guard let allowed else { return true }
        return allowed.contains(String(describing: value))
    }

    override var predicateFormat: String { allowed.map { "metadata.\(key) IN \($0)" } ?? "metadata.\(key) != nil" }
}

/// `predicateForWorkouts(with:)`.
final class HKWorkoutActivityPredicate: HKObjectPredicate {
    let activityType: HKWorkoutActivityType

    init(activityType: HKWorkoutActivityType) {
        self.activityType = activityType
        super.init()
    }

    required init?(coder: NSCoder) { nil }

    override func matches(_ object: HKObject) -> Bool { (object as? HKWorkout)?.workoutActivityType == activityType }
    override var predicateFormat: String { "workoutActivityType == \(activityType.rawValue)" }
}

extension HKQuery {
    /// Samples in the interval: overlapping it, or with `.strictStartDate` / `.strictEndDate`
    /// starting or ending in it.
    public static func predicateForSamples(withStart startDate: Date?, end endDate: Date?, options: HKQueryOptions = []) -> NSPredicate {
        HKDateRangePredicate(start: startDate, end: endDate, options: options)
    }

    /// The object with this UUID.
    public static func predicateForObject(with objectUUID: UUID) -> NSPredicate { HKUUIDPredicate(uuids: [objectUUID]) }

    /// The objects with these UUIDs.
    public static func predicateForObjects(with objectUUIDs: Set<UUID>) -> NSPredicate { HKUUIDPredicate(uuids: objectUUIDs) }

    /// Objects saved by this source.
    public static func predicateForObjects(from source: HKSource) -> NSPredicate { HKSourcePredicate(sources: [source]) }

    /// Objects saved by any of these sources.
    public static func predicateForObjects(from sources: Set<HKSource>) -> NSPredicate { HKSourcePredicate(sources: sources) }

    /// Objects whose metadata has this key.
    public static func predicateForObjects(withMetadataKey key: String) -> NSPredicate { HKMetadataPredicate(key: key, allowed: nil) }

    /// Objects whose metadata has this key with one of these values.
    public static func predicateForObjects(withMetadataKey key: String, allowedValues: [Any]) -> NSPredicate {
        HKMetadataPredicate(key: key, allowed: allowedValues.map { String(describing: $0) })
    }

    /// Workouts of this activity type.
    public static func predicateForWorkouts(with workoutActivityType: HKWorkoutActivityType) -> NSPredicate {
        HKWorkoutActivityPredicate(activityType: workoutActivityType)
    }
}

/// `predicateForQuantitySamples(with:quantity:)`: quantity samples compared with a quantity.
final class HKQuantityPredicate: HKObjectPredicate {
    let comparison: NSComparisonPredicate.Operator
    let quantity: HKQuantity

    init(comparison: NSComparisonPredicate.Operator, quantity: HKQuantity) {
        self.comparison = comparison
        self.quantity = quantity
        super.init()
    }

    required init?(coder: NSCoder) { nil }

    override func matches(_ object: HKObject) -> Bool {
        guard let sample = object as? HKQuantitySample, sample.quantity.is(compatibleWith: quantity.unit) else { return false }
        let order = sample.quantity.compare(quantity)
        switch comparison {
        case .lessThan: return order == .orderedAscending
        case .lessThanOrEqualTo: return order != .orderedDescending
        case .greaterThan: return order == .orderedDescending
        case .greaterThanOrEqualTo: return order != .orderedAscending
        case .equalTo: return order == .orderedSame
        case .notEqualTo: return order != .orderedSame
        default: return false
        }
    }

    override var predicateFormat: String { "quantity \(comparison.rawValue) \(quantity)" }
}

extension HKQuery {
    /// Quantity samples whose quantity compares with `quantity` as `operatorType` says.
    public static func predicateForQuantitySamples(with operatorType: NSComparisonPredicate.Operator, quantity: HKQuantity) -> NSPredicate {
        HKQuantityPredicate(comparison: operatorType, quantity: quantity)
    }
}

/// What a query may ask the platform for, read off its predicate: the date window and UUIDs
/// every match lies within (nil: no narrowing), and whether the platform's own filter is the
/// whole predicate (then its limit and order can be the platform's too).
struct PredicatePlan {
    var from: Date?
    var to: Date?
    var uuids: Set<UUID>?
    /// The platform's filter says everything the predicate does.
    var exact: Bool

    init(_ predicate: NSPredicate?) {
        self.init(from: nil, to: nil, uuids: nil, exact: true)
        guard let predicate else { return }
        exact = false
        narrow(by: predicate, top: true)
    }

    private init(from: Date?, to: Date?, uuids: Set<UUID>?, exact: Bool) {
        self.from = from
        self.to = to
        self.uuids = uuids
        self.exact = exact
    }

    private mutating func narrow(by predicate: NSPredicate, top: Bool) {
        switch predicate {
        case let range as HKDateRangePredicate:
            if let start = range.start { from = max(from ?? start, start) }
            if let end = range.end { to = min(to ?? end, end) }
            exact = top && range.options.isEmpty
        case let ids as HKUUIDPredicate:
            uuids = uuids.map { $0.intersection(ids.uuids) } ?? ids.uuids
            exact = top
        case let compound as NSCompoundPredicate where compound.compoundPredicateType == .and:
            // Every conjunct holds for a match: each may narrow the search.
            for inner in compound.subpredicates { narrow(by: inner, top: false) }
        default:
            break
        }
    }

    /// The objects among `objects` the predicate accepts.
    static func filter<Object: HKObject>(_ objects: [Object], by predicate: NSPredicate?) -> [Object] {
        guard let predicate else { return objects }
        return objects.filter { predicate.evaluate(with: $0) }
    }
}
