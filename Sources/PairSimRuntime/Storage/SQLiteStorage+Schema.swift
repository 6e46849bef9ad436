import Foundation
import PairSimCore

/// The node database's schema, one migration per version. A database written by an older PairSim
/// is migrated when opened; one written by a newer PairSim is refused, naming its version.
extension SQLiteStorage {
    /// The schema version this build writes.
    static let schemaVersion = "v12"

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
        // Each migration is frozen SQL (R: K7): what a version made never changes with today's
        // Swift types. The one exception is v1's locked-phone samples (`moveV1LockBuffer`).
        migrator.registerMigration("v2") { db in
            try db.execute(sql: v2SQL)
            try db.execute(sql: v2ValuesSQL)
            try moveV1LockBuffer(db)
            try db.execute(sql: "DROP TABLE kv")
        }
        // v3: the watch's import-health job, so a killed watch resumes it (R: E1).
        migrator.registerMigration("v3") { db in try db.execute(sql: v3SQL) }
        // v4: each node's WatchConnectivity session: outstanding transfers, deliveries waiting for
        // the app, the application context (R: X1).
        migrator.registerMigration("v4") { db in try db.execute(sql: v4SQL) }
        // v5: an outbox message that carries exactly one stored sample batch keeps the batch's
        // anchor and the frame without its body, not a second copy of the samples (R: E4's speed).
        migrator.registerMigration("v5") { db in
            // The statement GRDB's `alter(table:)` made of it then, so a database made now is the same.
            try db.execute(sql: #"ALTER TABLE "outbox" ADD COLUMN "samples_anchor" INTEGER"#)
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
        // v10: the salt the turn journal's current entries are checksummed with, new each time the
        // journal starts again, so no entry left from before can pass for a current one (R: K8).
        migrator.registerMigration("v10") { db in
            try db.execute(sql: "ALTER TABLE journal_mark ADD COLUMN salt INTEGER NOT NULL DEFAULT 0")
        }
        // v11: whether a message waiting for the app was sent with `sendMessageData` (before, one
        // came back after a restart as a dictionary message `{"data": base64}`; found reviewing K7).
        migrator.registerMigration("v11") { db in
            try db.execute(sql: "ALTER TABLE wc_inbox ADD COLUMN is_data BOOLEAN NOT NULL DEFAULT 0")
        }
        // v12: the reference watch app replaces the one built into the watch (R: A10): its hosted
        // session crashed and waiting for `recover`, or recovered without its builder, or recovered;
        // a `generate-workouts` stream's workout started in the app. The built-in app's session
        // tables go (a session of it under way is not carried over); `node_state.session_count`
        // stays, unread.
        migrator.registerMigration("v12") { db in
            try db.execute(sql: """
                DROP TABLE watch_session;
                DROP TABLE watch_session_exercises;
                DROP TABLE watch_session_segments;
                ALTER TABLE watch_hosted_workout ADD COLUMN crashed BOOLEAN NOT NULL DEFAULT 0;
                ALTER TABLE watch_hosted_workout ADD COLUMN builder_lost BOOLEAN NOT NULL DEFAULT 0;
                ALTER TABLE watch_hosted_workout ADD COLUMN recovered BOOLEAN NOT NULL DEFAULT 0;
                ALTER TABLE watch_plan ADD COLUMN started BOOLEAN NOT NULL DEFAULT 0;
                """)
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

    /// v2, frozen: v1's small values, JSON documents in `kv`, moved into their tables by SQL (the
    /// writers of the time defaulted a missing flag to false and a missing count to 0, and so does
    /// this). Keys no model reads any more are left behind with `kv`.
    static let v2ValuesSQL = """
        UPDATE node_state SET
            store_anchor = (SELECT json_extract(value, '$') FROM kv WHERE key = 'store.anchor'),
            watch_uuid_state = (SELECT json_extract(value, '$') FROM kv WHERE key = 'watch.uuids'),
            phone_uuid_state = (SELECT json_extract(value, '$') FROM kv WHERE key = 'phone.uuids'),
            session_count = (SELECT json_extract(value, '$') FROM kv WHERE key = 'watch.sessionCount'),
            resting_count = (SELECT json_extract(value, '$') FROM kv WHERE key = 'watch.restingCount'),
            next_resting_at = (SELECT json_extract(value, '$') FROM kv WHERE key = 'watch.nextRestingAt'),
            fail_next_finish = (SELECT json_extract(value, '$') FROM kv WHERE key = 'watch.failNextFinish'),
            save_failures = (SELECT json_extract(value, '$') FROM kv WHERE key = 'phone.saveFailures'),
            next_export_at = (SELECT json_extract(value, '$.nextExportAt') FROM kv WHERE key = 'cloudkit.export')
        WHERE id = 1;
        INSERT INTO sync_channels (channel, stream, next_seq)
            SELECT c.key, json_extract(c.value, '$.stream'), json_extract(c.value, '$.nextSeq')
            FROM kv, json_each(kv.value) c WHERE kv.key = 'sync' ORDER BY c.id;
        INSERT INTO sync_windows (channel, position, stream, cumulative)
            SELECT c.key, w.key, json_extract(w.value, '$.stream'), json_extract(w.value, '$.cumulative')
            FROM kv, json_each(kv.value) c, json_each(c.value, '$.inbound') w WHERE kv.key = 'sync';
        INSERT INTO sync_windows_above (channel, stream, seq)
            SELECT c.key, json_extract(w.value, '$.stream'), a.value
            FROM kv, json_each(kv.value) c, json_each(c.value, '$.inbound') w, json_each(w.value, '$.above') a WHERE kv.key = 'sync';
        INSERT INTO watch_session (id, state, activity, start_ms, number, recovered, has_builder, was_paused)
            SELECT 1, json_extract(value, '$.state'), json_extract(value, '$.live.activity'), json_extract(value, '$.live.start'),
                   json_extract(value, '$.live.number'), json_extract(value, '$.live.recovered'), json_extract(value, '$.live.hasBuilder'),
                   json_extract(value, '$.wasPaused')
            FROM kv WHERE key = 'watch.session';
        INSERT INTO watch_session_exercises (position, name)
            SELECT e.key, e.value FROM kv, json_each(kv.value, '$.live.exercises') e WHERE kv.key = 'watch.session';
        INSERT INTO watch_session_segments (position, start_ms, end_ms)
            SELECT s.key, json_extract(s.value, '$[0]'), json_extract(s.value, '$[#-1]')
            FROM kv, json_each(kv.value, '$.live.segments') s WHERE kv.key = 'watch.session';
        INSERT INTO watch_plan (id, remaining, every_ms, duration_ms, next_at, generated)
            SELECT 1, json_extract(value, '$.remaining'), json_extract(value, '$.every'), json_extract(value, '$.duration'),
                   json_extract(value, '$.nextAt'), json_extract(value, '$.generated')
            FROM kv WHERE key = 'watch.plan' AND json_type(value) = 'object';
        INSERT INTO watch_bulk (id, type, total, done, first_ms, span_ms, random_state)
            SELECT 1, json_extract(value, '$.type'), json_extract(value, '$.total'), json_extract(value, '$.done'),
                   json_extract(value, '$.first'), json_extract(value, '$.span'), json_extract(value, '$.random')
            FROM kv WHERE key = 'watch.bulk' AND json_type(value) = 'object';
        INSERT INTO phone_app (id, state, locked, frontmost_at_lock, background_since)
            SELECT 1, json_extract(value, '$.state'), COALESCE(json_extract(value, '$.locked'), 0),
                   COALESCE(json_extract(value, '$.frontmostAtLock'), 0), json_extract(value, '$.backgroundSince')
            FROM kv WHERE key = 'phone.app';
        INSERT INTO phone_denied (type)
            SELECT d.value FROM kv, json_each(kv.value, '$.denied') d WHERE kv.key = 'phone.app' ORDER BY d.id;
        INSERT INTO background_delivery (position, type, frequency, enabled, stopped, pending, last_wake_at, misses, wake_at)
            SELECT d.id, d.key, json_extract(d.value, '$.frequency'), COALESCE(json_extract(d.value, '$.enabled'), 0),
                   COALESCE(json_extract(d.value, '$.stopped'), 0), COALESCE(json_extract(d.value, '$.pending'), 0),
                   json_extract(d.value, '$.lastWakeAt'), COALESCE(json_extract(d.value, '$.misses'), 0), json_extract(d.value, '$.wakeAt')
            FROM kv, json_each(kv.value) d WHERE kv.key = 'phone.delivery';
        INSERT INTO user_defaults (position, key, value)
            SELECT d.id, d.key, CASE d.type WHEN 'text' THEN json_quote(d.value) WHEN 'null' THEN 'null' WHEN 'true' THEN 'true'
                                            WHEN 'false' THEN 'false' WHEN 'real' THEN printf('%!.17g', d.value)
                                            ELSE CAST(d.value AS TEXT) END
            FROM kv, json_each(kv.value) d WHERE kv.key IN ('phone.defaults', 'watch.appDefaults');
        INSERT INTO phone_miss_completions (position, type, count)
            SELECT m.id, m.key, CASE m.type WHEN 'integer' THEN m.value ELSE 0 END FROM kv, json_each(kv.value) m WHERE kv.key = 'phone.missCompletions';
        INSERT INTO phone_deferred (position, type)
            SELECT d.key, d.value FROM kv, json_each(kv.value) d WHERE kv.key = 'phone.deferred';
        INSERT INTO queued_records (queue, id, exercise, start_ms, duration_ms, calories, workout_id, source)
            SELECT q.queue, json_extract(r.value, '$.id'), json_extract(r.value, '$.exercise'), json_extract(r.value, '$.start'),
                   json_extract(r.value, '$.duration'), json_extract(r.value, '$.calories'), json_extract(r.value, '$.healthKitWorkoutID'),
                   json_extract(r.value, '$.source')
            FROM (SELECT 'export' AS queue, value FROM kv WHERE key = 'cloudkit.export'
                  UNION ALL SELECT 'container', value FROM kv WHERE key = 'phone.container') q, json_each(q.value, '$.saved') r
            ORDER BY q.queue DESC, r.id;
        INSERT INTO export_deletions (id)
            SELECT d.value FROM kv, json_each(kv.value, '$.deleted') d WHERE kv.key = 'cloudkit.export' ORDER BY d.id;
        INSERT OR IGNORE INTO waiting_deletions (id)
            SELECT d.value FROM kv, json_each(kv.value, '$.deleted') d WHERE kv.key = 'phone.container' ORDER BY d.id;
        """

    /// v2's one step that is not SQL: what a locked phone held in wave 1 (`phone.lockBuffer`), whose
    /// samples go into packed batches (`SampleCodec`), which SQL cannot write.
    static func moveV1LockBuffer(_ db: Database) throws {
        guard let text = try String.fetchOne(db, sql: "SELECT value FROM kv WHERE key = 'phone.lockBuffer'") else { return }
        let value = try JSONParser().parse(text)
        try apply(.hold(try HealthObjectsBatch(body: value.objectValue ?? [:], limits: WireLimits(maxItemsPerMessage: .max / 16))), db)
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
