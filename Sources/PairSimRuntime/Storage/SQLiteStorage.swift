import Foundation
import GRDB
import PairSimCore

/// A node's durable state in one SQLite database (`<data>/state.sqlite`, WAL): HealthKit store,
/// records, outbox, and the model's small values. Heart-rate samples are stored in packed batches,
/// which is what makes a million samples a second durable.
final class SQLiteStorage: NodeStorage {
    let queue: DatabaseQueue
    let path: String

    init(path: String) throws {
        self.path = path
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
            try Self.migrator.migrate(queue)
        } catch {
            throw RuntimeError("cannot open the node database \(path): \(error)")
        }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE sample_batches (id INTEGER PRIMARY KEY, anchor INTEGER NOT NULL, data BLOB NOT NULL);
                CREATE TABLE workouts (uuid TEXT PRIMARY KEY, anchor INTEGER NOT NULL, json TEXT NOT NULL);
                CREATE TABLE deleted_objects (uuid TEXT PRIMARY KEY, type TEXT NOT NULL, anchor INTEGER NOT NULL,
                                              deleted_at INTEGER NOT NULL, purged INTEGER NOT NULL DEFAULT 0);
                CREATE TABLE records (id TEXT PRIMARY KEY, json TEXT NOT NULL);
                CREATE TABLE deleted_records (id TEXT PRIMARY KEY);
                CREATE TABLE outbox (channel TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, topic TEXT NOT NULL,
                                     payload BLOB NOT NULL, created_at INTEGER NOT NULL, summary TEXT NOT NULL,
                                     PRIMARY KEY (channel, seq));
                CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                """)
        }
        return migrator
    }

    // MARK: Commit

    func commit(_ operations: [PersistOp], values: [String: JSON]) throws {
        try queue.write { db in
            for operation in operations { try apply(operation, db) }
            if !values.isEmpty {
                let statement = try db.cachedStatement(sql: "INSERT OR REPLACE INTO kv (key, value) VALUES (?, ?)")
                for key in values.keys.sorted() {
                    try statement.execute(arguments: [key, JSONWriter.string(values[key]!)])
                }
            }
        }
    }

    func apply(_ operation: PersistOp, _ db: Database) throws {
        switch operation {
        case .putSamples(let samples, let anchor):
            try db.cachedStatement(sql: "INSERT INTO sample_batches (anchor, data) VALUES (?, ?)")
                .execute(arguments: [anchor, Data(SampleCodec.pack(samples))])
        case .putWorkouts(let workouts, let anchor):
            let statement = try db.cachedStatement(sql: "INSERT OR REPLACE INTO workouts (uuid, anchor, json) VALUES (?, ?, ?)")
            for workout in workouts {
                try statement.execute(arguments: [workout.uuid.text, anchor, JSONWriter.string(workout.json)])
            }
        case .deleteObjects(let objects, let anchor, let at):
            let insert = try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO deleted_objects (uuid, type, anchor, deleted_at, purged) VALUES (?, ?, ?, ?, 0)
                """)
            let removeWorkout = try db.cachedStatement(sql: "DELETE FROM workouts WHERE uuid = ?")
            for object in objects {
                try insert.execute(arguments: [object.uuid.text, object.type.name, anchor, at.milliseconds])
                if object.type == .workout { try removeWorkout.execute(arguments: [object.uuid.text]) }
            }
        case .blockIDs(let ids):
            let statement = try db.cachedStatement(sql: """
                INSERT OR IGNORE INTO deleted_objects (uuid, type, anchor, deleted_at, purged) VALUES (?, 'unknown', 0, 0, 1)
                """)
            for id in ids { try statement.execute(arguments: [id.text]) }
        case .purgeTombstones(let anchor):
            try db.execute(sql: "UPDATE deleted_objects SET purged = 1 WHERE anchor <= ?", arguments: [anchor])
        case .putRecords(let records):
            let statement = try db.cachedStatement(sql: "INSERT OR REPLACE INTO records (id, json) VALUES (?, ?)")
            for record in records { try statement.execute(arguments: [record.id.text, JSONWriter.string(record.json)]) }
        case .deleteRecords(let ids):
            for id in ids {
                try db.execute(sql: "DELETE FROM records WHERE id = ?", arguments: [id.text])
                try db.execute(sql: "INSERT OR IGNORE INTO deleted_records (id) VALUES (?)", arguments: [id.text])
            }
        case .outboxPut(let channel, let record):
            try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO outbox (channel, seq, kind, topic, payload, created_at, summary) VALUES (?, ?, ?, ?, ?, ?, ?)
                """).execute(arguments: [channel.rawValue, Int64(record.seq), record.kind.rawValue, record.frame.topic,
                                         Data(record.frame.payload), record.createdAt.milliseconds,
                                         JSONWriter.string(.object(record.summary))])
        case .outboxRemove(let channel, let seqs):
            let statement = try db.cachedStatement(sql: "DELETE FROM outbox WHERE channel = ? AND seq = ?")
            for seq in seqs { try statement.execute(arguments: [channel.rawValue, Int64(seq)]) }
        }
    }
}
