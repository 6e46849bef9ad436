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

    // MARK: Writing

    /// `previous`: the value this key last had in the database, when known — then only the rows
    /// that differ are written (R: K1, K7); unknown, the value's tables are written whole.
    /// `previousRows`: the rows this returned for `previous`, when kept (else made again from it).
    /// Returns the rows written for a value kept in tables of its own (nil: a scalar or `sync`).
    @discardableResult
    static func write(_ key: String, _ value: JSON, _ db: Database, previous: JSON? = nil, previousRows: [StateRows]? = nil) throws -> [StateRows]? {
        if let scalar = scalars.first(where: { $0.key == key }) {
            let stored: DatabaseValueConvertible? = switch (scalar.kind, value) {
            case (_, .null): nil
            case (.int, .int(let number)): number
            case (.bool, .bool(let flag)): flag
            default: throw RuntimeError("state value \(key): expected \(scalar.kind == .int ? "an integer" : "a boolean"), got \(value.kindName)")
            }
            // Cached: written nearly every turn (store.anchor), so compiling it each time showed (~20 µs a turn).
            try db.cachedStatement(sql: "UPDATE node_state SET \(scalar.column) = ? WHERE id = 1").execute(arguments: [stored])
            return nil
        }
        switch key {
        case "sync":
            try writeSync(value, previous: previous, db)
            return nil
        case "watch.hostedSessions":
            try db.execute(sql: "UPDATE watch_hosted SET sessions = ? WHERE id = 1", arguments: [value.intValue ?? 0])
            return nil
        case "cloudkit.export" where previous?["nextExportAt"] != value["nextExportAt"] || previous == nil:
            try db.execute(sql: "UPDATE node_state SET next_export_at = ? WHERE id = 1", arguments: [value["nextExportAt"]?.intValue])
        default: break
        }
        let tables = try rows(key, value)
        let before = try previousRows ?? previous.map { try rows(key, $0) }
        for (index, table) in tables.enumerated() { try table.write(over: before?[index], db) }
        return tables
    }

    /// The rows of each table that holds `key`'s value, always the same tables in the same order.
    static func rows(_ key: String, _ value: JSON) throws -> [StateRows] {
        switch key {
        case "cloudkit.export":
            let batch = try RecordsBatch(persisted: value.objectValue ?? [:])
            return [.keyed("queued_records", key: ["id"], order: nil, ["id", "queue", "exercise", "start_ms", "duration_ms", "calories", "workout_id", "source"],
                           batch.saved.map { record -> [DatabaseValueConvertible?] in
                               [record.id.text, QueuedRecordRow.Queue.export.rawValue, record.exercise, record.start.milliseconds,
                                record.duration.milliseconds, record.calories, record.healthKitWorkoutID?.text, record.source.name]
                           }, scope: ("queue", QueuedRecordRow.Queue.export.rawValue)),
                    .keyed("export_deletions", key: ["id"], order: nil, ["id"], batch.deleted.map { [$0.text] })]
        case "watch.session":
            let live = value["live"]
            return [.single("watch_session", ["state", "activity", "start_ms", "number", "recovered", "has_builder", "was_paused"],
                            [try string(value, "state", key), live?["activity"]?.stringValue, live?["start"]?.intValue, live?["number"]?.intValue,
                             live?["recovered"]?.boolValue, live?["hasBuilder"]?.boolValue, value["wasPaused"]?.boolValue]),
                    .positional("watch_session_exercises", ["name"], (live?["exercises"]?.arrayValue ?? []).map { [$0.stringValue] }),
                    .positional("watch_session_segments", ["start_ms", "end_ms"], (live?["segments"]?.arrayValue ?? []).map { segment in
                        [segment.arrayValue?.first?.intValue, segment.arrayValue?.last?.intValue]
                    })]
        case "watch.plan":
            return [.single("watch_plan", ["remaining", "every_ms", "duration_ms", "next_at", "generated"], value == .null ? nil :
                                [try int(value, "remaining", key), try int(value, "every", key), try int(value, "duration", key),
                                 try int(value, "nextAt", key), try int(value, "generated", key)])]
        case "watch.bulk":
            return [.single("watch_bulk", ["type", "total", "done", "first_ms", "span_ms", "random_state"], value == .null ? nil :
                                [try string(value, "type", key), try int(value, "total", key), try int(value, "done", key),
                                 try int(value, "first", key), try int(value, "span", key), try int(value, "random", key)])]
        case "watch.import": return [try importRow(value)]
        case "phone.clock", "watch.clock":
            let clock = value.objectValue ?? [:]
            return [.single("device_clock", ["node", "offset_ms", "drift_ppm", "since_ms", "time_zone"],
                            [String(key.prefix { $0 != "." }), clock["offset"]?.intValue ?? 0, clock["drift"]?.doubleValue ?? 0,
                             clock["since"]?.intValue ?? 0, clock["timeZone"]?.stringValue ?? "UTC"])]
        case "watch.partitions":
            return [.keyed("watch_partitions", key: ["reason"], order: nil, ["reason"], (value.arrayValue ?? []).map { [$0.stringValue] }, ordered: false)]
        case "watch.hostedWorkout": return [try hostedWorkoutRow(value)]
        case "wc": return try watchConnectivityRows(value)
        case "phone.app":
            return [.single("phone_app", ["state", "locked", "frontmost_at_lock", "background_since"],
                            [try string(value, "state", key), value["locked"]?.boolValue ?? false, value["frontmostAtLock"]?.boolValue ?? false,
                             value["backgroundSince"]?.intValue]),
                    .keyed("phone_denied", key: ["type"], order: nil, ["type"], (value["denied"]?.arrayValue ?? []).map { [$0.stringValue] })]
        case "phone.delivery":
            return [.keyed("background_delivery", key: ["type"], order: "position",
                           ["type", "frequency", "enabled", "stopped", "pending", "last_wake_at", "misses", "wake_at"],
                           try (value.objectValue?.members ?? []).map { member -> [DatabaseValueConvertible?] in
                               let entry = member.value
                               return [member.key, try string(entry, "frequency", key), entry["enabled"]?.boolValue ?? false,
                                       entry["stopped"]?.boolValue ?? false, entry["pending"]?.boolValue ?? false, entry["lastWakeAt"]?.intValue,
                                       entry["misses"]?.intValue ?? 0, entry["wakeAt"]?.intValue]
                           })]
        case "phone.defaults", "watch.appDefaults":
            return [.keyed("user_defaults", key: ["key"], order: "position", ["key", "value"],
                           (value.objectValue?.members ?? []).map { [$0.key, JSONWriter.string($0.value)] })]
        case "phone.missCompletions":
            return [.keyed("phone_miss_completions", key: ["type"], order: "position", ["type", "count"],
                           (value.objectValue?.members ?? []).map { [$0.key, $0.value.intValue ?? 0] })]
        case "phone.deferred":
            return [.positional("phone_deferred", ["type"], (value.arrayValue ?? []).map { [$0.stringValue] })]
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
    static func hostedWorkoutRow(_ value: JSON) throws -> StateRows {
        let key = "watch.hostedWorkout"
        return .single("watch_hosted_workout", ["number", "activity", "state", "active_ms", "readings", "samples", "energy", "finished", "random_state",
                                                "steady", "noise", "collecting", "collection_start_ms", "collection_end_ms", "active_since_ms", "start_ms"],
                       value == .null ? nil : [
                           try int(value, "number", key), try string(value, "activity", key), try int(value, "state", key),
                           try int(value, "active", key), try int(value, "readings", key), try int(value, "samples", key),
                           value["energy"]?.doubleValue ?? 0, value["finished"]?.boolValue ?? false, try int(value, "random", key),
                           value["steady"]?.doubleValue ?? 0, value["noise"]?.doubleValue ?? 0,
                           value["collecting"]?.arrayValue.map { $0.compactMap(\.stringValue).joined(separator: ",") },
                           value["collectionStart"]?.intValue, value["collectionEnd"]?.intValue, value["activeSince"]?.intValue,
                           value["startDate"]?.intValue,
                       ])
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
