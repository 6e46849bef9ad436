/// What the phone keeps across restarts beyond its stores and outbox.
extension PhoneModel {
    public func persistentValues() -> [String: JSON] {
        [
            "store.anchor": .int(store.anchor),
            "sync": sync.json,
        ]
    }

    public mutating func restore(_ state: PersistedState, now: EmulatedInstant) throws(DecodeError) {
        try state.restore(store: &store, records: &records, sync: &sync, now: now)
        restored = !state.isEmpty
    }
}
