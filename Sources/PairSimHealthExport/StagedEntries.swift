#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PairSimCore

/// The entries the check read, kept in an anonymous temporary file (48 bytes each) so the import
/// reads them back instead of parsing export.xml a second time: the parse was half of an import's
/// time (`scripts/bench.sh replay`). Memory stays flat; the file is gone when the cursor is, and
/// a watch restarted mid-import reads the export again instead (the job's position says where).
final class StagedEntries: @unchecked Sendable {
    struct Row {
        var start: Int64
        var end: Int64
        var dayStart: Int64
        /// The sample's value, or the workout's energy (NaN: none).
        var value: Double
        var active: Int64
        var offset: Int32
        var source: UInt16
        /// A sample type's index, or 1000 + the workout's activity index.
        var kind: UInt16
    }

    let file: UnsafeMutablePointer<FILE>
    var buffer: [Row] = []
    var sources: [ObjectSource] = []
    var sourceIndex: [ObjectSource: UInt16] = [:]
    var activities: [String] = []
    var activityIndex: [String: UInt16] = [:]
    var last: (source: ObjectSource, index: UInt16)?
    var failed = false

    init?() {
        guard let file = tmpfile() else { return nil }
        self.file = file
        buffer.reserveCapacity(4_096)
    }

    deinit { fclose(file) }

    func add(_ entry: ExportEntry) {
        guard !failed else { return }
        let source: UInt16
        if let last, last.source == entry.source {
            source = last.index
        } else if let known = sourceIndex[entry.source] {
            source = known
        } else {
            guard sources.count < Int(UInt16.max) else { failed = true; return }
            source = UInt16(sources.count)
            sources.append(entry.source)
            sourceIndex[entry.source] = source
        }
        last = (entry.source, source)
        var row = Row(start: entry.start, end: entry.end, dayStart: entry.dayStart, value: .nan, active: 0,
                      offset: entry.offsetMinutes, source: source, kind: 0)
        switch entry.kind {
        case .sample(let type, let value):
            row.kind = UInt16(type.index)
            row.value = value
        case .workout(let activity, let active, let energy):
            let index: UInt16
            if let known = activityIndex[activity] {
                index = known
            } else {
                guard activities.count < 60_000 else { failed = true; return }
                index = UInt16(activities.count)
                activities.append(activity)
                activityIndex[activity] = index
            }
            row.kind = 1_000 + index
            row.value = energy ?? .nan
            row.active = active.milliseconds
        }
        buffer.append(row)
        if buffer.count == 4_096 { flush() }
    }

    func flush() {
        guard !buffer.isEmpty, !failed else { return }
        let count = buffer.withUnsafeBytes { fwrite($0.baseAddress, MemoryLayout<Row>.stride, buffer.count, file) }
        if count != buffer.count { failed = true }
        buffer.removeAll(keepingCapacity: true)
    }

    /// A cursor over what was written, from the first entry.
    func cursor(tally: HealthExportTally, fingerprint: String) -> (any HealthExportCursor)? {
        flush()
        guard !failed, fflush(file) == 0 else { return nil }
        rewind(file)
        return StagedCursor(self, tally: tally, fingerprint: fingerprint)
    }
}

/// Reads staged entries back, in order.
final class StagedCursor: HealthExportCursor, @unchecked Sendable {
    let staged: StagedEntries
    let tally: HealthExportTally
    let fingerprint: String
    var rows: [StagedEntries.Row] = []

    init(_ staged: StagedEntries, tally: HealthExportTally, fingerprint: String) {
        self.staged = staged
        self.tally = tally
        self.fingerprint = fingerprint
    }

    func next(limit: Int) throws(HealthExportError) -> [ExportEntry] {
        let zero = StagedEntries.Row(start: 0, end: 0, dayStart: 0, value: 0, active: 0, offset: 0, source: 0, kind: 0)
        if rows.count < limit { rows = Array(repeating: zero, count: limit) }
        let count = rows.withUnsafeMutableBytes { fread($0.baseAddress, MemoryLayout<StagedEntries.Row>.stride, limit, staged.file) }
        if count < limit, ferror(staged.file) != 0 { throw HealthExportError("the import's temporary file could not be read back") }
        var entries: [ExportEntry] = []
        entries.reserveCapacity(count)
        for row in rows[..<count] {
            let kind: ExportEntry.Kind = row.kind >= 1_000
                ? .workout(activity: staged.activities[Int(row.kind - 1_000)], active: .milliseconds(row.active), energy: row.value.isNaN ? nil : row.value)
                : .sample(SampleType.allCases[Int(row.kind)], value: row.value)
            entries.append(ExportEntry(kind: kind, start: row.start, end: row.end, dayStart: row.dayStart, offsetMinutes: row.offset,
                                       source: staged.sources[Int(row.source)]))
        }
        return entries
    }

    func rewound() -> (any HealthExportCursor)? { nil }
}

/// Cursors one after another (the two halves of an export read at once).
final class ChainedCursor: HealthExportCursor, @unchecked Sendable {
    var cursors: [any HealthExportCursor]
    let tally: HealthExportTally
    let fingerprint: String

    init(_ cursors: [any HealthExportCursor], tally: HealthExportTally, fingerprint: String) {
        self.cursors = cursors
        self.tally = tally
        self.fingerprint = fingerprint
    }

    func next(limit: Int) throws(HealthExportError) -> [ExportEntry] {
        var entries: [ExportEntry] = []
        while entries.count < limit, let first = cursors.first {
            let more = try first.next(limit: limit - entries.count)
            if more.isEmpty { cursors.removeFirst() } else { entries += more }
        }
        return entries
    }

    func rewound() -> (any HealthExportCursor)? { nil }
}

/// The second half of a large export.xml, read and checked on a thread of its own while the
/// reader that opened the file reads the first: the check is a parse of the whole file, and the
/// phone has nothing to do until it ends, so the second core would otherwise sit idle. Its
/// entries are staged like the first half's; what it found is merged when the first half is done,
/// so entries, counts and the first error come out exactly as a read from start to end gives them.
final class SecondHalf: @unchecked Sendable {
    let lock = NSLock()
    var cancelled = false
    let done = DispatchSemaphore(value: 0)
    var reader: HealthExportReader?
    var openError: HealthExportError?

    init(request: HealthImportRequest, path: String, name: String, from offset: Int) {
        let thread = Thread { [self] in
            do throws(HealthExportError) {
                let reader = try HealthExportReader(segment: request, path: path, name: name, from: offset)
                self.reader = reader
                while !lock.withLock({ cancelled }) {
                    if try reader.next(limit: 20_000).isEmpty { break }
                }
            } catch {
                if reader == nil { openError = error }
            }
            done.signal()
        }
        thread.name = "pairsim.export-second-half"
        thread.start()
    }

    /// Waits for the thread; its reader (nil if the file could not be opened: `openError`).
    func finish() -> HealthExportReader? {
        done.wait()
        return reader
    }

    func cancel() {
        lock.withLock { cancelled = true }
        done.wait()
    }
}
