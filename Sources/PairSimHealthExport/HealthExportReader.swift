import CArchive
import CExportScan
import Foundation
import PairSimCore

/// Streams an Apple Health export — `export.xml`, the Health app's zip, or the unzipped
/// `apple_health_export` folder — into `ExportEntry`s for `import-health` (R: E1, E3).
///
/// A checking XML scanner of our own (`CExportScan`; why not libxml2 is measured there) is fed
/// 64 KB at a time (from the file, or inflated by libarchive from the zip), so memory stays flat
/// whatever the export's size. Foundation's `XMLParser` is not used: on Linux it crashes on the
/// `<!ATTLIST …>` declarations every export's DTD has. Anything that is not right — XML, a date, a
/// number, a unit, a value outside the wire's range — stops the read with the place in export.xml
/// (line and column).
public final class HealthExportReader: HealthExportCursor, @unchecked Sendable {
    /// What the nodes use to open exports.
    public static let opener: HealthExportOpener = { (request: HealthImportRequest) throws(HealthExportError) -> any HealthExportCursor in
        try HealthExportReader(request)
    }

    let request: HealthImportRequest
    /// How errors name the file: `export.xml`, or `export.zip (apple_health_export/export.xml)`.
    let name: String
    public let fingerprint: String
    var input: Input
    /// Allocated once the file is open (an init that throws before never owns one).
    let scanner: UnsafeMutablePointer<pxs_scanner>
    /// Attribute values with references, decoded for the element being read.
    var decoded: [UnsafeMutableBufferPointer<UInt8>] = []
    var pending: [ExportEntry] = []
    /// What this pass read, for `rewound()`.
    var staged = StagedEntries()
    var ended = false
    var failure: HealthExportError?
    var bytesRead = 0
    /// Where a located failure is, before its line is put in the message (the second half's
    /// reader learns its first line only when the first half is read).
    var located: (what: String, line: Int, column: Int)?

    // A large export.xml is read in two halves at once (see `SecondHalf`): this reader stops at
    // `limit` and then hands out what the other thread read.
    /// Files at least this large are read in two halves.
    public static let parallelThreshold = 16 << 20
    var second: SecondHalf?
    var limit: Int?
    var secondCursor: (any HealthExportCursor)?

    // What the parse is in.
    var depth = 0
    var root = false
    /// The `Workout` being read: taken at its end tag, once its statistics are in.
    var workout: ExportEntry?

    // Filters, as bytes of `YYYY-MM-DD` and a mask over `ObjectType.all`.
    let since: [UInt8]?
    let until: [UInt8]?
    let wanted: [Bool]

    // Counts, by `ObjectType.all` index; unknown types by name.
    var taken = [Int](repeating: 0, count: ObjectType.all.count)
    var filtered = 0
    var unknown: [String: Int] = [:]
    var lastUnknown: (bytes: [UInt8], name: String) = ([], "")
    var lastSource: (bytes: [UInt8], source: ObjectSource) = ([], .watchApp)
    /// The earliest local midnight (Unix ms, with its UTC offset) of any entry of a modelled type,
    /// whether `--since`, `--until` or `--types` leave it out or not: time zero of every import of
    /// this export, so that a part imported first and the whole later line up (R: E5).
    var earliestDay: ExportDay?
    /// With `--skip-invalid`: the records left out, and the first `maxSkippedListed` of them by line.
    var skippedCount = 0
    var skippedRecords: [String] = []
    static let maxSkippedListed = 1_000

    enum Input {
        case file(Int32)
        case zip(OpaquePointer)
    }

    public var tally: HealthExportTally {
        var tally = HealthExportTally()
        for (index, type) in ObjectType.all.enumerated() where taken[index] > 0 { tally.taken[type.name] = taken[index] }
        tally.filtered = filtered
        tally.unknown = unknown
        tally.earliestDay = earliestDay
        tally.skipped = skippedCount
        tally.skippedRecords = skippedRecords
        return tally
    }

