import Foundation

/// Everything a node persisted, handed back to its model at restart.
public struct PersistedState: Sendable {
    public var samples: [(HealthSample, Int64)] = []
    public var workouts: [(Workout, Int64)] = []
    /// Tombstones still within retention.
    public var tombstones: [HealthStore.Tombstone] = []
    /// UUIDs deleted at any time (tombstones purged or not).
    public var deletedIDs: [UUID] = []
    public var records: [ExerciseRecord] = []
    public var deletedRecords: [UUID] = []
    public var outbox: [Channel: [OutboxRecord]] = [:]
    /// Objects a locked phone holds until unlock.
    public var held = HealthObjectsBatch()
    /// Record changes waiting in the phone's CloudKit container until the app runs.
    public var waiting = RecordsBatch()
    /// The model's small state, as returned by `persistentValues()`.
    public var values: [String: JSON] = [:]

    public init() {}

    /// True when nothing was persisted (a first start).
    public var isEmpty: Bool {
        samples.isEmpty && workouts.isEmpty && records.isEmpty && outbox.values.allSatisfy(\.isEmpty) && values.isEmpty
            && held.isEmpty && waiting.isEmpty
    }
}

/// Restoring the stores and sync state every node model shares.
extension PersistedState {
    func restore(store: inout HealthStore, records recordStore: inout RecordStore, sync: inout SyncEngine,
                 now: EmulatedInstant) throws(DecodeError) {
        store.restore(workouts: workouts, samples: samples, tombstones: tombstones,
                      anchor: values["store.anchor"]?.intValue ?? 0)
        store.markDeleted(deletedIDs)
        recordStore.restore(records, deleted: deletedRecords)
        if let syncState = values["sync"] { try sync.restore(json: syncState, outbox: outbox, now: now) }
    }
}
