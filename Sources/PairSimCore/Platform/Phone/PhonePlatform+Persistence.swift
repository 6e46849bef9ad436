import Foundation

/// What the phone keeps across restarts beyond its stores, outbox, held objects and CloudKit
/// container (persisted change by change through `PersistOp`): the app's process state, the
/// HealthKit daemon's delivery state, and the app's user defaults.
extension PhonePlatform {
    public func persistentValues() -> [String: JSON] { values(.all) }

    /// The values that may have changed since this last ran (R: K1): building and comparing all of
    /// them was ~30 µs of the phone's one-sample turn, before its acknowledgement could leave.
    public mutating func changedValues() -> [String: JSON] {
        defer { touched = [] }
        return values(touched.union([.store, .sync, .wc]))
    }

    func values(_ keys: PhoneValues) -> [String: JSON] {
        var values: [String: JSON] = [:]
        if keys.contains(.store) { values["store.anchor"] = .int(store.anchor) }
        if keys.contains(.sync) { values["sync"] = sync.json }
        if keys.contains(.app) {
            values["phone.app"] = .object([
                "state": .string(app.rawValue), "locked": .bool(locked), "frontmostAtLock": .bool(frontmostAtLock),
                "backgroundSince": backgroundSince.map { .int($0.milliseconds) } ?? .null,
                "denied": .array(denied.sorted().map { .string($0.name) }),
            ])
        }
        if keys.contains(.delivery) { values["phone.delivery"] = delivery.json }
        if keys.contains(.defaults) { values["phone.defaults"] = .object(defaults) }
        if keys.contains(.saveFailures) { values["phone.saveFailures"] = .int(Int64(saveFailures)) }
        if keys.contains(.missCompletions) {
            var missesJSON = JSONObject()
            for type in ObjectType.all where missCompletions[type] != nil { missesJSON.append(type.name, .int(Int64(missCompletions[type]!))) }
            values["phone.missCompletions"] = .object(missesJSON)
        }
        if keys.contains(.deferred) { values["phone.deferred"] = .array(deferredUntilUnlock.map { .string($0.name) }) }
        if keys.contains(.uuids) { values["phone.uuids"] = .int(Int64(bitPattern: uuids.random.state)) }
        if keys.contains(.export) { values["cloudkit.export"] = exporter.json }
        if keys.contains(.wc) { values["wc"] = wc.json }
        if keys.contains(.clock) { values["phone.clock"] = time.clock.json }
        return values
    }

    public mutating func restore(_ state: PersistedState, now: EmulatedInstant) throws(DecodeError) {
        try state.restore(store: &store, records: &records, sync: &sync, now: now)
        let values = state.values
        restored = !state.isEmpty
        if let appState = values["phone.app"] {
            app = appState["state"]?.stringValue.flatMap(AppState.init(rawValue:)) ?? app
            locked = appState["locked"]?.boolValue ?? false
            frontmostAtLock = appState["frontmostAtLock"]?.boolValue ?? false
            backgroundSince = appState["backgroundSince"]?.intValue.map(EmulatedInstant.init(milliseconds:))
            denied = Set((appState["denied"]?.arrayValue ?? []).compactMap { $0.stringValue.flatMap(ObjectType.init(name:)) })
        }
        if let json = values["phone.delivery"] { delivery.restore(json: json) }
        defaults = values["phone.defaults"]?.objectValue ?? JSONObject()
        if let count = values["phone.saveFailures"]?.intValue { saveFailures = Int(count) }
        for member in values["phone.missCompletions"]?.objectValue?.members ?? [] {
            if let type = ObjectType(name: member.key), let count = member.value.intValue { missCompletions[type] = Int(count) }
        }
        lockBuffer = state.held
        deferredUntilUnlock = (values["phone.deferred"]?.arrayValue ?? []).compactMap { $0.stringValue.flatMap(ObjectType.init(name:)) }
        container = state.waiting
        if let json = values["wc"] { try wc.restore(json: json) }
        if let state = values["phone.uuids"]?.intValue { uuids.random.state = UInt64(bitPattern: state) }
        if let export = values["cloudkit.export"] { try exporter.restore(export) }
        if let clock = values["phone.clock"] { time.restore(try DeviceClock(json: clock, path: "phone.clock"), now: now) }
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
