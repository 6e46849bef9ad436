import Foundation

/// What the phone keeps across restarts beyond its stores, outbox, held objects and CloudKit
/// container (persisted change by change through `PersistOp`): the app's process state, the
/// HealthKit daemon's delivery state, and the app's user defaults.
extension PhonePlatform {
    public func persistentValues() -> NodeValues { values(.all) }

    /// The values that may have changed since this last ran (R: K1): building and comparing all of
    /// them was ~30 µs of the phone's one-sample turn, before its acknowledgement could leave.
    public mutating func changedValues() -> NodeValues {
        defer { touched = [] }
        return values(touched.union([.store, .sync, .wc]))
    }

    func values(_ keys: PhoneValues) -> NodeValues {
        var values = NodeValues()
        if keys.contains(.store) { values.insert(.storeAnchor(store.anchor)) }
        if keys.contains(.sync) { values.insert(.sync(sync.snapshot)) }
        if keys.contains(.app) {
            values.insert(.phoneApp(PhoneAppSnapshot(state: app, locked: locked, frontmostAtLock: frontmostAtLock,
                                                     backgroundSince: backgroundSince, denied: denied.sorted())))
        }
        if keys.contains(.delivery) { values.insert(.phoneDelivery(delivery.snapshot)) }
        if keys.contains(.defaults) { values.insert(.phoneDefaults(defaults)) }
        if keys.contains(.saveFailures) { values.insert(.phoneSaveFailures(Int64(saveFailures))) }
        if keys.contains(.missCompletions) { values.insert(.phoneMissCompletions(missCompletions)) }
        if keys.contains(.deferred) { values.insert(.phoneDeferred(deferredUntilUnlock)) }
        if keys.contains(.uuids) { values.insert(.phoneUUIDs(uuids.random.state)) }
        if keys.contains(.export) { values.insert(.cloudKitExport(exporter.snapshot)) }
        if keys.contains(.wc) { values.insert(.watchConnectivity(wc.snapshot)) }
        if keys.contains(.clock) { values.insert(.phoneClock(time.clock)) }
        return values
    }

    public mutating func restore(_ state: PersistedState, now: EmulatedInstant) throws(DecodeError) {
        try state.restore(store: &store, records: &records, sync: &sync, now: now)
        restored = !state.isEmpty
        lockBuffer = state.held
        container = state.waiting
        for value in state.values {
            switch value {
            case .storeAnchor, .sync: break // with the stores, above
            case .watchConnectivity(let snapshot): wc.restore(snapshot)
            case .cloudKitExport(let snapshot): exporter.restore(snapshot)
            case .phoneApp(let snapshot):
                app = snapshot.state
                locked = snapshot.locked
                frontmostAtLock = snapshot.frontmostAtLock
                backgroundSince = snapshot.backgroundSince
                denied = Set(snapshot.denied)
            case .phoneDelivery(let snapshot): delivery.restore(snapshot)
            case .phoneDefaults(let kept): defaults = kept
            case .phoneSaveFailures(let count): saveFailures = Int(count)
            case .phoneMissCompletions(let misses): missCompletions = misses
            case .phoneDeferred(let types): deferredUntilUnlock = types
            case .phoneUUIDs(let random): uuids.random.state = random
            case .phoneClock(let clock): time.restore(clock, now: now)
            case .watchHostedWorkout, .watchHostedSessions, .watchRestingCount, .watchNextRestingAt,
                 .watchFailNextFinish, .watchAppDefaults, .watchClock, .watchPartitions, .watchUUIDs, .watchPlan, .watchBulk, .watchImport:
                throw DecodeError(path: value.key.name, reason: "a watch's value in the phone's state")
            }
        }
    }
}

/// The phone app's process state as a restart keeps it (R: L1, K7).
public struct PhoneAppSnapshot: Hashable, Sendable {
    public var state: AppState
    public var locked: Bool
    public var frontmostAtLock: Bool
    public var backgroundSince: EmulatedInstant?
    /// The types the user denied the app, in order.
    public var denied: [ObjectType]

    public init(state: AppState, locked: Bool, frontmostAtLock: Bool, backgroundSince: EmulatedInstant?, denied: [ObjectType]) {
        self.state = state
        self.locked = locked
        self.frontmostAtLock = frontmostAtLock
        self.backgroundSince = backgroundSince
        self.denied = denied
    }

    /// The turn journal's spelling.
    public var json: JSON {
        .object(["state": .string(state.rawValue), "locked": .bool(locked), "frontmostAtLock": .bool(frontmostAtLock),
                 "backgroundSince": backgroundSince.map { .int($0.milliseconds) } ?? .null, "denied": .array(denied.map { .string($0.name) })])
    }

    public init(json: JSON) throws(DecodeError) {
        guard let object = json.objectValue else { throw DecodeError(path: "phone.app", reason: "expected an object") }
        let reader = FieldReader(object, path: "phone.app")
        let name = try reader.string("state")
        guard let state = AppState(rawValue: name) else { throw DecodeError(path: "phone.app.state", reason: "unknown app state \(name)") }
        var denied: [ObjectType] = []
        for item in try reader.array("denied", limit: ObjectType.all.count) {
            guard let type = item.stringValue.flatMap(ObjectType.init(name:)) else { throw DecodeError(path: "phone.app.denied", reason: "not a type") }
            denied.append(type)
        }
        self.init(state: state, locked: try reader.bool("locked"), frontmostAtLock: try reader.bool("frontmostAtLock"),
                  backgroundSince: reader.has("backgroundSince") ? try reader.instant("backgroundSince") : nil, denied: denied)
    }
}

/// The phone's persistent values, by the properties they are made from.
struct PhoneValues: OptionSet, Sendable {
    let rawValue: UInt16
    static let store = PhoneValues(rawValue: 1 << 0)
    static let sync = PhoneValues(rawValue: 1 << 1)
    static let app = PhoneValues(rawValue: 1 << 2)
    static let delivery = PhoneValues(rawValue: 1 << 3)
    static let defaults = PhoneValues(rawValue: 1 << 4)
    static let saveFailures = PhoneValues(rawValue: 1 << 5)
    static let missCompletions = PhoneValues(rawValue: 1 << 6)
    static let deferred = PhoneValues(rawValue: 1 << 7)
    static let uuids = PhoneValues(rawValue: 1 << 8)
    static let export = PhoneValues(rawValue: 1 << 9)
    static let wc = PhoneValues(rawValue: 1 << 10)
    static let clock = PhoneValues(rawValue: 1 << 11)
    static let all = PhoneValues(rawValue: (1 << 12) - 1)
}
