import Foundation
import GRDB
import PairSimCore

/// The models' small state — what `persistentValues()` returns — in typed tables, one set of
/// tables per value. The models hand their state over as values keyed by name (the simulator and
/// the tests compare them); here each known key is written to and read back from its columns.
/// A changed value rewrites its own rows only; none of them grows with the stores.
enum StateTables {
    /// Scalar values, all columns of the one `node_state` row.
    enum Scalar { case int, bool }
    static let scalars: [(key: String, column: String, kind: Scalar)] = [
        ("store.anchor", "store_anchor", .int), ("watch.uuids", "watch_uuid_state", .int), ("phone.uuids", "phone_uuid_state", .int),
        ("watch.sessionCount", "session_count", .int), ("watch.restingCount", "resting_count", .int),
        ("watch.nextRestingAt", "next_resting_at", .int), ("watch.failNextFinish", "fail_next_finish", .bool),
        ("phone.saveFailures", "save_failures", .int),
    ]

    static func create(_ db: Database) throws {
        try db.create(table: "node_state") { t in
            t.primaryKey("id", .integer).check { $0 == 1 }
            for scalar in scalars { t.column(scalar.column, scalar.kind == .bool ? .boolean : .integer) }
            t.column("next_export_at", .integer)
        }
        try db.create(table: "sync_channels") { t in
            t.primaryKey("channel", .text)
            t.column("stream", .text).notNull()
            t.column("next_seq", .integer).notNull()
        }
        try db.create(table: "sync_windows") { t in
            t.column("channel", .text).notNull()
            t.column("position", .integer).notNull()
            t.column("stream", .text).notNull()
            t.column("cumulative", .integer).notNull()
            t.primaryKey(["channel", "position"])
        }
        try db.create(table: "sync_windows_above") { t in
            t.column("channel", .text).notNull()
            t.column("stream", .text).notNull()
            t.column("seq", .integer).notNull()
            t.primaryKey(["channel", "stream", "seq"])
        }
        try db.create(table: "export_deletions") { t in
            t.autoIncrementedPrimaryKey("seq")
            t.column("id", .text).notNull()
        }
        try db.create(table: "watch_session") { t in
            t.primaryKey("id", .integer).check { $0 == 1 }
            t.column("state", .text).notNull()
            t.column("activity", .text)
            t.column("start_ms", .integer)
            t.column("number", .integer)
            t.column("recovered", .boolean)
            t.column("has_builder", .boolean)
            t.column("was_paused", .boolean)
        }
        try db.create(table: "watch_session_exercises") { t in
            t.primaryKey("position", .integer)
            t.column("name", .text).notNull()
        }
        try db.create(table: "watch_session_segments") { t in
            t.primaryKey("position", .integer)
            t.column("start_ms", .integer).notNull()
            t.column("end_ms", .integer)
        }
        try db.create(table: "watch_plan") { t in
            t.primaryKey("id", .integer).check { $0 == 1 }
            for column in ["remaining", "every_ms", "duration_ms", "next_at", "generated"] { t.column(column, .integer).notNull() }
        }
        try db.create(table: "watch_bulk") { t in
            t.primaryKey("id", .integer).check { $0 == 1 }
            t.column("type", .text).notNull()
            for column in ["total", "done", "first_ms", "span_ms", "random_state"] { t.column(column, .integer).notNull() }
        }
        try db.create(table: "phone_app") { t in
            t.primaryKey("id", .integer).check { $0 == 1 }
            t.column("state", .text).notNull()
            t.column("locked", .boolean).notNull()
            t.column("frontmost_at_lock", .boolean).notNull()
            t.column("background_since", .integer)
        }
        try db.create(table: "phone_denied") { t in t.primaryKey("type", .text) }
        try db.create(table: "phone_deferred") { t in
            t.primaryKey("position", .integer)
            t.column("type", .text).notNull()
        }
        try db.create(table: "phone_miss_completions") { t in
            t.primaryKey("position", .integer)
            t.column("type", .text).notNull()
            t.column("count", .integer).notNull()
        }
        try db.create(table: "background_delivery") { t in
            t.primaryKey("position", .integer)
            t.column("type", .text).notNull().unique()
            t.column("frequency", .text).notNull()
            t.column("enabled", .boolean).notNull()
            t.column("stopped", .boolean).notNull()
            t.column("pending", .boolean).notNull()
            t.column("last_wake_at", .integer)
            t.column("misses", .integer).notNull()
            t.column("wake_at", .integer)
        }
        // The app's UserDefaults: property-list values of any shape the app chose, so each value
        // is kept in its JSON spelling; the keys are rows.
        try db.create(table: "user_defaults") { t in
            t.primaryKey("position", .integer)
            t.column("key", .text).notNull().unique()
            t.column("value", .text).notNull()
        }
        try db.execute(sql: "INSERT INTO node_state (id) VALUES (1)")
    }

