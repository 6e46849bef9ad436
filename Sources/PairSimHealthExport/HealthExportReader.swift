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
    /// The scanner has read the first chunk and asks for more.
    var wantsSecondChunk = false
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

    enum Input {
        case file(Int32)
        case zip(OpaquePointer)
    }

    public var tally: HealthExportTally {
        var tally = HealthExportTally()
        for (index, type) in ObjectType.all.enumerated() where taken[index] > 0 { tally.taken[type.name] = taken[index] }
        tally.filtered = filtered
        tally.unknown = unknown
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
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw HealthExportError("\(path): cannot be read (\(String(cString: strerror(errno))))") }
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
        wantsSecondChunk = true
    }

    /// The start of a line near the middle of the file where a child of the root element begins
    /// (`\n <Record …`), or nil.
    static func splitPoint(_ fd: Int32, size: Int) -> Int? {
        var window = [UInt8](repeating: 0, count: 1 << 16)
        let got = window.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 1 << 16, off_t(size / 2)) }
        guard got > 3 else { return nil }
        for index in 0..<(got - 3) where window[index] == 0x0A && window[index + 1] == 0x20 && window[index + 2] == 0x3C
            && ((0x41...0x5A).contains(window[index + 3]) || (0x61...0x7A).contains(window[index + 3])) {
            return size / 2 + index + 1
        }
        return nil
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
        // The whole first chunk, not only up to the root: what is wrong near the top is refused now.
        while !ended, !root || bytesRead == 0 || !wantsSecondChunk { try step() }
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
        if bytesRead > 0, !wantsSecondChunk, root {
            wantsSecondChunk = true
            return
        }
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

    // MARK: Elements

    func startElement() {
        depth += 1
        guard failure == nil else { return }
        for buffer in decoded { buffer.deallocate() }
        decoded.removeAll(keepingCapacity: true)
        let localname = UnsafeBufferPointer(start: scanner.pointee.name, count: scanner.pointee.name_length)
        let element = Attributes(reader: self)
        if depth == 1 {
            if Self.equals(localname, "HealthData") { root = true } else {
                refuse("not an Apple Health export: the root element is <\(String(decoding: localname, as: UTF8.self))>, not <HealthData>")
            }
        } else if depth == 2, Self.equals(localname, "Record") {
            record(element)
        } else if depth == 2, Self.equals(localname, "Workout") {
            startWorkout(element)
        } else if depth == 3, workout != nil, Self.equals(localname, "WorkoutStatistics") {
            workoutStatistics(element)
        }
    }

    func endElement() {
        if depth == 2, let done = workout, failure == nil {
            workout = nil
            take(done)
        }
        depth -= 1
    }

    /// The first half is read: if it ended between two children of the root (as it does unless
    /// the middle of the file is inside a comment or CDATA), what the other thread read follows it;
    /// if not, this reader reads on through the second half itself.
    func handOver() throws(HealthExportError) {
        guard let second else { return }
        self.second = nil
        limit = nil
        let clean = scanner.pointee.start == scanner.pointee.end && scanner.pointee.depth == 1 && scanner.pointee.pending_end == 0
            && depth == 1 && workout == nil
        guard clean else { second.cancel(); return }
        guard let other = second.finish() else { throw fail(second.openError ?? HealthExportError("\(name): the second half could not be read")) }
        let firstLine = Int(scanner.pointee.line)
        if let error = other.failure {
            // Its lines count from the line it started on (line 2 after its "<HealthData>" prefix).
            if let (what, line, column) = other.located {
                let shifted = firstLine + line - 2
                throw fail(HealthExportError("\(name) line \(shifted), column \(column): \(what)", line: shifted, column: column))
            }
            throw fail(error)
        }
        // What the other thread read is in its temporary file; if that could not be written (no
        // room in the temporary directory), this reader reads the second half itself, as one pass.
        guard let otherStaged = other.staged, !otherStaged.failed,
              let rest = otherStaged.cursor(tally: HealthExportTally(), fingerprint: fingerprint) else { return }
        for index in taken.indices { taken[index] += other.taken[index] }
        filtered += other.filtered
        for (type, count) in other.unknown { unknown[type, default: 0] += count }
        secondCursor = rest
        readInHalves = true
        if let mine = staged, !mine.failed { halves = (mine, otherStaged) }
        staged = nil
        ended = true
    }

    /// The two halves' staged entries, when the file was read in two.
    var halves: (StagedEntries, StagedEntries)?
    /// Whether the file was read in two halves (for tests).
    var readInHalves = false

    public func rewound() -> (any HealthExportCursor)? {
        guard ended, failure == nil, pending.isEmpty else { return nil }
        if let (first, second) = halves {
            halves = nil
            guard let a = first.cursor(tally: tally, fingerprint: fingerprint), let b = second.cursor(tally: tally, fingerprint: fingerprint) else { return nil }
            return ChainedCursor([a, b], tally: tally, fingerprint: fingerprint)
        }
        guard let staged else { return nil }
        self.staged = nil
        return staged.cursor(tally: tally, fingerprint: fingerprint)
    }

    /// Counts and keeps an entry (`ObjectType.all` lists the sample types in their index order, then workouts).
    func take(_ entry: ExportEntry) {
        staged?.add(entry)
        let index: Int
        switch entry.kind {
        case .sample(let type, _): index = type.index
        case .workout: index = ObjectType.all.count - 1
        }
        taken[index] += 1
        pending.append(entry)
    }

    /// A `Record`: a sample of a modelled type, or a type counted and skipped.
    func record(_ element: Attributes) {
        guard let typeName = element["type"] else { return refuse("a Record without a type") }
        guard let type = Self.sampleType(typeName) else {
            if !Self.equals(typeName, lastUnknown.bytes) {
                lastUnknown = (Array(typeName), String(decoding: typeName, as: UTF8.self))
            }
            unknown[lastUnknown.name, default: 0] += 1
            return
        }
        guard wanted[type.index] else { filtered += 1; return }
        let what = "Record \(type.exportName)"
        guard let dates = dates(element, what) else { return }
        guard dates.inRange else { filtered += 1; return }
        guard let valueText = element["value"] else { return refuse("\(what) has no value") }
        let value: Double
        if type == .sleepAnalysis {
            guard let stage = Self.sleepStage(valueText) else {
                return refuse("\(what): unknown sleep value \"\(String(decoding: valueText, as: UTF8.self))\"")
            }
            value = Double(stage.rawValue)
        } else {
            guard let number = Self.number(valueText) else {
                return refuse("\(what): value \"\(String(decoding: valueText, as: UTF8.self))\" is not a number")
            }
            let unit = element["unit"]
            guard let factor = Self.unitFactor(type, unit) else {
                return refuse("\(what): unit \"\(unit.map { String(decoding: $0, as: UTF8.self) } ?? "")\" is not one PairSim converts (\(type.exportUnits.joined(separator: ", ")))")
            }
            value = number * factor
        }
        guard type.validRange.contains(value) else {
            return refuse("\(what): value \(HealthExportGenerator.number(value)) \(type.unit) is outside \(HealthExportGenerator.number(type.validRange.lowerBound))…\(HealthExportGenerator.number(type.validRange.upperBound)), the range the wire carries")
        }
        guard let source = source(element, what) else { return }
        take(ExportEntry(kind: .sample(type, value: value), start: dates.start, end: dates.end, dayStart: dates.dayStart,
                         offsetMinutes: dates.offset, source: source))
    }

    func startWorkout(_ element: Attributes) {
        guard wanted[ObjectType.all.count - 1] else { filtered += 1; return }
        guard let typeText = element["workoutActivityType"] else { return refuse("a Workout without a workoutActivityType") }
        let activity = Self.activity(String(decoding: typeText, as: UTF8.self))
        let what = "Workout \(String(decoding: typeText, as: UTF8.self))"
        guard activity.utf8.count <= Workout.maxActivityBytes, !activity.isEmpty else { return refuse("\(what): the activity type is empty or over \(Workout.maxActivityBytes) bytes") }
        guard let dates = dates(element, what) else { return }
        guard dates.inRange else { filtered += 1; return }
        guard let source = source(element, what) else { return }
        var active = EmulatedDuration.milliseconds(dates.end - dates.start)
        if let durationText = element["duration"] {
            guard let duration = Self.number(durationText), duration >= 0 else {
                return refuse("\(what): duration \"\(String(decoding: durationText, as: UTF8.self))\" is not a number of 0 or more")
            }
            let unit = element["durationUnit"].map { String(decoding: $0, as: UTF8.self) } ?? "min"
            guard let factor = ["min": 60_000.0, "s": 1_000, "hr": 3_600_000, "ms": 1][unit] else {
                return refuse("\(what): durationUnit \"\(unit)\" is not min, s, hr or ms")
            }
            // Apple's duration is rounded; it cannot be longer than the workout.
            active = .milliseconds(min(dates.end - dates.start, Int64((duration * factor).rounded())))
        }
        var energy: Double?
        if let total = element["totalEnergyBurned"] {
            // Exports before version 13 put the energy on the workout itself.
            guard let value = energyValue(total, element["totalEnergyBurnedUnit"], what) else { return }
            energy = value
        }
        workout = ExportEntry(kind: .workout(activity: activity, active: active, energy: energy), start: dates.start, end: dates.end,
                              dayStart: dates.dayStart, offsetMinutes: dates.offset, source: source)
    }

    /// Version 13 and later: the workout's active energy is a `WorkoutStatistics` child.
    func workoutStatistics(_ element: Attributes) {
        guard let type = element["type"], Self.equals(type, "HKQuantityTypeIdentifierActiveEnergyBurned"), let sum = element["sum"] else { return }
        guard let value = energyValue(sum, element["unit"], "WorkoutStatistics HKQuantityTypeIdentifierActiveEnergyBurned"),
              case .workout(let activity, let active, _)? = workout?.kind else { return }
        workout?.kind = .workout(activity: activity, active: active, energy: value)
    }

    func energyValue(_ text: UnsafeBufferPointer<UInt8>, _ unit: UnsafeBufferPointer<UInt8>?, _ what: String) -> Double? {
        guard let number = Self.number(text), let factor = Self.unitFactor(.activeEnergyBurned, unit) else {
            refuse("\(what): energy \"\(String(decoding: text, as: UTF8.self))\" \(unit.map { String(decoding: $0, as: UTF8.self) } ?? "") is not a number in kcal, Cal or kJ")
            return nil
        }
        let value = number * factor
        guard (0...50_000).contains(value) else { refuse("\(what): energy \(HealthExportGenerator.number(value)) kcal is outside 0…50000"); return nil }
        return value
    }

    struct Dates {
        var start: Int64, end: Int64, dayStart: Int64, offset: Int32, inRange: Bool
    }

    /// startDate and endDate, checked; whether the start's local day is within --since/--until.
    func dates(_ element: Attributes, _ what: String) -> Dates? {
        guard let startText = element["startDate"] else { refuse("\(what) has no startDate"); return nil }
        guard let endText = element["endDate"] else { refuse("\(what) has no endDate"); return nil }
        guard let start = Self.date(startText) else {
            refuse("\(what): startDate \"\(String(decoding: startText, as: UTF8.self))\" is not yyyy-MM-dd HH:mm:ss ±HHMM"); return nil
        }
        guard let end = Self.date(endText) else {
            refuse("\(what): endDate \"\(String(decoding: endText, as: UTF8.self))\" is not yyyy-MM-dd HH:mm:ss ±HHMM"); return nil
        }
        guard end.unixMs >= start.unixMs else {
            refuse("\(what): endDate \(String(decoding: endText, as: UTF8.self)) is before startDate \(String(decoding: startText, as: UTF8.self))"); return nil
        }
        let day = UnsafeBufferPointer(rebasing: startText[..<10])
        let inRange = (since.map { !Self.less(day, $0) } ?? true) && (until.map { !Self.less($0, day) } ?? true)
        return Dates(start: start.unixMs, end: end.unixMs, dayStart: start.dayStart, offset: start.offset, inRange: inRange)
    }

    func source(_ element: Attributes, _ what: String) -> ObjectSource? {
        guard let name = element["sourceName"], name.count > 0 else { refuse("\(what) has no sourceName"); return nil }
        if !Self.equals(name, lastSource.bytes) {
            lastSource = (Array(name), ObjectSource(truncating: String(decoding: name, as: UTF8.self)))
        }
        return lastSource.source
    }
}
