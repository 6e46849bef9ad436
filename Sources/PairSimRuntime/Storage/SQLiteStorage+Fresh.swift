
/// A new database made at schema v12 in one step: what migrations v1…v12 leave in an empty
/// database, as frozen SQL (R: K7), taken from such a database. Running the twelve migrations on
/// each new database took ~25 ms of CPU in CI's debug build, and this ~7 ms (100 new databases
/// each way, three runs): a node's first start, and the simulator's two disks for each seed on the
/// real storage. SchemaTests checks that the two ways make the same database — schema, rows and
/// the migrations recorded as applied. A migration after v12 needs nothing here: it runs after
/// this step as on any v12 database. The SQL repeats the migrations' statements on purpose:
/// deriving it from them at start-up would run them, which is the cost this saves, and v1…v12
/// never change (R: K7), so the copy never has to follow them.
extension SQLiteStorage {
    /// The migrations `freshSchemaSQL` stands for.
    static let freshSchemaMigrations = (1...12).map { "v\($0)" }

    /// v1…v12's tables and indexes as SQLite keeps them (the statements' text included), then the
    /// rows they insert. `sqlite_sequence`'s rows are v2's: its `INSERT … SELECT`s into the
    /// AUTOINCREMENT tables left them, with nothing to copy.
    static let freshSchemaSQL = """
        CREATE TABLE sample_batches (id INTEGER PRIMARY KEY, anchor INTEGER NOT NULL, data BLOB NOT NULL);
        CREATE TABLE deleted_objects (uuid TEXT PRIMARY KEY, type TEXT NOT NULL, anchor INTEGER NOT NULL,
                                      deleted_at INTEGER NOT NULL, purged INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE deleted_records (id TEXT PRIMARY KEY);
        CREATE TABLE "workouts" (uuid TEXT PRIMARY KEY, anchor INTEGER NOT NULL, activity TEXT NOT NULL, start_ms INTEGER NOT NULL,
                                  end_ms INTEGER NOT NULL, active_duration_ms INTEGER NOT NULL, active_energy DOUBLE, source TEXT NOT NULL);
        CREATE TABLE "records" (id TEXT PRIMARY KEY, exercise TEXT NOT NULL, start_ms INTEGER NOT NULL, duration_ms INTEGER NOT NULL,
                                 calories DOUBLE, workout_id TEXT, source TEXT NOT NULL);
        CREATE TABLE "outbox" (channel TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, topic TEXT NOT NULL, payload BLOB NOT NULL,
                                created_at INTEGER NOT NULL, workouts INTEGER, samples INTEGER, saved INTEGER, deleted INTEGER, workout TEXT, wc_id TEXT, "samples_anchor" INTEGER,
                                PRIMARY KEY (channel, seq));
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
                                 save_failures INTEGER, next_export_at INTEGER, compacted_through INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE sync_channels (channel TEXT PRIMARY KEY, stream TEXT NOT NULL, next_seq INTEGER NOT NULL);
        CREATE TABLE sync_windows (channel TEXT NOT NULL, position INTEGER NOT NULL, stream TEXT NOT NULL, cumulative INTEGER NOT NULL,
                                   PRIMARY KEY (channel, position));
        CREATE TABLE sync_windows_above (channel TEXT NOT NULL, stream TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (channel, stream, seq));
        CREATE TABLE export_deletions (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL);
        CREATE TABLE watch_plan (id INTEGER PRIMARY KEY CHECK (id = 1), remaining INTEGER NOT NULL, every_ms INTEGER NOT NULL,
                                 duration_ms INTEGER NOT NULL, next_at INTEGER NOT NULL, generated INTEGER NOT NULL, started BOOLEAN NOT NULL DEFAULT 0);
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
        CREATE TABLE watch_import (id INTEGER PRIMARY KEY CHECK (id = 1), path TEXT NOT NULL, since TEXT, until TEXT, types TEXT,
                                   phase TEXT NOT NULL, done INTEGER NOT NULL, total INTEGER NOT NULL, saved INTEGER NOT NULL,
                                   ignored INTEGER NOT NULL, base_ms INTEGER, first_day TEXT, fingerprint TEXT NOT NULL, skip_invalid INTEGER NOT NULL DEFAULT 0, stops INTEGER NOT NULL DEFAULT 0, stopped_at INTEGER NOT NULL DEFAULT -1);
        CREATE TABLE wc_session (id INTEGER PRIMARY KEY CHECK (id = 1), awaiting_first_unlock BOOLEAN NOT NULL, foreground BOOLEAN NOT NULL,
                                 random_state INTEGER NOT NULL, context_pending TEXT, context_seq INTEGER, context_sent TEXT,
                                 received_context TEXT, received_context_stream TEXT, received_context_seq INTEGER);
        CREATE TABLE wc_outgoing (position INTEGER PRIMARY KEY, id TEXT NOT NULL, kind TEXT NOT NULL, payload TEXT NOT NULL, name TEXT,
                                  size INTEGER, created_ms INTEGER NOT NULL, seq INTEGER, stalled_until INTEGER);
        CREATE TABLE wc_inbox (position INTEGER PRIMARY KEY, kind TEXT NOT NULL, id TEXT NOT NULL, payload TEXT NOT NULL, name TEXT,
                               size INTEGER, wants_reply BOOLEAN NOT NULL, sent_ms INTEGER NOT NULL, stream TEXT NOT NULL, seq INTEGER NOT NULL, is_data BOOLEAN NOT NULL DEFAULT 0);
        CREATE TABLE journal_mark (id INTEGER PRIMARY KEY CHECK (id = 1), turn INTEGER NOT NULL, salt INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE watch_hosted (id INTEGER PRIMARY KEY CHECK (id = 1), sessions INTEGER NOT NULL);
        CREATE TABLE watch_hosted_workout (
            id INTEGER PRIMARY KEY CHECK (id = 1), number INTEGER NOT NULL, activity TEXT NOT NULL,
            state INTEGER NOT NULL, active_ms INTEGER NOT NULL, readings INTEGER NOT NULL, samples INTEGER NOT NULL,
            energy REAL NOT NULL, finished INTEGER NOT NULL, random_state INTEGER NOT NULL, steady REAL NOT NULL,
            noise REAL NOT NULL, collecting TEXT, collection_start_ms INTEGER, collection_end_ms INTEGER,
            active_since_ms INTEGER, start_ms INTEGER, crashed BOOLEAN NOT NULL DEFAULT 0, builder_lost BOOLEAN NOT NULL DEFAULT 0, recovered BOOLEAN NOT NULL DEFAULT 0);
        CREATE TABLE device_clock (
            id INTEGER PRIMARY KEY CHECK (id = 1), node TEXT NOT NULL, offset_ms INTEGER NOT NULL,
            drift_ppm REAL NOT NULL, since_ms INTEGER NOT NULL, time_zone TEXT NOT NULL);
        CREATE TABLE watch_partitions (reason TEXT PRIMARY KEY);
        INSERT INTO node_state (id) VALUES (1);
        INSERT INTO journal_mark (id, turn) VALUES (1, 0);
        INSERT INTO watch_hosted (id, sessions) VALUES (1, 0);
        INSERT INTO sqlite_sequence (name, seq) VALUES ('queued_records', 0), ('export_deletions', 0), ('waiting_deletions', 0);
        """

    /// Makes schema v12 in one transaction if the database is empty (a new file), and records
    /// v1…v12 as applied the way the migrator does (its own table and statement), so the migrator
    /// finds nothing to do up to v12. Returns false, touching nothing, when the database has
    /// anything in it.
    static func createInOneStep(_ queue: DatabaseQueue) throws -> Bool {
        try queue.write { db in
            guard try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") == 0 else { return false }
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            for identifier in freshSchemaMigrations {
                try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [identifier])
            }
            try db.execute(sql: freshSchemaSQL)
            return true
        }
    }
}
