import Foundation
import PairSimCore

extension SQLiteStorage {
    /// Reads everything back for the model's `restore`.
    func load() throws -> PersistedState {
        do {
            return try queue.read { db in try Self.load(db) }
        } catch let error as RuntimeError {
            throw error
        } catch {
            throw RuntimeError("cannot read the node database \(path): \(error)")
        }
    }

    static func load(_ db: Database) throws -> PersistedState {
        var state = PersistedState()
        var deleted = Set<UUID>()
        for row in try Row.fetchAll(db, sql: "SELECT uuid, type, anchor, deleted_at, purged FROM deleted_objects ORDER BY anchor, uuid") {
            let uuid = try uuid(row["uuid"], "deleted_objects.uuid")
            deleted.insert(uuid)
            state.deletedIDs.append(uuid)
            if (row["purged"] as Int64) == 0, let type = ObjectType(name: row["type"]) {
                state.tombstones.append(HealthStore.Tombstone(object: DeletedObject(uuid: uuid, type: type), anchor: row["anchor"],
                                                              deletedAt: EmulatedInstant(milliseconds: row["deleted_at"])))
            }
        }
        var outbox = try OutboxRow.fetchAll(db, sql: "SELECT * FROM outbox ORDER BY channel, seq")
        // Batches an outbox message refers to instead of holding their samples (schema v5).
        var referenced = Dictionary(outbox.compactMap { $0.samplesAnchor.map { ($0, [HealthSample]()) } }) { a, _ in a }
        let batches = try Row.fetchCursor(db, sql: "SELECT anchor, data FROM sample_batches ORDER BY id")
        while let row = try batches.next() {
            let anchor: Int64 = row["anchor"]
            let data: Data = row["data"]
            let samples = try SampleCodec.unpack(Array(data))
            if referenced[anchor] != nil { referenced[anchor]! += samples }
            for sample in samples where !deleted.contains(sample.uuid) {
                state.samples.append((sample, anchor))
            }
        }
        for index in outbox.indices {
            guard let anchor = outbox[index].samplesAnchor else { continue }
            guard let samples = referenced[anchor], !samples.isEmpty else {
                throw RuntimeError("outbox message \(outbox[index].channel)/\(outbox[index].seq) refers to the sample batch with anchor \(anchor), which is not in sample_batches")
            }
            guard outbox[index].samples.map({ Int($0) == samples.count }) ?? true else {
                throw RuntimeError("outbox message \(outbox[index].channel)/\(outbox[index].seq) carried \(outbox[index].samples ?? 0) samples but the sample batch with anchor \(anchor) holds \(samples.count)")
            }
            outbox[index].restoreBody(samples: samples)
        }
        for row in try WorkoutRow.fetchAll(db, sql: "SELECT * FROM workouts ORDER BY anchor, uuid") {
            state.workouts.append((try row.workout("workouts"), row.anchor))
        }
        state.records = try RecordRow.fetchAll(db, sql: "SELECT * FROM records ORDER BY id").map { try $0.record("records") }
        state.deletedRecords = try String.fetchAll(db, sql: "SELECT id FROM deleted_records").map { try uuid($0, "deleted_records.id") }
        for row in outbox {
            let (channel, record) = try row.record()
            state.outbox[channel, default: []].append(record)
        }
        state.held.workouts = try HeldWorkoutRow.fetchAll(db, sql: "SELECT * FROM held_workouts ORDER BY seq").map { try $0.workout("held_workouts") }
        for data in try Data.fetchAll(db, sql: "SELECT data FROM held_sample_batches ORDER BY seq") {
            state.held.samples += try SampleCodec.unpack(Array(data))
        }
        for row in try Row.fetchAll(db, sql: "SELECT uuid, type FROM held_deletions ORDER BY seq") {
            guard let type = ObjectType(name: row["type"]) else { throw RuntimeError("held_deletions.type: unknown type \(row["type"] as String)") }
            state.held.deleted.append(DeletedObject(uuid: try uuid(row["uuid"], "held_deletions.uuid"), type: type))
        }
        state.waiting.saved = try QueuedRecordRow.fetchAll(db, sql: "SELECT * FROM queued_records WHERE queue = ? ORDER BY seq",
                                                         arguments: [QueuedRecordRow.Queue.container.rawValue]).map { try $0.record("queued_records") }
        state.waiting.deleted = try String.fetchAll(db, sql: "SELECT id FROM waiting_deletions ORDER BY seq").map { try uuid($0, "waiting_deletions.id") }
        state.values = try StateTables.read(db)
        return state
    }

    static func uuid(_ text: String, _ column: String) throws -> UUID {
        guard let uuid = UUID(text: text) else { throw RuntimeError("\(column): invalid UUID \(text)") }
        return uuid
    }
}
