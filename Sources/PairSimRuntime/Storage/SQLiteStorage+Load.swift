import Foundation
import GRDB
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
        for row in try Row.fetchAll(db, sql: "SELECT uuid, type, anchor, deleted_at, purged FROM deleted_objects ORDER BY anchor") {
            let uuid = try uuid(row["uuid"], "deleted_objects.uuid")
            deleted.insert(uuid)
            state.deletedIDs.append(uuid)
            if (row["purged"] as Int64) == 0, let type = ObjectType(name: row["type"]) {
                state.tombstones.append(HealthStore.Tombstone(object: DeletedObject(uuid: uuid, type: type), anchor: row["anchor"],
                                                              deletedAt: EmulatedInstant(milliseconds: row["deleted_at"])))
            }
        }
        let batches = try Row.fetchCursor(db, sql: "SELECT anchor, data FROM sample_batches ORDER BY id")
        while let row = try batches.next() {
            let anchor: Int64 = row["anchor"]
            let data: Data = row["data"]
            for sample in try SampleCodec.unpack(Array(data)) where !deleted.contains(sample.uuid) {
                state.samples.append((sample, anchor))
            }
        }
        for row in try WorkoutRow.order(Column("anchor"), Column("uuid")).fetchAll(db) {
            state.workouts.append((try row.workout("workouts"), row.anchor))
        }
        state.records = try RecordRow.order(Column("id")).fetchAll(db).map { try $0.record("records") }
        state.deletedRecords = try String.fetchAll(db, sql: "SELECT id FROM deleted_records").map { try uuid($0, "deleted_records.id") }
        for row in try Row.fetchAll(db, sql: "SELECT channel, seq, kind, topic, payload, created_at, summary FROM outbox ORDER BY channel, seq") {
            guard let channel = Channel(rawValue: row["channel"]), let kind = MessageKind(rawValue: row["kind"]) else {
                throw RuntimeError("outbox row with unknown channel or kind")
            }
            let payload: Data = row["payload"]
            state.outbox[channel, default: []].append(OutboxRecord(
                seq: UInt64(row["seq"] as Int64), kind: kind, frame: WireFrame(topic: row["topic"], payload: Array(payload)),
                createdAt: EmulatedInstant(milliseconds: row["created_at"]), summary: try object(row["summary"], "outbox.summary")))
        }
        state.held.workouts = try HeldWorkoutRow.order(Column("seq")).fetchAll(db).map { try $0.workout("held_workouts") }
        for data in try Data.fetchAll(db, sql: "SELECT data FROM held_sample_batches ORDER BY seq") {
            state.held.samples += try SampleCodec.unpack(Array(data))
        }
        for row in try Row.fetchAll(db, sql: "SELECT uuid, type FROM held_deletions ORDER BY seq") {
            guard let type = ObjectType(name: row["type"]) else { throw RuntimeError("held_deletions.type: unknown type \(row["type"] as String)") }
            state.held.deleted.append(DeletedObject(uuid: try uuid(row["uuid"], "held_deletions.uuid"), type: type))
        }
        state.waiting.saved = try WaitingRecordRow.order(Column("seq")).fetchAll(db).map { try $0.record("waiting_records") }
        state.waiting.deleted = try String.fetchAll(db, sql: "SELECT id FROM waiting_deletions ORDER BY seq").map { try uuid($0, "waiting_deletions.id") }
        for row in try Row.fetchAll(db, sql: "SELECT key, value FROM kv") {
            state.values[row["key"]] = try JSONParser().parse(row["value"] as String)
        }
        return state
    }

    static func uuid(_ text: String, _ column: String) throws -> UUID {
        guard let uuid = UUID(text: text) else { throw RuntimeError("\(column): invalid UUID \(text)") }
        return uuid
    }
}
