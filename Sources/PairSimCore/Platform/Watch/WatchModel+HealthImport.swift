import Foundation

/// `import-health` on the watch: the command, and the job's turns (the check, then the import).
extension WatchModel {
    /// `import-health PATH [--since D] [--until D] [--types …] [--skip-invalid]`.
    mutating func importHealth(_ args: ArgumentReader, now: EmulatedInstant) throws(CommandError) -> CommandResult {
        try args.expect(1...1, options: ["since", "until", "types"], flags: ["skip-invalid"])
        if let job = healthImport {
            throw CommandError("import-health: an import of \(job.request.path) is in progress (\(job.phase.rawValue), \(job.done) of \(job.phase == .checking ? "?" : String(job.total)))")
        }
        guard let open = exports else { throw CommandError("import-health: this watch was built without the export reader") }
        let since = try Self.day(args, "since"), until = try Self.day(args, "until")
        if let since, let until, since > until { throw CommandError("import-health: --since \(since) is after --until \(until)") }
        var types: Set<ObjectType>?
        if let text = args.line.options["types"] {
            var chosen: Set<ObjectType> = []
            for name in text.split(separator: ",", omittingEmptySubsequences: false) {
                guard let type = ObjectType(name: String(name)) else {
                    throw CommandError("import-health: unknown type \"\(name)\" in --types (one of: \(ObjectType.all.map(\.shortName).joined(separator: ", ")))")
                }
                chosen.insert(type)
            }
            types = chosen
        }
        let request = HealthImportRequest(path: args.line.arguments[0], since: since, until: until, types: types,
                                          skipInvalid: args.line.options["skip-invalid"] != nil)
        let cursor: any HealthExportCursor
        do { cursor = try open(request) } catch { throw CommandError("import-health: \(error.message)") }
        healthImport = HealthImportJob(request: request, fingerprint: cursor.fingerprint)
        importReader = HealthImportReader(cursor)
        return ok("checking \(request.path); import.finished reports the end (status shows progress)",
                  [event(.importStarted, now, ["path": .string(request.path), "request": request.json])])
    }

    static func day(_ args: ArgumentReader, _ name: String) throws(CommandError) -> String? {
        guard let text = args.line.options[name] else { return nil }
        guard CivilDate.parse(text) != nil else {
            throw CommandError("import-health: --\(name) must be a day like 2024-03-01, got \"\(text)\"")
        }
        return text
    }

