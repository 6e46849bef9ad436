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
        for row in try Row.fetchAll(db, sql: "SELECT anchor, json FROM workouts ORDER BY anchor, uuid") {
            let object = try object(row["json"], "workouts.json")
            state.workouts.append((try Workout(reading: FieldReader(object, path: "workout")), row["anchor"]))
        }
        for row in try Row.fetchAll(db, sql: "SELECT json FROM records ORDER BY id") {
            state.records.append(try ExerciseRecord(reading: FieldReader(try object(row["json"], "records.json"), path: "record")))
        }
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
        for row in try Row.fetchAll(db, sql: "SELECT key, value FROM kv") {
            state.values[row["key"]] = try JSONParser().parse(row["value"] as String)
        }
        return state
    }

    static func uuid(_ text: String, _ column: String) throws -> UUID {
        guard let uuid = UUID(text: text) else { throw RuntimeError("\(column): invalid UUID \(text)") }
        return uuid
    }

    static func object(_ text: String, _ column: String) throws -> JSONObject {
        guard let object = try JSONParser().parse(text).objectValue else { throw RuntimeError("\(column): expected a JSON object") }
        return object
    }
}
