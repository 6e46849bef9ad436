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
    /// `--skip-invalid`: records that cannot be imported are left out and reported by line,
    /// instead of ending the import (R: E5).
    public var skipInvalid = false

    public init(path: String, since: String? = nil, until: String? = nil, types: Set<ObjectType>? = nil, skipInvalid: Bool = false) {
        self.path = path
        self.since = since
        self.until = until
        self.types = types
        self.skipInvalid = skipInvalid
    }

    public var json: JSON {
        .object(["path": .string(path), "since": since.map(JSON.string) ?? .null, "until": until.map(JSON.string) ?? .null,
                 "types": types.map { .array($0.sorted().map { .string($0.shortName) }) } ?? .null, "skipInvalid": .bool(skipInvalid)])
    }

    /// The request the turn journal spelled as `json`; a member missing or mistyped is an error naming it.
    public init(json: JSON) throws(DecodeError) {
        guard let object = json.objectValue else { throw DecodeError(path: "watch.import.request", reason: "expected an object") }
        let r = FieldReader(object, path: "watch.import.request")
        var types: Set<ObjectType>?
        if r.has("types") {
            types = Set(try r.array("types", limit: ObjectType.all.count).map { (item: JSON) throws(DecodeError) -> ObjectType in
                guard let type = item.stringValue.flatMap(ObjectType.init(name:)) else {
                    throw DecodeError(path: "watch.import.request.types", reason: "not a type: \(JSONWriter.string(item).prefix(40))")
                }
                return type
            })
        }
        self.init(path: try r.string("path"), since: try r.optionalString("since"), until: try r.optionalString("until"), types: types,
                  skipInvalid: try r.bool("skipInvalid"))
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

/// A local midnight in an export: Unix ms, and its UTC offset in minutes.
public struct ExportDay: Hashable, Sendable {
    public var start: Int64
    public var offsetMinutes: Int32

    public init(start: Int64, offsetMinutes: Int32) {
        self.start = start
        self.offsetMinutes = offsetMinutes
    }
}

/// What a reader has seen so far, by the export's own names: the summary of an import.
public struct HealthExportTally: Hashable, Sendable {
    /// Entries handed to the watch, by store type name (`heartRate`, `workout`).
    public var taken: [String: Int] = [:]
    /// Entries of modelled types left out by `--since`, `--until` or `--types`.
    public var filtered = 0
    /// `Record`s of types PairSim does not model, by the export's `type` (counted and skipped).
    public var unknown: [String: Int] = [:]
    /// The earliest local midnight of any entry of a modelled type, filtered out or not (Unix ms,
    /// and its UTC offset in minutes): the import's time zero.
    public var earliestDay: ExportDay?
    /// With `--skip-invalid`: how many records were left out, and the first 1000 as
    /// `line L, column C: why`.
    public var skipped = 0
    public var skippedRecords: [String] = []

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
        if skipped > 0 {
            fields.append("skipped", .int(Int64(skipped)))
            fields.append("skippedRecords", .array(skippedRecords.map(JSON.string)))
        }
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

    /// How many times in a row the watch stopped (a kill, a crash) with the job at `stoppedAt`
    /// entries done: at `maxStops` the job is given up, so that an export that stops the watch
    /// can never do so again on every restart (R: E4).
    public var stops = 0
    public var stoppedAt = -1
    public static let maxStops = 3

    public var json: JSON {
        .object(["request": request.json, "phase": .string(phase.rawValue), "done": .int(Int64(done)), "total": .int(Int64(total)),
                 "base": base.map(JSON.int) ?? .null, "firstDay": firstDay.map(JSON.string) ?? .null, "fingerprint": .string(fingerprint),
                 "saved": .int(Int64(saved)), "ignored": .int(Int64(ignored)), "stops": .int(Int64(stops)), "stoppedAt": .int(Int64(stoppedAt))])
    }

    package init(request: HealthImportRequest, fingerprint: String) {
        self.request = request
        self.fingerprint = fingerprint
    }

    /// The job the turn journal spelled as `json`; a member missing or out of range is an error naming it.
    public init(json: JSON) throws(DecodeError) {
        guard let object = json.objectValue else { throw DecodeError(path: "watch.import", reason: "expected an object") }
        let r = FieldReader(object, path: "watch.import")
        self.init(request: try HealthImportRequest(json: try r.required("request")), fingerprint: try r.string("fingerprint"))
        let name = try r.string("phase")
        guard let phase = Phase(rawValue: name) else { throw DecodeError(path: "watch.import.phase", reason: "unknown phase \(name)") }
        self.phase = phase
        let count = Int64(Int32.max)
        done = Int(try r.int("done", min: 0, max: count))
        total = Int(try r.int("total", min: 0, max: count))
        base = r.has("base") ? try r.int("base") : nil
        firstDay = try r.optionalString("firstDay")
        saved = Int(try r.int("saved", min: 0, max: count))
        ignored = Int(try r.int("ignored", min: 0, max: count))
        stops = Int(try r.int("stops", min: 0, max: count))
        stoppedAt = Int(try r.int("stoppedAt", min: -1, max: count))
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
