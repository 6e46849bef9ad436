import Foundation

/// What the phone keeps across restarts beyond its stores, outbox, held objects and CloudKit
/// container (persisted change by change through `PersistOp`): the app's process state, the
/// HealthKit daemon's delivery state, and the app's user defaults.
extension PhonePlatform {
    public func persistentValues() -> [String: JSON] {
        var missesJSON = JSONObject()
        for type in ObjectType.observed where missCompletions[type] != nil { missesJSON.append(type.name, .int(Int64(missCompletions[type]!))) }
        return [
            "store.anchor": .int(store.anchor),
            "sync": sync.json,
            "phone.app": .object([
                "state": .string(app.rawValue), "locked": .bool(locked), "frontmostAtLock": .bool(frontmostAtLock),
                "backgroundSince": backgroundSince.map { .int($0.milliseconds) } ?? .null,
                "denied": .array(denied.sorted().map { .string($0.name) }),
            ]),
            "phone.delivery": delivery.json,
            "phone.defaults": .object(defaults),
            "phone.saveFailures": .int(Int64(saveFailures)),
            "phone.missCompletions": .object(missesJSON),
            "phone.deferred": .array(deferredUntilUnlock.map { .string($0.name) }),
            "phone.uuids": .int(Int64(bitPattern: uuids.random.state)),
            "cloudkit.export": exporter.json,
            "wc": wc.json,
        ]
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
    }
}
