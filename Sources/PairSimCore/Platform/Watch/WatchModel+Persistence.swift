/// What the watch keeps across restarts beyond its stores and outbox.
extension WatchModel {
    public func persistentValues() -> [String: JSON] {
        [
            "store.anchor": .int(store.anchor),
            "sync": sync.json,
            "watch.session": session.json,
            "watch.sessionCount": .int(sessionCount),
            "watch.restingCount": .int(restingCount),
            "watch.nextRestingAt": nextRestingAt.map { .int($0.milliseconds) } ?? .null,
            "watch.failNextFinish": .bool(failNextFinish),
            "watch.uuids": .int(Int64(bitPattern: uuids.random.state)),
            "cloudkit.export": exporter.json,
            "watch.plan": plan?.json ?? .null,
            "watch.bulk": bulk?.json ?? .null,
            "watch.import": healthImport?.json ?? .null,
            "wc": wc.json,
        ]
    }

    public mutating func restore(_ state: PersistedState, now: EmulatedInstant) throws(DecodeError) {
        try state.restore(store: &store, records: &records, sync: &sync, now: now)
        let values = state.values
        if let json = values["watch.session"] { session = try WorkoutSession(json: json) }
        sessionCount = values["watch.sessionCount"]?.intValue ?? sessionCount
        restingCount = values["watch.restingCount"]?.intValue ?? restingCount
        nextRestingAt = values["watch.nextRestingAt"]?.intValue.map(EmulatedInstant.init(milliseconds:))
        failNextFinish = values["watch.failNextFinish"]?.boolValue ?? false
        if let state = values["watch.uuids"]?.intValue { uuids.random.state = UInt64(bitPattern: state) }
        if let export = values["cloudkit.export"] { try exporter.restore(export) }
        plan = values["watch.plan"].flatMap(WorkoutPlan.init(json:))
        bulk = values["watch.bulk"].flatMap(BulkWrite.init(json:))
        healthImport = values["watch.import"].flatMap(HealthImportJob.init(json:))
        if let json = values["wc"] { try wc.restore(json: json) }
        restored = !state.isEmpty
    }
}
