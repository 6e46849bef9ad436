import Foundation

/// One entry of an Apple Health export as the importer hands it to the watch (R: E1): a sample of a
/// type PairSim models, or a workout. Times are Unix milliseconds; `dayStart` is the local midnight
/// (in the date's own UTC offset) of the day `start` falls on.
public struct ExportEntry: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        case sample(SampleType, value: Double)
        case workout(activity: String, active: EmulatedDuration, energy: Double?)
    }

    public var kind: Kind
    public var start: Int64
    public var end: Int64
    public var dayStart: Int64
    /// The date's UTC offset, in minutes east.
    public var offsetMinutes: Int32
    public var source: ObjectSource

    public init(kind: Kind, start: Int64, end: Int64, dayStart: Int64, offsetMinutes: Int32, source: ObjectSource) {
        self.kind = kind
        self.start = start
        self.end = end
        self.dayStart = dayStart
        self.offsetMinutes = offsetMinutes
        self.source = source
    }

    /// The store's name for the entry's type (`heartRate`, `workout`).
    public var typeName: String {
        switch kind {
        case .sample(let type, _): type.rawValue
        case .workout: "workout"
        }
    }
}

/// What `import-health` was asked for.
public struct HealthImportRequest: Hashable, Sendable {
    /// The export: `export.xml`, or the zip the Health app writes (its `apple_health_export/export.xml`).
    public var path: String
    /// Only entries starting on or after this local day (`YYYY-MM-DD`).
    public var since: String?
    /// Only entries starting on or before this local day (`YYYY-MM-DD`).
    public var until: String?
    /// Only these types; nil: every type PairSim models.
    public var types: Set<ObjectType>?

    public init(path: String, since: String? = nil, until: String? = nil, types: Set<ObjectType>? = nil) {
        self.path = path
        self.since = since
        self.until = until
        self.types = types
    }

    public var json: JSON {
        .object(["path": .string(path), "since": since.map(JSON.string) ?? .null, "until": until.map(JSON.string) ?? .null,
                 "types": types.map { .array($0.sorted().map { .string($0.shortName) }) } ?? .null])
    }

    public init?(json: JSON) {
        guard let path = json["path"]?.stringValue else { return nil }
        let types = json["types"]?.arrayValue.map { Set($0.compactMap { $0.stringValue.flatMap(ObjectType.init(name:)) }) }
        self.init(path: path, since: json["since"]?.stringValue, until: json["until"]?.stringValue, types: types)
    }
}

/// A bad export, or one that cannot be read: the message names the file and the place
/// (`export.xml line 12, column 40: …`).
public struct HealthExportError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    /// 1-based line and column in export.xml, when the problem is at a place in it.
    public var line: Int?
    public var column: Int?

    public init(_ message: String, line: Int? = nil, column: Int? = nil) {
        self.message = message
        self.line = line
        self.column = column
    }

    public var description: String { message }
}

/// What a reader has seen so far, by the export's own names: the summary of an import.
public struct HealthExportTally: Hashable, Sendable {
    /// Entries handed to the watch, by store type name (`heartRate`, `workout`).
    public var taken: [String: Int] = [:]
    /// Entries of modelled types left out by `--since`, `--until` or `--types`.
    public var filtered = 0
    /// `Record`s of types PairSim does not model, by the export's `type` (counted and skipped).
    public var unknown: [String: Int] = [:]

    public init() {}

    /// Adds `byType`, `filtered`, `unknown` and `unknownTypes` to an event's fields.
    public func append(to fields: inout JSONObject) {
        var taken: JSONObject = [:]
        for key in self.taken.keys.sorted() { taken.append(key, .int(Int64(self.taken[key]!))) }
        var unknown: JSONObject = [:]
        for key in self.unknown.keys.sorted() { unknown.append(key, .int(Int64(self.unknown[key]!))) }
        fields.append("byType", .object(taken))
        fields.append("filtered", .int(Int64(filtered)))
        fields.append("unknown", .int(Int64(self.unknown.values.reduce(0, +))))
        fields.append("unknownTypes", .object(unknown))
    }
}

/// Reads an export from its start, entry by entry, never holding it whole.
public protocol HealthExportCursor: AnyObject, Sendable {
    /// The next entries (at most `limit`) of the requested types and days; empty at the end.
    func next(limit: Int) throws(HealthExportError) -> [ExportEntry]
    /// Everything seen so far.
    var tally: HealthExportTally { get }
    /// What identifies the file's contents (size and modification time), to notice it changed
    /// between the check and the import, or across a restart.
    var fingerprint: String { get }
    /// After the last entry: a cursor over the same entries again from the first, without reading
    /// the file a second time; nil when there is none (the file is opened again).
    func rewound() -> (any HealthExportCursor)?
}

/// Opens an export for reading; refuses at once what is not an export (missing file, not XML or a
/// zip, no `export.xml` in the zip, another root element).
public typealias HealthExportOpener = @Sendable (HealthImportRequest) throws(HealthExportError) -> any HealthExportCursor