    /// Opens an export; a plain export.xml of `parallelThreshold` bytes or more is read in two halves.
    public init(_ request: HealthImportRequest, parallelThreshold: Int = HealthExportReader.parallelThreshold) throws(HealthExportError) {
        self.request = request
        since = request.since.map { Array($0.utf8) }
        until = request.until.map { Array($0.utf8) }
        wanted = ObjectType.all.map { request.types?.contains($0) ?? true }
        var path = request.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw HealthExportError("\(path): no such file")
        }
        if isDirectory.boolValue {
            // The unzipped folder, or the folder it is in.
            let inside = ["export.xml", "apple_health_export/export.xml"].map { (path as NSString).appendingPathComponent($0) }
            guard let found = inside.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
                throw HealthExportError("\(path): a folder without export.xml or apple_health_export/export.xml")
            }
            path = found
        }
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let size = (attributes?[.size] as? NSNumber)?.int64Value ?? -1
        let modified = (attributes?[.modificationDate] as? Date).map { Int64($0.timeIntervalSince1970 * 1000) } ?? -1
        fingerprint = "\(size) bytes, modified \(modified)"
        // Checked before opening (opening a socket fails with a confusing error), and again after,
        var before = stat()
        if stat(path, &before) == 0, before.st_mode & S_IFMT != S_IFREG {
            throw HealthExportError("\(path): not a regular file (a named pipe, a device or a socket is not an export)")
        }
        // Non-blocking, then checked: opening a named pipe for reading waits for a writer, and
        // reading a device never ends (R: E4). Only a regular file is an export.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw HealthExportError("\(path): cannot be read (\(String(cString: strerror(errno))))") }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw HealthExportError("\(path): not a regular file (a named pipe, a device or a socket is not an export)")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        var magic = [UInt8](repeating: 0, count: 4)
        let got = pread(fd, &magic, 4, 0)
        if got == 4, magic == [0x50, 0x4B, 0x03, 0x04] {
            close(fd)
            let (archive, entry) = try Self.openZip(path)
            input = .zip(archive)
            name = "\(path) (\(entry))"
        } else {
            input = .file(fd)
            name = path
        }
        scanner = .allocate(capacity: 1)
        try start()
        if case .file = input, size >= parallelThreshold, let split = Self.splitPoint(fd, size: Int(size)) {
            second = SecondHalf(request: request, path: path, name: name, from: split)
            limit = split
        }
    }

    /// Internal: the reader of a second half, from `offset` (a line start) to the end, as if
    /// inside `<HealthData>`.
    init(segment request: HealthImportRequest, path: String, name: String, from offset: Int) throws(HealthExportError) {
        self.request = request
        since = request.since.map { Array($0.utf8) }
        until = request.until.map { Array($0.utf8) }
        wanted = ObjectType.all.map { request.types?.contains($0) ?? true }
        self.name = name
        fingerprint = ""
        let fd = open(path, O_RDONLY)
        guard fd >= 0, lseek(fd, off_t(offset), SEEK_SET) == off_t(offset) else {
            if fd >= 0 { close(fd) }
            throw HealthExportError("\(path): cannot be read (\(String(cString: strerror(errno))))")
        }
        input = .file(fd)
        scanner = .allocate(capacity: 1)
        pxs_init(scanner)
        let prefix = Array("<HealthData>\n".utf8)
        let space = pxs_space(scanner, prefix.count)!
        prefix.withUnsafeBufferPointer { _ = memcpy(space, $0.baseAddress!, prefix.count) }
        pxs_commit(scanner, prefix.count)
    }

    deinit {
        second?.cancel()
        pxs_free(scanner)
        scanner.deallocate()
        for buffer in decoded { buffer.deallocate() }
        switch input {
        case .file(let fd): close(fd)
        case .zip(let archive): archive_read_free(archive)
        }
    }

    /// Opens the zip and reads on to its `export.xml` (Apple's is `apple_health_export/export.xml`).
    static func openZip(_ path: String) throws(HealthExportError) -> (OpaquePointer, String) {
        guard let archive = archive_read_new() else { throw HealthExportError("\(path): cannot start reading the zip") }
        archive_read_support_format_zip(archive)
        guard archive_read_open_filename(archive, path, 1 << 16) == ARCHIVE_OK else {
            let reason = String(cString: archive_error_string(archive))
            archive_read_free(archive)
            throw HealthExportError("\(path): not a readable zip (\(reason))")
        }
        var entry: OpaquePointer?
        while true {
            let status = archive_read_next_header(archive, &entry)
            if status == ARCHIVE_EOF { break }
            guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let entry else {
                let reason = String(cString: archive_error_string(archive))
                archive_read_free(archive)
                throw HealthExportError("\(path): the zip is damaged or truncated (\(reason))")
            }
            let name = archive_entry_pathname(entry).map { String(cString: $0) } ?? ""
            if name == "export.xml" || name.hasSuffix("/export.xml") { return (archive, name) }
        }
        archive_read_free(archive)
        throw HealthExportError("\(path): a zip without apple_health_export/export.xml (is it the Health app's export?)")
    }

    /// Reads up to the root element, so a file that is not an export is refused when the command
    /// is given.
    func start() throws(HealthExportError) {
        pxs_init(scanner)
        while !ended, !root { try step() }
        // The rest of that chunk too, not only up to the root: what is wrong near the top is refused now.
        let firstChunk = bytesRead
        while !ended, bytesRead == firstChunk, scanner.pointee.start < scanner.pointee.end { try step() }
        if !root { throw fail(HealthExportError("\(name): not an Apple Health export (no <HealthData> element)")) }
    }

    public func next(limit: Int) throws(HealthExportError) -> [ExportEntry] {
        while pending.count < limit, !ended { try step() }
        if let failure { throw failure }
        if pending.count < limit, let secondCursor {
            // Across the junction of the halves, batches are filled as one pass fills them.
            let more = try secondCursor.next(limit: limit - pending.count)
            defer { pending.removeAll(keepingCapacity: true) }
            return pending + more
        }
        let count = min(limit, pending.count)
        if count == pending.count {
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        let taken = Array(pending[..<count])
        pending.removeFirst(count)
        return taken
    }

    /// One event of the scanner: an element read, or more input given to it.
    func step() throws(HealthExportError) {
        if let failure { throw failure }
        switch pxs_next(scanner) {
        case Int32(PXS_START):
            startElement()
        case Int32(PXS_END):
            endElement()
        case Int32(PXS_NEED):
            try readMore()
        case Int32(PXS_DONE):
            ended = true
        default:
            let line = Int(scanner.pointee.error_line), column = Int(scanner.pointee.error_column)
            let message = withUnsafeBytes(of: scanner.pointee.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            throw failAt(message, line: line, column: column)
        }
        if let failure { throw failure }
    }

    /// Up to 64 KB more of export.xml for the scanner; none at the end of the file.
    func readMore() throws(HealthExportError) {
        guard let space = pxs_space(scanner, 1 << 16) else { throw fail(HealthExportError("\(name): out of memory after \(bytesRead) bytes")) }
        if let limit, bytesRead == limit {
            try handOver()
            return
        }
        let count: Int
        switch input {
        case .file(let fd):
            count = read(fd, space, limit.map { min(1 << 16, $0 - bytesRead) } ?? 1 << 16)
            if count < 0 { throw fail(HealthExportError("\(name): read failed after \(bytesRead) bytes (\(String(cString: strerror(errno))))")) }
        case .zip(let archive):
            count = archive_read_data(archive, space, 1 << 16)
            if count < 0 {
                let reason = String(cString: archive_error_string(archive))
                throw fail(HealthExportError("\(name): the zip is damaged or truncated after \(bytesRead) bytes of export.xml (\(reason))"))
            }
        }
        bytesRead += count
        if count == 0 { pxs_finish(scanner) } else { pxs_commit(scanner, count) }
    }

    func fail(_ error: HealthExportError) -> HealthExportError {
        failure = failure ?? error
        ended = true
        return failure!
    }

    /// Stops the read at the element being read, naming its place (where its tag starts).
    func refuse(_ what: String) {
        _ = failAt(what, line: Int(scanner.pointee.event_line), column: Int(scanner.pointee.event_column))
    }

    func failAt(_ what: String, line: Int, column: Int) -> HealthExportError {
        if failure == nil { located = (what, line, column) }
        return fail(HealthExportError("\(name) line \(line), column \(column): \(what)", line: line, column: column))
    }

    /// The two halves' staged entries, when the file was read in two.
    var halves: (StagedEntries, StagedEntries)?
    /// Whether the file was read in two halves (for tests).
    var readInHalves = false
}
