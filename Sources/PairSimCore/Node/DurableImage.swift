import Foundation

/// What a node has made durable, kept in memory: the simulator's storage. It takes each turn's
/// commit exactly as the SQLite storage does (the same `PersistOp`s and changed values) and gives
/// back the same `PersistedState`, so a node killed in simulation loses exactly what a kill -9
/// loses — everything not committed — and restarts through the same `restore` (R: V1).
/// `SchemaTests`… and `DurableImageTests` check it against the SQLite storage op for op.
public struct DurableImage: Sendable {
    struct Deleted: Sendable {
        var type: ObjectType?
        var anchor: Int64
        var deletedAt: EmulatedInstant
        var purged: Bool
    }

    var samples: [(HealthSample, Int64)] = []
    var workouts: [UUID: (Workout, Int64)] = [:]
    var deleted: [UUID: Deleted] = [:]
    var records: [UUID: ExerciseRecord] = [:]
    var deletedRecords: [UUID] = []
    var outbox: [Channel: [UInt64: OutboxRecord]] = [:]
    var held = HealthObjectsBatch()
    var waiting = RecordsBatch()
    var values = NodeValues()
    /// Commits taken, for reports.
    public private(set) var commits = 0

    public init() {}

    /// Makes a turn durable: its operations, then its changed values (one transaction).
    public mutating func commit(_ operations: [PersistOp], values changed: NodeValues) {
        for operation in operations { apply(operation) }
        values.merge(changed)
        commits += 1
    }

    mutating func apply(_ operation: PersistOp) {
        switch operation {
        case .putSamples(let batch, let anchor):
            for sample in batch { samples.append((sample, anchor)) } // no array of pairs made first
        case .putWorkouts(let batch, let anchor):
            for workout in batch { workouts[workout.uuid] = (workout, anchor) }
        case .deleteObjects(let objects, let anchor, let at):
            for object in objects {
                deleted[object.uuid] = Deleted(type: object.type, anchor: anchor, deletedAt: at, purged: false)
                if object.type == .workout { workouts[object.uuid] = nil }
            }
        case .blockIDs(let ids):
            for id in ids where deleted[id] == nil { deleted[id] = Deleted(type: nil, anchor: 0, deletedAt: .zero, purged: true) }
        case .purgeTombstones(let anchor):
            for (id, entry) in deleted where entry.anchor <= anchor { deleted[id]!.purged = true }
        case .putRecords(let batch):
            for record in batch { records[record.id] = record }
        case .deleteRecords(let ids):
            for id in ids {
                records[id] = nil
                if !deletedRecords.contains(id) { deletedRecords.append(id) }
            }
        case .outboxPut(let channel, let record):
            outbox[channel, default: [:]][record.seq] = record
        case .outboxRemove(let channel, let seqs):
            for seq in seqs { outbox[channel]?[seq] = nil }
        case .hold(let batch):
            held.workouts += batch.workouts
            held.samples += batch.samples
            held.deleted += batch.deleted
        case .releaseHeld:
            held = HealthObjectsBatch()
        case .containerAdd(let batch):
            waiting.saved.removeAll { saved in batch.deleted.contains(saved.id) || batch.saved.contains { $0.id == saved.id } }
            waiting.saved += batch.saved
            for id in batch.deleted where !waiting.deleted.contains(id) { waiting.deleted.append(id) }
        case .containerClear:
            waiting = RecordsBatch()
        }
    }

    /// Everything committed, as a restarted node reads it back.
    public func load() -> PersistedState {
        var state = PersistedState()
        let tombstones = deleted.sorted { ($0.value.anchor, $0.key.text) < ($1.value.anchor, $1.key.text) }
        for (id, entry) in tombstones {
            state.deletedIDs.append(id)
            if !entry.purged, let type = entry.type {
                state.tombstones.append(HealthStore.Tombstone(object: DeletedObject(uuid: id, type: type), anchor: entry.anchor, deletedAt: entry.deletedAt))
            }
        }
        state.samples = samples.filter { deleted[$0.0.uuid] == nil }
        state.workouts = workouts.values.sorted { ($0.1, $0.0.uuid.text) < ($1.1, $1.0.uuid.text) }
        state.records = records.values.sorted { $0.id.text < $1.id.text }
        state.deletedRecords = deletedRecords
        for (channel, messages) in outbox where !messages.isEmpty { state.outbox[channel] = messages.values.sorted { $0.seq < $1.seq } }
        state.held = held
        state.waiting = waiting
        state.values = values
        return state
    }
}
