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
        // Each migration's schema is frozen SQL (R: K7): what a version made never changes with
        // today's Swift types.
        migrator.registerMigration("v2") { db in
            try db.execute(sql: v2SQL)
            try moveV1Values(db)
        }
        // v3: the watch's import-health job, so a killed watch resumes it (R: E1).
        migrator.registerMigration("v3") { db in try db.execute(sql: v3SQL) }
        // v4: each node's WatchConnectivity session: outstanding transfers, deliveries waiting for
        // the app, the application context (R: X1).
        migrator.registerMigration("v4") { db in try db.execute(sql: v4SQL) }
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

    /// v2, frozen: typed workouts, records and outbox columns, taken from v1's JSON by SQL; the
    /// tables of held objects, queued records and the models' small state.
    static let v2SQL = """
        CREATE TABLE workouts_v2 (uuid TEXT PRIMARY KEY, anchor INTEGER NOT NULL, activity TEXT NOT NULL, start_ms INTEGER NOT NULL,
                                  end_ms INTEGER NOT NULL, active_duration_ms INTEGER NOT NULL, active_energy DOUBLE, source TEXT NOT NULL);
        INSERT INTO workouts_v2 SELECT uuid, anchor, json_extract(json, '$.activity'), json_extract(json, '$.start'), json_extract(json, '$.end'),
                                       json_extract(json, '$.activeDuration'), json_extract(json, '$.activeEnergy'), json_extract(json, '$.source')
                                FROM workouts;
        DROP TABLE workouts;
        ALTER TABLE workouts_v2 RENAME TO workouts;
        CREATE TABLE records_v2 (id TEXT PRIMARY KEY, exercise TEXT NOT NULL, start_ms INTEGER NOT NULL, duration_ms INTEGER NOT NULL,
                                 calories DOUBLE, workout_id TEXT, source TEXT NOT NULL);
        INSERT INTO records_v2 SELECT id, json_extract(json, '$.exercise'), json_extract(json, '$.start'), json_extract(json, '$.duration'),
                                      json_extract(json, '$.calories'), json_extract(json, '$.healthKitWorkoutID'), json_extract(json, '$.source')
                               FROM records;
        DROP TABLE records;
        ALTER TABLE records_v2 RENAME TO records;
        CREATE TABLE outbox_v2 (channel TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, topic TEXT NOT NULL, payload BLOB NOT NULL,
                                created_at INTEGER NOT NULL, workouts INTEGER, samples INTEGER, saved INTEGER, deleted INTEGER, workout TEXT,
                                PRIMARY KEY (channel, seq));
        INSERT INTO outbox_v2 SELECT channel, seq, kind, topic, payload, created_at, json_extract(summary, '$.workouts'),
                                     json_extract(summary, '$.samples'), json_extract(summary, '$.saved'), json_extract(summary, '$.deleted'),
                                     json_extract(summary, '$.workout')
                              FROM outbox;
        DROP TABLE outbox;
        ALTER TABLE outbox_v2 RENAME TO outbox;
        CREATE TABLE held_workouts (seq INTEGER PRIMARY KEY AUTOINCREMENT, uuid TEXT NOT NULL, activity TEXT NOT NULL, start_ms INTEGER NOT NULL,
                                    end_ms INTEGER NOT NULL, active_duration_ms INTEGER NOT NULL, active_energy DOUBLE, source TEXT NOT NULL);
        CREATE TABLE held_sample_batches (seq INTEGER PRIMARY KEY AUTOINCREMENT, data BLOB NOT NULL);
        CREATE TABLE held_deletions (seq INTEGER PRIMARY KEY AUTOINCREMENT, uuid TEXT NOT NULL, type TEXT NOT NULL);
        CREATE TABLE queued_records (seq INTEGER PRIMARY KEY AUTOINCREMENT, queue TEXT NOT NULL, id TEXT NOT NULL, exercise TEXT NOT NULL,
                                     start_ms INTEGER NOT NULL, duration_ms INTEGER NOT NULL, calories DOUBLE, workout_id TEXT, source TEXT NOT NULL);
        CREATE INDEX queued_records_on_id ON queued_records(id);
        CREATE TABLE waiting_deletions (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE);
        CREATE TABLE node_state (id INTEGER PRIMARY KEY CHECK (id = 1), store_anchor INTEGER, watch_uuid_state INTEGER, phone_uuid_state INTEGER,
                                 session_count INTEGER, resting_count INTEGER, next_resting_at INTEGER, fail_next_finish BOOLEAN,
                                 save_failures INTEGER, next_export_at INTEGER);
        INSERT INTO node_state (id) VALUES (1);
        CREATE TABLE sync_channels (channel TEXT PRIMARY KEY, stream TEXT NOT NULL, next_seq INTEGER NOT NULL);
        CREATE TABLE sync_windows (channel TEXT NOT NULL, position INTEGER NOT NULL, stream TEXT NOT NULL, cumulative INTEGER NOT NULL,
                                   PRIMARY KEY (channel, position));
        CREATE TABLE sync_windows_above (channel TEXT NOT NULL, stream TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (channel, stream, seq));
        CREATE TABLE export_deletions (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL);
        CREATE TABLE watch_session (id INTEGER PRIMARY KEY CHECK (id = 1), state TEXT NOT NULL, activity TEXT, start_ms INTEGER, number INTEGER,
                                    recovered BOOLEAN, has_builder BOOLEAN, was_paused BOOLEAN);
        CREATE TABLE watch_session_exercises (position INTEGER PRIMARY KEY, name TEXT NOT NULL);
        CREATE TABLE watch_session_segments (position INTEGER PRIMARY KEY, start_ms INTEGER NOT NULL, end_ms INTEGER);
        CREATE TABLE watch_plan (id INTEGER PRIMARY KEY CHECK (id = 1), remaining INTEGER NOT NULL, every_ms INTEGER NOT NULL,
                                 duration_ms INTEGER NOT NULL, next_at INTEGER NOT NULL, generated INTEGER NOT NULL);
        CREATE TABLE watch_bulk (id INTEGER PRIMARY KEY CHECK (id = 1), type TEXT NOT NULL, total INTEGER NOT NULL, done INTEGER NOT NULL,
                                 first_ms INTEGER NOT NULL, span_ms INTEGER NOT NULL, random_state INTEGER NOT NULL);
        CREATE TABLE phone_app (id INTEGER PRIMARY KEY CHECK (id = 1), state TEXT NOT NULL, locked BOOLEAN NOT NULL,
                                frontmost_at_lock BOOLEAN NOT NULL, background_since INTEGER);
        CREATE TABLE phone_denied (type TEXT PRIMARY KEY);
        CREATE TABLE phone_deferred (position INTEGER PRIMARY KEY, type TEXT NOT NULL);
        CREATE TABLE phone_miss_completions (position INTEGER PRIMARY KEY, type TEXT NOT NULL, count INTEGER NOT NULL);
        CREATE TABLE background_delivery (position INTEGER PRIMARY KEY, type TEXT NOT NULL UNIQUE, frequency TEXT NOT NULL, enabled BOOLEAN NOT NULL,
                                          stopped BOOLEAN NOT NULL, pending BOOLEAN NOT NULL, last_wake_at INTEGER, misses INTEGER NOT NULL,
                                          wake_at INTEGER);
        CREATE TABLE user_defaults (position INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, value TEXT NOT NULL);
        """

    /// v3, frozen: the watch's `import-health` job in progress.
    static let v3SQL = """
        CREATE TABLE watch_import (id INTEGER PRIMARY KEY CHECK (id = 1), path TEXT NOT NULL, since TEXT, until TEXT, types TEXT,
                                   phase TEXT NOT NULL, done INTEGER NOT NULL, total INTEGER NOT NULL, saved INTEGER NOT NULL,
                                   ignored INTEGER NOT NULL, base_ms INTEGER, first_day TEXT, fingerprint TEXT NOT NULL);
        """

    /// v4, frozen: each node's WatchConnectivity session.
    static let v4SQL = """
        ALTER TABLE outbox ADD COLUMN wc_id TEXT;
        CREATE TABLE wc_session (id INTEGER PRIMARY KEY CHECK (id = 1), awaiting_first_unlock BOOLEAN NOT NULL, foreground BOOLEAN NOT NULL,
                                 random_state INTEGER NOT NULL, context_pending TEXT, context_seq INTEGER, context_sent TEXT,
                                 received_context TEXT, received_context_stream TEXT, received_context_seq INTEGER);
        CREATE TABLE wc_outgoing (position INTEGER PRIMARY KEY, id TEXT NOT NULL, kind TEXT NOT NULL, payload TEXT NOT NULL, name TEXT,
                                  size INTEGER, created_ms INTEGER NOT NULL, seq INTEGER, stalled_until INTEGER);
        CREATE TABLE wc_inbox (position INTEGER PRIMARY KEY, kind TEXT NOT NULL, id TEXT NOT NULL, payload TEXT NOT NULL, name TEXT,
                               size INTEGER, wants_reply BOOLEAN NOT NULL, sent_ms INTEGER NOT NULL, stream TEXT NOT NULL, seq INTEGER NOT NULL);
        """

    /// v2's one step that is not SQL: wave 1 kept a locked phone's held objects, its CloudKit
    /// container and the models' small values as JSON documents in `kv`; their rows (packed sample
    /// batches among them) are written by the writers the tables have now. Keys no model reads any
    /// more are dropped. (Rewriting those writers in SQL for a wave-1 database was not worth a
    /// second copy of each.)
    static func moveV1Values(_ db: Database) throws {
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

}
