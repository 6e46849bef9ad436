import Foundation
import GRDB
import PairSimCore

/// The node database's schema, one migration per version. A database written by an older PairSim
/// is migrated when opened; one written by a newer PairSim is refused, naming its version.
extension SQLiteStorage {
    /// The schema version this build writes.
    static let schemaVersion = "v9"

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        // v1 (wave 1): workouts and records as JSON text; a locked phone's held objects and its
        // CloudKit container as JSON values in `kv`, rewritten whole whenever they changed.
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
        // v2: typed tables only: workouts and records as columns; held objects, the CloudKit
        // container and the export queue in their own tables, written change by change; the models'
        // small state (sync windows, sessions, app state) in tables of their own (R: K1).
        migrator.registerMigration("v2") { db in try migrateToV2(db) }
        // v3: the watch's import-health job, so a killed watch resumes it (R: E1).
        migrator.registerMigration("v3") { db in try StateTables.createImport(db) }
        // v4: each node's WatchConnectivity session: outstanding transfers, deliveries waiting for
        // the app, the application context (R: X1).
        migrator.registerMigration("v4") { db in try StateTables.createWatchConnectivity(db) }
        // v5: an outbox message that carries exactly one stored sample batch keeps the batch's
        // anchor and the frame without its body, not a second copy of the samples (R: E4's speed).
        migrator.registerMigration("v5") { db in
            try db.alter(table: "outbox") { t in t.add(column: "samples_anchor", .integer) }
        }
        // v6: the last turn of the node's turn journal (`turns.journal`) that is in the database,
        // committed with it, so a turn is never applied twice (R: K1).
        migrator.registerMigration("v6") { db in
            try db.execute(sql: """
                CREATE TABLE journal_mark (id INTEGER PRIMARY KEY CHECK (id = 1), turn INTEGER NOT NULL);
                INSERT INTO journal_mark (id, turn) VALUES (1, 0);
                """)
        }
        // v7: a developer's watch app's workout session and its live builder, so it outlives the
        // app's process and the node's (R: A9), and how many sessions the app started.
        migrator.registerMigration("v7") { db in
            try db.execute(sql: """
                CREATE TABLE watch_hosted (id INTEGER PRIMARY KEY CHECK (id = 1), sessions INTEGER NOT NULL);
                INSERT INTO watch_hosted (id, sessions) VALUES (1, 0);
                CREATE TABLE watch_hosted_workout (
                    id INTEGER PRIMARY KEY CHECK (id = 1), number INTEGER NOT NULL, activity TEXT NOT NULL,
                    state INTEGER NOT NULL, active_ms INTEGER NOT NULL, readings INTEGER NOT NULL, samples INTEGER NOT NULL,
                    energy REAL NOT NULL, finished INTEGER NOT NULL, random_state INTEGER NOT NULL, steady REAL NOT NULL,
                    noise REAL NOT NULL, collecting TEXT, collection_start_ms INTEGER, collection_end_ms INTEGER,
                    active_since_ms INTEGER, start_ms INTEGER);
                """)
        }
        // v8: the device's own clock — offset, drift, the instant it was last set, time zone — so
        // a user's set-time or set-time-zone outlives the node (R: F5). `node` is whose it is. And
        // the watch's `out-of-range` / `offline` in force, so a restarted watch stays out of range (R: K9);
        // and whether an import skips invalid records (`import-health --skip-invalid`, R: E5) and how
        // often the watch stopped at one place in it (given up at 3, R: E4).
        migrator.registerMigration("v8") { db in
            try db.execute(sql: """
                CREATE TABLE device_clock (
                    id INTEGER PRIMARY KEY CHECK (id = 1), node TEXT NOT NULL, offset_ms INTEGER NOT NULL,
                    drift_ppm REAL NOT NULL, since_ms INTEGER NOT NULL, time_zone TEXT NOT NULL);
                CREATE TABLE watch_partitions (reason TEXT PRIMARY KEY);
                ALTER TABLE watch_import ADD COLUMN skip_invalid INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE watch_import ADD COLUMN stops INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE watch_import ADD COLUMN stopped_at INTEGER NOT NULL DEFAULT -1;
                """)
        }
        // v9: how far deleted samples were compacted out of their batches (the last deletion
        // anchor), so a start compacts only after new deletions (R: K7).
        migrator.registerMigration("v9") { db in
            try db.execute(sql: "ALTER TABLE node_state ADD COLUMN compacted_through INTEGER NOT NULL DEFAULT 0")
        }
        return migrator
    }

    static func createWorkoutColumns(_ t: TableDefinition) {
        t.column("activity", .text).notNull()
        t.column("start_ms", .integer).notNull()
        t.column("end_ms", .integer).notNull()
        t.column("active_duration_ms", .integer).notNull()
        t.column("active_energy", .double)
        t.column("source", .text).notNull()
    }

    static func createRecordColumns(_ t: TableDefinition) {
        t.column("exercise", .text).notNull()
        t.column("start_ms", .integer).notNull()
        t.column("duration_ms", .integer).notNull()
        t.column("calories", .double)
        t.column("workout_id", .text)
        t.column("source", .text).notNull()
    }

    static func migrateToV2(_ db: Database) throws {
        let oldWorkouts = try Row.fetchAll(db, sql: "SELECT anchor, json FROM workouts").map { row in
            WorkoutRow(try Workout(reading: FieldReader(try object(row["json"], "workouts.json"), path: "workout")), anchor: row["anchor"])
        }
        let oldRecords = try String.fetchAll(db, sql: "SELECT json FROM records").map { json in
            RecordRow(try ExerciseRecord(reading: FieldReader(try object(json, "records.json"), path: "record")))
        }
        let oldOutbox = try Row.fetchAll(db, sql: "SELECT channel, seq, kind, topic, payload, created_at, summary FROM outbox").map { row in
            guard let channel = Channel(rawValue: row["channel"]), let kind = MessageKind(rawValue: row["kind"]) else {
                throw RuntimeError("outbox row with unknown channel or kind")
            }
            return try OutboxRow(channel, OutboxRecord(seq: UInt64(row["seq"] as Int64), kind: kind,
                                                       frame: WireFrame(topic: row["topic"], payload: Array(row["payload"] as Data)),
                                                       createdAt: EmulatedInstant(milliseconds: row["created_at"]),
                                                       summary: try object(row["summary"], "outbox.summary")))
        }
        try db.drop(table: "workouts")
        try db.drop(table: "records")
        try db.drop(table: "outbox")
        try db.create(table: "outbox") { t in
            t.column("channel", .text).notNull()
            t.column("seq", .integer).notNull()
            t.column("kind", .text).notNull()
            t.column("topic", .text).notNull()
            t.column("payload", .blob).notNull()
            t.column("created_at", .integer).notNull()
            for count in ["workouts", "samples", "saved", "deleted"] { t.column(count, .integer) }
            t.column("workout", .text)
            t.primaryKey(["channel", "seq"])
        }
        // v2's columns, named: later versions add columns (v4's wc_id) this migration must not write.
        for row in oldOutbox {
            try db.execute(sql: """
                INSERT INTO outbox (channel, seq, kind, topic, payload, created_at, workouts, samples, saved, deleted, workout)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [row.channel, row.seq, row.kind, row.topic, row.payload, row.createdAt, row.workouts, row.samples,
                                 row.saved, row.deleted, row.workout])
        }
        try db.create(table: "workouts") { t in
            t.primaryKey("uuid", .text)
            t.column("anchor", .integer).notNull()
            createWorkoutColumns(t)
        }
        try db.create(table: "records") { t in
            t.primaryKey("id", .text)
            createRecordColumns(t)
        }
        try db.create(table: "held_workouts") { t in
            t.autoIncrementedPrimaryKey("seq")
            t.column("uuid", .text).notNull()
            createWorkoutColumns(t)
        }
        try db.create(table: "held_sample_batches") { t in
            t.autoIncrementedPrimaryKey("seq")
            t.column("data", .blob).notNull()
        }
        try db.create(table: "held_deletions") { t in
            t.autoIncrementedPrimaryKey("seq")
            t.column("uuid", .text).notNull()
            t.column("type", .text).notNull()
        }
        try db.create(table: "queued_records") { t in
            t.autoIncrementedPrimaryKey("seq")
            t.column("queue", .text).notNull()
            t.column("id", .text).notNull().indexed()
            createRecordColumns(t)
        }
        try db.create(table: "waiting_deletions") { t in
            t.autoIncrementedPrimaryKey("seq")
            t.column("id", .text).notNull().unique()
        }
        for row in oldWorkouts { try row.insert(db) }
        for row in oldRecords { try row.insert(db) }
        try StateTables.create(db)
        // What v1 kept as JSON values in `kv` moves to the new tables; keys no model reads any
        // more are dropped.
        let limits = WireLimits(maxItemsPerMessage: .max / 16)
        for row in try Row.fetchAll(db, sql: "SELECT key, value FROM kv ORDER BY key") {
            let key: String = row["key"], value = try JSONParser().parse(row["value"] as String)
            switch key {
            case "phone.lockBuffer":
                try apply(.hold(try HealthObjectsBatch(body: value.objectValue ?? [:], limits: limits)), db)
            case "phone.container":
                try apply(.containerAdd(try RecordsBatch(body: value.objectValue ?? [:], limits: limits)), db)
            case "watch.import", "wc":
                break // v3's and v4's tables, created after this migration; wave 1 had neither
            default:
                do { try StateTables.write(key, value, db) } catch let error as RuntimeError where error.message.hasSuffix("has no table in schema \(schemaVersion)") {}
            }
        }
        try db.drop(table: "kv")
    }

    /// Refuses a database written by a newer PairSim before anything is migrated or written.
    static func checkVersion(_ db: Database, path: String) throws {
        let known = Set(migrator.migrations)
        let applied = try migrator.appliedIdentifiers(db)
        let unknown = applied.subtracting(known).sorted()
        guard unknown.isEmpty else {
            throw RuntimeError("""
                the node database \(path) was written by a newer PairSim (schema \(unknown.joined(separator: ", "))); \
                this build reads schema \(migrator.migrations.joined(separator: ", ")) only: run that newer build, \
                or start from an empty data directory
                """)
        }
    }

    static func object(_ text: String, _ column: String) throws -> JSONObject {
        guard let object = try JSONParser().parse(text).objectValue else { throw RuntimeError("\(column): expected a JSON object") }
        return object
    }
}
