import GRDB
import PairSimCore

/// The watch's `import-health` job (schema v3): one row while an import is in progress, written
/// with each batch so a restarted watch resumes it (R: E1).
extension StateTables {
    static func importRow(_ value: JSON) throws -> StateRows {
        let key = "watch.import"
        guard value != .null, let request = value["request"] else {
            return .single("watch_import", Self.importColumns, nil)
        }
        let types = request["types"]?.arrayValue.map { $0.compactMap(\.stringValue).joined(separator: ",") }
        return .single("watch_import", Self.importColumns, [
            try string(request, "path", key), request["since"]?.stringValue, request["until"]?.stringValue, types,
            try string(value, "phase", key), try int(value, "done", key), try int(value, "total", key),
            try int(value, "saved", key), try int(value, "ignored", key), value["base"]?.intValue,
            value["firstDay"]?.stringValue, try string(value, "fingerprint", key), request["skipInvalid"]?.boolValue ?? false,
            value["stops"]?.intValue ?? 0, value["stoppedAt"]?.intValue ?? -1,
        ])
    }

    static let importColumns = ["path", "since", "until", "types", "phase", "done", "total", "saved", "ignored", "base_ms", "first_day", "fingerprint",
                                "skip_invalid", "stops", "stopped_at"]

    /// The job as `HealthImportJob.json` spells it (same members, same order), or nil.
    static func readImport(_ db: Database) throws -> JSON? {
        guard let job = try Row.fetchOne(db, sql: "SELECT * FROM watch_import") else { return nil }
        let types = (job["types"] as String?).map { JSON.array($0.split(separator: ",").map { .string(String($0)) }) } ?? .null
        let request: JSONObject = ["path": .string(job["path"]), "since": (job["since"] as String?).map(JSON.string) ?? .null,
                                   "until": (job["until"] as String?).map(JSON.string) ?? .null, "types": types,
                                   "skipInvalid": .bool(job["skip_invalid"] as Bool? ?? false)]
        var object: JSONObject = ["request": .object(request), "phase": .string(job["phase"])]
        object.append("done", .int(job["done"]))
        object.append("total", .int(job["total"]))
        object.append("base", (job["base_ms"] as Int64?).map(JSON.int) ?? .null)
        object.append("firstDay", (job["first_day"] as String?).map(JSON.string) ?? .null)
        object.append("fingerprint", .string(job["fingerprint"]))
        object.append("saved", .int(job["saved"]))
        object.append("ignored", .int(job["ignored"]))
        object.append("stops", .int(job["stops"]))
        object.append("stoppedAt", .int(job["stopped_at"]))
        return .object(object)
    }
}
