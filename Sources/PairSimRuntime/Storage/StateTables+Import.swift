import PairSimCore

/// The watch's `import-health` job (schema v3): one row while an import is in progress, written
/// with each batch so a restarted watch resumes it (R: E1).
extension StateTables {
    static func importRow(_ job: HealthImportJob?) -> StateRows {
        .single("watch_import", importColumns, job.map { job in
            let request = job.request
            return [request.path, request.since, request.until, request.types.map { $0.sorted().map(\.shortName).joined(separator: ",") },
                    job.phase.rawValue, Int64(job.done), Int64(job.total), Int64(job.saved), Int64(job.ignored), job.base, job.firstDay,
                    job.fingerprint, request.skipInvalid, Int64(job.stops), Int64(job.stoppedAt)]
        })
    }

    static let importColumns = ["path", "since", "until", "types", "phase", "done", "total", "saved", "ignored", "base_ms", "first_day", "fingerprint",
                                "skip_invalid", "stops", "stopped_at"]

    /// The job as `HealthImportJob` keeps it, or nil.
    static func readImport(_ db: Database) throws -> HealthImportJob? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM watch_import") else { return nil }
        let types = try (row["types"] as String?).map { list in
            Set(try list.split(separator: ",").map { name in
                guard let type = ObjectType(name: String(name)) else { throw RuntimeError("watch_import.types: unknown type \(name)") }
                return type
            })
        }
        let phase: String = row["phase"]
        guard let kept = HealthImportJob.Phase(rawValue: phase) else { throw RuntimeError("watch_import.phase: unknown phase \(phase)") }
        var job = HealthImportJob(request: HealthImportRequest(path: row["path"], since: row["since"], until: row["until"], types: types,
                                                               skipInvalid: row["skip_invalid"] as Bool? ?? false),
                                  fingerprint: row["fingerprint"])
        job.phase = kept
        job.done = Int(row["done"] as Int64)
        job.total = Int(row["total"] as Int64)
        job.base = row["base_ms"]
        job.firstDay = row["first_day"]
        job.saved = Int(row["saved"] as Int64)
        job.ignored = Int(row["ignored"] as Int64)
        job.stops = Int(row["stops"] as Int64)
        job.stoppedAt = Int(row["stopped_at"] as Int64)
        return job
    }
}