    // MARK: Writing

    /// `previous`: the value this key last had in the database, when known — lets a value written
    /// every turn (`sync`) change only the rows that differ (R: K1).
    static func write(_ key: String, _ value: JSON, _ db: Database, previous: JSON? = nil) throws {
        if let scalar = scalars.first(where: { $0.key == key }) {
            let stored: DatabaseValueConvertible? = switch (scalar.kind, value) {
            case (_, .null): nil
            case (.int, .int(let number)): number
            case (.bool, .bool(let flag)): flag
            default: throw RuntimeError("state value \(key): expected \(scalar.kind == .int ? "an integer" : "a boolean"), got \(value.kindName)")
            }
            // Cached: written nearly every turn (store.anchor), so compiling it each time showed (~20 µs a turn).
            try db.cachedStatement(sql: "UPDATE node_state SET \(scalar.column) = ? WHERE id = 1").execute(arguments: [stored])
            return
        }
        switch key {
        case "sync": try writeSync(value, previous: previous, db)
        case "cloudkit.export": try writeExport(value, db)
        case "watch.session": try writeSession(value, db)
        case "watch.plan":
            try db.execute(sql: "DELETE FROM watch_plan")
            guard value != .null else { return }
            try db.execute(sql: "INSERT INTO watch_plan (id, remaining, every_ms, duration_ms, next_at, generated) VALUES (1, ?, ?, ?, ?, ?)",
                           arguments: [try int(value, "remaining", key), try int(value, "every", key), try int(value, "duration", key),
                                       try int(value, "nextAt", key), try int(value, "generated", key)])
        case "watch.bulk":
            try db.execute(sql: "DELETE FROM watch_bulk")
            guard value != .null else { return }
            try db.execute(sql: "INSERT INTO watch_bulk (id, type, total, done, first_ms, span_ms, random_state) VALUES (1, ?, ?, ?, ?, ?, ?)",
                           arguments: [try string(value, "type", key), try int(value, "total", key), try int(value, "done", key),
                                       try int(value, "first", key), try int(value, "span", key), try int(value, "random", key)])
        case "watch.import": try writeImport(value, db)
        case "phone.clock", "watch.clock":
            // Written by an older migration (v2 moving v1's values) before v8 made the table: skipped as unknown there.
            guard try db.tableExists("device_clock") else { throw RuntimeError("state value \(key) has no table in schema \(SQLiteStorage.schemaVersion)") }
            let clock = value.objectValue ?? [:]
            try db.execute(sql: """
                INSERT OR REPLACE INTO device_clock (id, node, offset_ms, drift_ppm, since_ms, time_zone) VALUES (1, ?, ?, ?, ?, ?)
                """, arguments: [String(key.prefix { $0 != "." }), clock["offset"]?.intValue ?? 0, clock["drift"]?.doubleValue ?? 0,
                                 clock["since"]?.intValue ?? 0, clock["timeZone"]?.stringValue ?? "UTC"])
        case "watch.partitions":
            guard try db.tableExists("watch_partitions") else { throw RuntimeError("state value \(key) has no table in schema \(SQLiteStorage.schemaVersion)") }
            try db.execute(sql: "DELETE FROM watch_partitions")
            for reason in value.arrayValue ?? [] { try db.execute(sql: "INSERT INTO watch_partitions (reason) VALUES (?)", arguments: [reason.stringValue]) }
        case "watch.hostedSessions":
            try db.execute(sql: "UPDATE watch_hosted SET sessions = ? WHERE id = 1", arguments: [value.intValue ?? 0])
        case "watch.hostedWorkout": try writeHostedWorkout(value, db)
        case "wc": try writeWatchConnectivity(value, db)
        case "phone.app":
            try db.execute(sql: "DELETE FROM phone_app; DELETE FROM phone_denied")
            try db.execute(sql: "INSERT INTO phone_app (id, state, locked, frontmost_at_lock, background_since) VALUES (1, ?, ?, ?, ?)",
                           arguments: [try string(value, "state", key), value["locked"]?.boolValue ?? false,
                                       value["frontmostAtLock"]?.boolValue ?? false, value["backgroundSince"]?.intValue])
            for type in value["denied"]?.arrayValue ?? [] {
                try db.execute(sql: "INSERT INTO phone_denied (type) VALUES (?)", arguments: [type.stringValue])
            }
        case "phone.delivery":
            try db.execute(sql: "DELETE FROM background_delivery")
            for (position, member) in (value.objectValue?.members ?? []).enumerated() {
                let entry = member.value
                try db.execute(sql: """
                    INSERT INTO background_delivery (position, type, frequency, enabled, stopped, pending, last_wake_at, misses, wake_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [position, member.key, try string(entry, "frequency", key), entry["enabled"]?.boolValue ?? false,
                                     entry["stopped"]?.boolValue ?? false, entry["pending"]?.boolValue ?? false,
                                     entry["lastWakeAt"]?.intValue, entry["misses"]?.intValue ?? 0, entry["wakeAt"]?.intValue])
            }
        case "phone.defaults", "watch.appDefaults":
            try db.execute(sql: "DELETE FROM user_defaults")
            for (position, member) in (value.objectValue?.members ?? []).enumerated() {
                try db.execute(sql: "INSERT INTO user_defaults (position, key, value) VALUES (?, ?, ?)",
                               arguments: [position, member.key, JSONWriter.string(member.value)])
            }
        case "phone.missCompletions":
            try db.execute(sql: "DELETE FROM phone_miss_completions")
            for (position, member) in (value.objectValue?.members ?? []).enumerated() {
                try db.execute(sql: "INSERT INTO phone_miss_completions (position, type, count) VALUES (?, ?, ?)",
                               arguments: [position, member.key, member.value.intValue ?? 0])
            }
        case "phone.deferred":
            try db.execute(sql: "DELETE FROM phone_deferred")
            for (position, type) in (value.arrayValue ?? []).enumerated() {
                try db.execute(sql: "INSERT INTO phone_deferred (position, type) VALUES (?, ?)", arguments: [position, type.stringValue])
            }
        default:
            throw RuntimeError("state value \(key) has no table in schema \(SQLiteStorage.schemaVersion)")
        }
    }

    /// The app's `AppDefaults` (the phone's app, or a developer's watch app), in order.
    static func readUserDefaults(_ db: Database) throws -> JSONObject {
        var defaults = JSONObject()
        for entry in try Row.fetchAll(db, sql: "SELECT key, value FROM user_defaults ORDER BY position") {
            defaults.append(entry["key"], try JSONParser().parse(entry["value"] as String))
        }
        return defaults
    }

    /// The hosted watch app's workout (`HostedWorkout.json`), one row.
    static func writeHostedWorkout(_ value: JSON, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM watch_hosted_workout")
        guard value != .null else { return }
        let key = "watch.hostedWorkout"
        try db.execute(sql: """
            INSERT INTO watch_hosted_workout (id, number, activity, state, active_ms, readings, samples, energy, finished, random_state,
                                              steady, noise, collecting, collection_start_ms, collection_end_ms, active_since_ms, start_ms)
            VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [try int(value, "number", key), try string(value, "activity", key), try int(value, "state", key),
                             try int(value, "active", key), try int(value, "readings", key), try int(value, "samples", key),
                             value["energy"]?.doubleValue ?? 0, value["finished"]?.boolValue ?? false, try int(value, "random", key),
                             value["steady"]?.doubleValue ?? 0, value["noise"]?.doubleValue ?? 0,
                             value["collecting"]?.arrayValue.map { $0.compactMap(\.stringValue).joined(separator: ",") },
                             value["collectionStart"]?.intValue, value["collectionEnd"]?.intValue, value["activeSince"]?.intValue,
                             value["startDate"]?.intValue])
    }

    static func readHostedWorkout(_ db: Database) throws -> JSON? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM watch_hosted_workout") else { return nil }
        var object: JSONObject = [
            "number": .int(row["number"]), "activity": .string(row["activity"]), "state": .int(row["state"]), "active": .int(row["active_ms"]),
            "readings": .int(row["readings"]), "samples": .int(row["samples"]), "energy": .double(row["energy"]),
            "finished": .bool(row["finished"]), "random": .int(row["random_state"]), "steady": .double(row["steady"]),
            "noise": .double(row["noise"]),
        ]
        if let collecting = row["collecting"] as String? {
            object.append("collecting", .array(collecting.split(separator: ",").map { .string(String($0)) }))
        }
        for (field, column) in [("collectionStart", "collection_start_ms"), ("collectionEnd", "collection_end_ms"),
                                ("activeSince", "active_since_ms"), ("startDate", "start_ms")] {
            if let value = row[column] as Int64? { object.append(field, .int(value)) }
        }
        return .object(object)
    }

    static func writeExport(_ value: JSON, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM queued_records WHERE queue = 'export'; DELETE FROM export_deletions")
        let batch = try RecordsBatch(persisted: value.objectValue ?? [:])
        for record in batch.saved { try QueuedRecordRow(record, queue: .export).insert(db) }
        for id in batch.deleted { try db.execute(sql: "INSERT INTO export_deletions (id) VALUES (?)", arguments: [id.text]) }
        try db.execute(sql: "UPDATE node_state SET next_export_at = ? WHERE id = 1", arguments: [value["nextExportAt"]?.intValue])
    }

    static func writeSession(_ value: JSON, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM watch_session; DELETE FROM watch_session_exercises; DELETE FROM watch_session_segments")
        let live = value["live"]
        try db.execute(sql: """
            INSERT INTO watch_session (id, state, activity, start_ms, number, recovered, has_builder, was_paused)
            VALUES (1, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [try string(value, "state", "watch.session"), live?["activity"]?.stringValue, live?["start"]?.intValue,
                             live?["number"]?.intValue, live?["recovered"]?.boolValue, live?["hasBuilder"]?.boolValue,
                             value["wasPaused"]?.boolValue])
        for (position, name) in (live?["exercises"]?.arrayValue ?? []).enumerated() {
            try db.execute(sql: "INSERT INTO watch_session_exercises (position, name) VALUES (?, ?)", arguments: [position, name.stringValue])
        }
        for (position, segment) in (live?["segments"]?.arrayValue ?? []).enumerated() {
            try db.execute(sql: "INSERT INTO watch_session_segments (position, start_ms, end_ms) VALUES (?, ?, ?)",
                           arguments: [position, segment.arrayValue?.first?.intValue, segment.arrayValue?.last?.intValue])
        }
    }

    static func int(_ value: JSON, _ field: String, _ key: String) throws -> Int64 {
        guard let number = value[field]?.intValue else { throw RuntimeError("state value \(key): \(field) is not an integer") }
        return number
    }

    static func string(_ value: JSON, _ field: String, _ key: String) throws -> String {
        guard let text = value[field]?.stringValue else { throw RuntimeError("state value \(key): \(field) is not a string") }
        return text
    }

    // MARK: Reading

    /// Every value that was written, as the model gave it.
    static func read(_ db: Database) throws -> [String: JSON] {
        var values: [String: JSON] = [:]
        let row = try Row.fetchOne(db, sql: "SELECT * FROM node_state WHERE id = 1")!
        for scalar in scalars where !((row[scalar.column] as DatabaseValue).isNull) {
            values[scalar.key] = scalar.kind == .bool ? .bool(row[scalar.column]) : .int(row[scalar.column])
        }
        if let channels = try readSync(db) { values["sync"] = channels }
        if let export = try readExport(db, nextExportAt: row["next_export_at"]) { values["cloudkit.export"] = export }
        if let session = try Row.fetchOne(db, sql: "SELECT * FROM watch_session") {
            var object: JSONObject = ["state": .string(session["state"])]
            if let activity = session["activity"] as String? {
                let exercises = try String.fetchAll(db, sql: "SELECT name FROM watch_session_exercises ORDER BY position")
                let segments = try Row.fetchAll(db, sql: "SELECT start_ms, end_ms FROM watch_session_segments ORDER BY position").map { segment -> JSON in
                    .array([.int(segment["start_ms"]), (segment["end_ms"] as Int64?).map(JSON.int) ?? .null])
                }
                object.append("live", .object([
                    "activity": .string(activity), "exercises": .array(exercises.map(JSON.string)), "start": .int(session["start_ms"]),
                    "number": .int(session["number"]), "recovered": .bool(session["recovered"]), "hasBuilder": .bool(session["has_builder"]),
                    "segments": .array(segments),
                ]))
            }
            if let wasPaused = session["was_paused"] as Bool? { object.append("wasPaused", .bool(wasPaused)) }
            values["watch.session"] = .object(object)
        }
        if let plan = try Row.fetchOne(db, sql: "SELECT * FROM watch_plan") {
            values["watch.plan"] = .object(integers(plan, [("remaining", "remaining"), ("every", "every_ms"), ("duration", "duration_ms"),
                                                          ("nextAt", "next_at"), ("generated", "generated")]))
        }
        if let bulk = try Row.fetchOne(db, sql: "SELECT * FROM watch_bulk") {
            var object: JSONObject = ["type": .string(bulk["type"])]
            for (key, value) in integers(bulk, [("total", "total"), ("done", "done"), ("first", "first_ms"), ("span", "span_ms"),
                                                ("random", "random_state")]).members { object.append(key, value) }
            values["watch.bulk"] = .object(object)
        }
        if let job = try readImport(db) { values["watch.import"] = job }
        if let sessions = try Int64.fetchOne(db, sql: "SELECT sessions FROM watch_hosted WHERE id = 1"), sessions > 0 {
            values["watch.hostedSessions"] = .int(sessions)
        }
        if let workout = try readHostedWorkout(db) { values["watch.hostedWorkout"] = workout }
        let partitions = try String.fetchAll(db, sql: "SELECT reason FROM watch_partitions ORDER BY reason")
        if !partitions.isEmpty { values["watch.partitions"] = .array(partitions.map(JSON.string)) }
        if let clock = try Row.fetchOne(db, sql: "SELECT * FROM device_clock WHERE id = 1") {
            values[(clock["node"] as String) + ".clock"] = .object([
                "offset": .int(clock["offset_ms"]), "drift": .double(clock["drift_ppm"]), "since": .int(clock["since_ms"]),
                "timeZone": .string(clock["time_zone"]),
            ])
        }
        if let wc = try readWatchConnectivity(db) { values["wc"] = wc }
        if try Row.fetchOne(db, sql: "SELECT 1 FROM phone_app") == nil {
            // The watch keeps a developer's watch app's `AppDefaults` in the same table.
            let defaults = try readUserDefaults(db)
            if !defaults.members.isEmpty { values["watch.appDefaults"] = .object(defaults) }
        }
        if let app = try Row.fetchOne(db, sql: "SELECT * FROM phone_app") {
            let denied = try String.fetchAll(db, sql: "SELECT type FROM phone_denied ORDER BY rowid")
            values["phone.app"] = .object([
                "state": .string(app["state"]), "locked": .bool(app["locked"]), "frontmostAtLock": .bool(app["frontmost_at_lock"]),
                "backgroundSince": (app["background_since"] as Int64?).map(JSON.int) ?? .null, "denied": .array(denied.map(JSON.string)),
            ])
            var delivery = JSONObject()
            for entry in try Row.fetchAll(db, sql: "SELECT * FROM background_delivery ORDER BY position") {
                delivery.append(entry["type"], .object([
                    "frequency": .string(entry["frequency"]), "enabled": .bool(entry["enabled"]), "stopped": .bool(entry["stopped"]),
                    "pending": .bool(entry["pending"]), "lastWakeAt": (entry["last_wake_at"] as Int64?).map(JSON.int) ?? .null,
                    "misses": .int(entry["misses"]), "wakeAt": (entry["wake_at"] as Int64?).map(JSON.int) ?? .null,
                ]))
            }
            values["phone.delivery"] = .object(delivery)
            values["phone.defaults"] = .object(try readUserDefaults(db))
            var misses = JSONObject()
            for entry in try Row.fetchAll(db, sql: "SELECT type, count FROM phone_miss_completions ORDER BY position") {
                misses.append(entry["type"], .int(entry["count"]))
            }
            values["phone.missCompletions"] = .object(misses)
            values["phone.deferred"] = .array(try String.fetchAll(db, sql: "SELECT type FROM phone_deferred ORDER BY position").map(JSON.string))
        }
        return values
    }

    /// Integer columns as members `key` (in this order).
    static func integers(_ row: Row, _ fields: [(key: String, column: String)]) -> JSONObject {
        var object = JSONObject()
        for field in fields { object.append(field.key, .int(row[field.column])) }
        return object
    }

    static func readExport(_ db: Database, nextExportAt: Int64?) throws -> JSON? {
        let saved = try QueuedRecordRow.filter(Column("queue") == QueuedRecordRow.Queue.export.rawValue).order(Column("seq")).fetchAll(db)
        let deleted = try String.fetchAll(db, sql: "SELECT id FROM export_deletions ORDER BY seq")
        guard !saved.isEmpty || !deleted.isEmpty || nextExportAt != nil else { return nil }
        return .object(["saved": .array(try saved.map { try $0.record("queued_records").json }), "deleted": .array(deleted.map(JSON.string)),
                        "nextExportAt": nextExportAt.map(JSON.int) ?? .null])
    }
}