/// An `import-health` in progress. It runs in two passes over the file, a bounded piece per turn so
/// the node keeps answering: the check reads everything (XML, dates, values, units) and finds the
/// first day without touching the store, so a bad export changes nothing; the import then saves
/// and sends one message-sized batch per turn, as `write-samples` does. The job is persisted: a
/// restarted watch checks again from the start, or skips what it had already imported.
public struct HealthImportJob: Hashable, Sendable {
    public enum Phase: String, Hashable, Sendable { case checking, importing }

    public var request: HealthImportRequest
    public var phase: Phase = .checking
    /// Entries read so far in this phase.
    public var done = 0
    /// Entries the check found (the import's total).
    public var total = 0
    /// Unix ms of the first day's local midnight: emulated time zero in the import.
    public var base: Int64?
    /// That day, `YYYY-MM-DD`, as the export dates it.
    public var firstDay: String?
    public var fingerprint: String
    /// Objects saved (new to the store) and ignored (already there, e.g. an earlier import).
    public var saved = 0
    public var ignored = 0

    /// Entries the check reads per turn; a batch of the import is one message.
    static let checkBatch = 20_000

    public var json: JSON {
        .object(["request": request.json, "phase": .string(phase.rawValue), "done": .int(Int64(done)), "total": .int(Int64(total)),
                 "base": base.map(JSON.int) ?? .null, "firstDay": firstDay.map(JSON.string) ?? .null, "fingerprint": .string(fingerprint),
                 "saved": .int(Int64(saved)), "ignored": .int(Int64(ignored))])
    }

    init(request: HealthImportRequest, fingerprint: String) {
        self.request = request
        self.fingerprint = fingerprint
    }

    public init?(json: JSON) {
        guard let request = json["request"].flatMap(HealthImportRequest.init(json:)),
              let phase = json["phase"]?.stringValue.flatMap(Phase.init(rawValue:)), let done = json["done"]?.intValue,
              let total = json["total"]?.intValue, let fingerprint = json["fingerprint"]?.stringValue else { return nil }
        self.init(request: request, fingerprint: fingerprint)
        self.phase = phase
        self.done = Int(done)
        self.total = Int(total)
        base = json["base"]?.intValue
        firstDay = json["firstDay"]?.stringValue
        saved = Int(json["saved"]?.intValue ?? 0)
        ignored = Int(json["ignored"]?.intValue ?? 0)
    }

    var progressJSON: JSON {
        .object(["path": .string(request.path), "phase": .string(phase.rawValue), "done": .int(Int64(done)),
                 "total": .int(Int64(total)), "saved": .int(Int64(saved)), "ignored": .int(Int64(ignored))])
    }
}

/// The open file behind a job: not persisted (a restarted watch opens it again).
final class HealthImportReader: @unchecked Sendable {
    let cursor: any HealthExportCursor
    /// Entries a reopened file still has to be read past (what a restarted watch had saved), a
    /// check-sized piece per turn so the watch keeps answering.
    var toSkip = 0
    init(_ cursor: any HealthExportCursor, skipping: Int = 0) {
        self.cursor = cursor
        toSkip = skipping
    }
}

extension UUID {
    /// The UUID an imported object gets: time-ordered like a UUIDv7 (the entry's own Unix time in
    /// the first 48 bits), the rest a hash of what the entry says. Apple's export carries no UUIDs;
    /// this makes importing the same data again save nothing new, whatever `--since`, `--until` or
    /// `--types` chose and whichever day the import starts from.
    init(imported entry: ExportEntry) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ value: UInt64) {
            hash = (hash ^ value) &* 0x0000_0100_0000_01b3
            hash ^= hash >> 29
        }
        switch entry.kind {
        case .sample(let type, let value):
            mix(UInt64(type.index))
            mix(value.bitPattern)
        case .workout(let activity, let active, let energy):
            mix(100)
            for byte in activity.utf8 { mix(UInt64(byte)) }
            mix(UInt64(bitPattern: active.milliseconds))
            mix(energy?.bitPattern ?? 0)
        }
        mix(UInt64(bitPattern: entry.start))
        mix(UInt64(bitPattern: entry.end))
        for byte in entry.source.name.utf8 { mix(UInt64(byte)) }
        var random = SplitMix64(seed: hash)
        self = UUIDGenerator.version7(unixMilliseconds: UInt64(max(0, entry.start)), random: &random)
    }
}

extension WatchModel {
    /// `import-health PATH [--since D] [--until D] [--types …]`.
    mutating func importHealth(_ args: ArgumentReader, now: EmulatedInstant) throws(CommandError) -> CommandResult {
        try args.expect(1...1, options: ["since", "until", "types"])
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
        let request = HealthImportRequest(path: args.line.arguments[0], since: since, until: until, types: types)
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
                // The check read it all: start again from the top, importing.
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
                let entries = try cursor.next(limit: max(1, topology.wire.maxItemsPerMessage / 2))
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
                return ops.map(NodeAction.persist) + sendObjects(HealthObjectsBatch(workouts: saved.workouts, samples: saved.samples), now: now)
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
