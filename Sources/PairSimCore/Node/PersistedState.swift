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
    public var values = NodeValues()

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
        var anchor: Int64 = 0
        if case .storeAnchor(let kept)? = values[.storeAnchor] { anchor = kept }
        store.restore(workouts: workouts, samples: samples, tombstones: tombstones, anchor: anchor)
        store.markDeleted(deletedIDs)
        recordStore.restore(records, deleted: deletedRecords)
        if case .sync(let snapshot)? = values[.sync] { sync.restore(snapshot, outbox: outbox, now: now) }
    }
}

extension PersistedState {
    /// How `self` (read back from one storage) differs from `expected` (another's reading of the
    /// same commits): empty when a restarted node would restore the same model from either. A
    /// storage may leave out a small value that is empty (null, 0, false, nothing in it) and read
    /// back nothing for it; any other value missing is a difference.
    public func differences(from expected: PersistedState) -> [String] {
        var found: [String] = []
        func check(_ same: Bool, _ what: String, _ mine: @autoclosure () -> Int, _ theirs: @autoclosure () -> Int) {
            if !same { found.append("\(what) differ (\(mine()) here, \(theirs()) expected)") }
        }
        check(samples.map(\.1) == expected.samples.map(\.1) && samples.map(\.0) == expected.samples.map(\.0), "samples",
              samples.count, expected.samples.count)
        check(workouts.map(\.1) == expected.workouts.map(\.1) && workouts.map(\.0) == expected.workouts.map(\.0), "workouts",
              workouts.count, expected.workouts.count)
        check(tombstones == expected.tombstones, "tombstones", tombstones.count, expected.tombstones.count)
        check(deletedIDs == expected.deletedIDs, "deleted ids", deletedIDs.count, expected.deletedIDs.count)
        check(records == expected.records, "records", records.count, expected.records.count)
        check(deletedRecords == expected.deletedRecords, "deleted records", deletedRecords.count, expected.deletedRecords.count)
        for channel in Channel.allCases {
            let mine = outbox[channel] ?? [], theirs = expected.outbox[channel] ?? []
            check(mine == theirs, "\(channel.rawValue) outbox messages", mine.count, theirs.count)
        }
        check(held == expected.held, "objects held while locked", held.workouts.count + held.samples.count + held.deleted.count,
              expected.held.workouts.count + expected.held.samples.count + expected.held.deleted.count)
        check(waiting == expected.waiting, "records waiting in the container", waiting.saved.count + waiting.deleted.count,
              expected.waiting.saved.count + expected.waiting.deleted.count)
        for value in values where expected.values[value.key] != value {
            found.append("value \(value.key.name) differs: \(String(JSONWriter.string(value.json).prefix(120))) here, "
                         + "\(expected.values[value.key].map { String(JSONWriter.string($0.json).prefix(120)) } ?? "none") expected")
        }
        for value in expected.values where values[value.key] == nil && !value.isEmpty {
            found.append("value \(value.key.name) is missing: \(String(JSONWriter.string(value.json).prefix(120))) expected")
        }
        return found
    }
}