    /// One turn of the import in progress: a piece of the check, or one batch saved and sent.
    mutating func continueHealthImport(now: EmulatedInstant) -> [NodeAction] {
        guard var job = healthImport else { return [] }
        if job.stops >= HealthImportJob.maxStops {
            healthImport = nil
            importReader = nil
            return [event(.importFailed, now, level: .error, [
                "path": .string(job.request.path), "phase": .string(job.phase.rawValue),
                "reason": .string("the watch stopped \(job.stops) times in a row with this import at entry \(job.done) (\(job.phase.rawValue)); given up, so that it cannot stop the watch again"),
                "saved": .int(Int64(job.saved)),
            ])]
        }
        if job.phase == .importing, !sync.hasRoom(.healthkit) { return [] }
        if importReader == nil, job.phase == .checking {
            // A restarted watch checks again from the top.
            job.done = 0
            job.base = nil
            job.firstDay = nil
        }
        do throws(HealthExportError) {
            let cursor = try importCursor(for: job)
            switch job.phase {
            case .checking:
                let entries = try cursor.next(limit: HealthImportJob.checkBatch)
                for entry in entries where job.base.map({ entry.dayStart < $0 }) ?? true {
                    job.base = entry.dayStart
                    job.firstDay = Self.dayText(entry.dayStart, offsetMinutes: entry.offsetMinutes)
                }
                job.done += entries.count
                guard entries.isEmpty else { healthImport = job; return [] }
                // The check read it all: start again from the top, importing. Time zero is the
                // export's earliest day, whatever the filters left out.
                if let day = cursor.tally.earliestDay, day.start < job.base ?? .max {
                    job.base = day.start
                    job.firstDay = Self.dayText(day.start, offsetMinutes: day.offsetMinutes)
                }
                var fields: JSONObject = ["path": .string(job.request.path), "entries": .int(Int64(job.done)),
                                          "firstDay": job.firstDay.map(JSON.string) ?? .null]
                cursor.tally.append(to: &fields)
                job.total = job.done
                job.done = 0
                job.phase = .importing
                healthImport = job
                importReader = cursor.rewound().map { HealthImportReader($0) }
                var coming: [SampleType: Int] = [:]
                for (name, count) in cursor.tally.taken { if let type = SampleType(rawValue: name) { coming[type] = count } }
                store.reserveCapacity(coming)
                return [event(.importChecked, now, fields)] + (job.total == 0 ? finishHealthImport(job, tally: cursor.tally, now: now) : [])
            case .importing:
                if let reader = importReader, reader.toSkip > 0 {
                    let skipped = try cursor.next(limit: min(HealthImportJob.checkBatch, reader.toSkip))
                    guard !skipped.isEmpty else { throw HealthExportError("\(job.request.path) ended before entry \(job.done)") }
                    reader.toSkip -= skipped.count
                    return []
                }
                let entries = try cursor.next(limit: messageBatch)
                guard !entries.isEmpty else { return finishHealthImport(job, tally: cursor.tally, now: now) }
                let base = job.base ?? 0
                var batch = HealthObjectsBatch()
                for entry in entries {
                    let start = EmulatedInstant(milliseconds: entry.start - base), end = EmulatedInstant(milliseconds: entry.end - base)
                    let uuid = UUID(imported: entry)
                    switch entry.kind {
                    case .sample(let type, let value):
                        batch.samples.append(HealthSample(uuid: uuid, type: type, start: start, end: end, value: value, source: entry.source))
                    case .workout(let activity, let active, let energy):
                        batch.workouts.append(Workout(uuid: uuid, activity: activity, start: start, end: end, activeDuration: active,
                                                      activeEnergy: energy, source: entry.source))
                    }
                }
                job.done += entries.count
                let (saved, ops) = store.save(workouts: batch.workouts, samples: batch.samples)
                job.saved += saved.samples.count + saved.workouts.count
                job.ignored += saved.ignored
                counters.samplesImported += saved.samples.count + saved.workouts.count
                healthImport = job
                return ops.map(NodeAction.persist) + sendObjects(HealthObjectsBatch(workouts: saved.workouts, samples: saved.samples), now: now,
                                                             savedAt: saved.workouts.isEmpty ? store.anchor : nil)
            }
        } catch {
            let imported = job.phase == .importing && job.saved > 0
            healthImport = nil
            importReader = nil
            var fields: JSONObject = ["path": .string(job.request.path), "phase": .string(job.phase.rawValue), "reason": .string(error.message)]
            if let line = error.line { fields.append("line", .int(Int64(line))) }
            if let column = error.column { fields.append("column", .int(Int64(column))) }
            fields.append("saved", .int(Int64(job.saved)))
            if imported { fields.append("resume", .string("the \(job.saved) objects saved stay; import-health again saves the rest (saved ones are found by UUID and skipped)")) }
            return [event(.importFailed, now, level: .error, fields)]
        }
    }

    mutating func finishHealthImport(_ job: HealthImportJob, tally: HealthExportTally, now: EmulatedInstant) -> [NodeAction] {
        healthImport = nil
        importReader = nil
        var fields: JSONObject = ["path": .string(job.request.path), "entries": .int(Int64(job.total)),
                                  "saved": .int(Int64(job.saved)), "ignored": .int(Int64(job.ignored))]
        fields.append("firstDay", job.firstDay.map(JSON.string) ?? .null)
        tally.append(to: &fields)
        return [event(.importFinished, now, fields)]
    }

    /// The job's open reader; after a restart, the file opened again and read up to where the job is.
    mutating func importCursor(for job: HealthImportJob) throws(HealthExportError) -> any HealthExportCursor {
        if let importReader { return importReader.cursor }
        guard let open = exports else { throw HealthExportError("this watch was built without the export reader") }
        let cursor = try open(job.request)
        guard cursor.fingerprint == job.fingerprint else {
            throw HealthExportError("\(job.request.path) changed since the import started (\(job.fingerprint) → \(cursor.fingerprint))")
        }
        importReader = HealthImportReader(cursor, skipping: job.phase == .importing ? job.done : 0)
        return cursor
    }

    /// `YYYY-MM-DD` of a local midnight given as Unix ms and its offset.
    static func dayText(_ unixMs: Int64, offsetMinutes: Int32) -> String {
        let local = unixMs + Int64(offsetMinutes) * 60_000
        return CivilDate.text(local >= 0 ? local / 86_400_000 : (local - 86_399_999) / 86_400_000)
    }
}
