import Foundation
import PairSimCore
@testable import PairSimHealthExport
import Testing
import TestSupport

/// Reading exports for `import-health` (R: E1, E3).
@Suite("Reading an Apple Health export")
struct HealthExportReaderTests {
    /// A scratch directory of its own for each test (tests run in parallel).
    static func directory(_ name: String) throws -> String {
        let path = NSTemporaryDirectory() + "pairsim-reader-\(name)-\(getpid())"
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Writes a generated export to `path`; returns what the generator says is in it.
    static func export(_ path: String, days: Int = 3, seed: UInt64 = 5, offset: Int = 0) throws -> HealthExportGenerator.Counts {
        var options = HealthExportGenerator.Options(days: days, seed: seed)
        options.utcOffsetMinutes = offset
        var data = Data()
        let counts = try HealthExportGenerator(options).write { data.append(contentsOf: Array($0.utf8)) }
        try data.write(to: URL(fileURLWithPath: path))
        return counts
    }

    /// Every entry of a file, read as `import-health` does.
    static func readAll(_ request: HealthImportRequest) throws(HealthExportError) -> ([ExportEntry], HealthExportTally) {
        let reader = try HealthExportReader(request)
        var all: [ExportEntry] = []
        while true {
            let batch = try reader.next(limit: 1_000)
            if batch.isEmpty { break }
            all += batch
        }
        return (all, reader.tally)
    }

    static func makeZip(_ file: String, as entry: String, into zip: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import zipfile,sys; z=zipfile.ZipFile(sys.argv[3],'w',zipfile.ZIP_DEFLATED); z.write(sys.argv[1], sys.argv[2]); z.close()",
                             file, entry, zip]
        try process.run()
        process.waitUntilExit()
        expectEqual(process.terminationStatus, 0)
    }

    @Test("a generated export reads back entry for entry what the generator wrote, type by type")  // R: E1, E2
    func readsWhatWasWritten() throws {
        let dir = try Self.directory("counts")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let counts = try Self.export(dir + "/export.xml", days: 4, offset: 120)
        let (entries, tally) = try Self.readAll(HealthImportRequest(path: dir + "/export.xml"))
        expectEqual(tally.taken, counts.byStoreType)
        expectEqual(entries.count, counts.totalRecords + counts.workouts)
        expect(tally.unknown.isEmpty && tally.filtered == 0)
        // Dates carry their offset: +0200 local midnight is 22:00 UTC the day before.
        let first = try #require(entries.first)
        expect((first.dayStart + 2 * 3_600_000) % 86_400_000 == 0 && first.offsetMinutes == 120)
        let workouts = entries.filter { if case .workout = $0.kind { true } else { false } }
        expectEqual(workouts.count, counts.workouts)
        for workout in workouts {
            guard case .workout(let activity, let active, let energy) = workout.kind else { continue }
            expect(["running", "walking", "cycling", "strength", "yoga", "hiit"].contains(activity))
            expect(active.milliseconds > 0 && active.milliseconds <= workout.end - workout.start)
            expect((energy ?? 0) > 0, "the WorkoutStatistics energy is read")
        }
        expect(entries.allSatisfy { $0.source.name == "PairSim’s Apple Watch" || $0.source.name == "PairSim’s iPhone" || $0.source.name == "Withings" })
    }

    @Test("the Health app's zip and the unzipped folder read the same as export.xml")  // R: E1
    func zipAndFolder() throws {
        let dir = try Self.directory("zip")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/apple_health_export", withIntermediateDirectories: true)
        _ = try Self.export(dir + "/apple_health_export/export.xml", days: 2)
        try Self.makeZip(dir + "/apple_health_export/export.xml", as: "apple_health_export/export.xml", into: dir + "/export.zip")
        let plain = try Self.readAll(HealthImportRequest(path: dir + "/apple_health_export/export.xml"))
        let zipped = try Self.readAll(HealthImportRequest(path: dir + "/export.zip"))
        let folder = try Self.readAll(HealthImportRequest(path: dir))
        expect(zipped.0 == plain.0 && folder.0 == plain.0)
        expect(!plain.0.isEmpty)
    }

    @Test("--since, --until and --types leave entries out and count them")  // R: E1
    func filters() throws {
        let dir = try Self.directory("filters")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try Self.export(dir + "/export.xml", days: 3)
        let all = try Self.readAll(HealthImportRequest(path: dir + "/export.xml"))
        let some = try Self.readAll(HealthImportRequest(path: dir + "/export.xml", since: "2024-01-02", until: "2024-01-02",
                                                        types: [.sample(.heartRate), .workout]))
        expect(!some.0.isEmpty)
        expect(some.0.allSatisfy { $0.typeName == "heartRate" || $0.typeName == "workout" })
        expect(some.0.allSatisfy { $0.start >= CivilDate.days(2024, 1, 2) * 86_400_000 && $0.start < CivilDate.days(2024, 1, 3) * 86_400_000 })
        expectEqual(some.0.count + some.1.filtered, all.0.count)
    }

    @Test("record types PairSim does not model are counted and skipped; pounds and kilojoules are converted")  // R: E1
    func unknownTypesAndUnits() throws {
        let dir = try Self.directory("unknown")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE HealthData [
            <!ELEMENT HealthData (Record)*>
            <!ATTLIST HealthData locale CDATA #REQUIRED>
            ]>
            <HealthData locale="en_US">
             <Record type="HKQuantityTypeIdentifierDistanceWalkingRunning" sourceName="iPhone" unit="km" startDate="2024-05-01 08:00:00 +0000" endDate="2024-05-01 08:10:00 +0000" value="1.2"/>
             <Record type="HKQuantityTypeIdentifierDistanceWalkingRunning" sourceName="iPhone" unit="km" startDate="2024-05-01 09:00:00 +0000" endDate="2024-05-01 09:10:00 +0000" value="0.4"/>
             <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="Scale with a rather long name, cut" unit="lb" startDate="2024-05-01 07:00:00 +0000" endDate="2024-05-01 07:00:00 +0000" value="150"/>
             <Record type="HKQuantityTypeIdentifierActiveEnergyBurned" sourceName="Watch" unit="kJ" startDate="2024-05-01 07:00:00 +0000" endDate="2024-05-01 08:00:00 +0000" value="418.4"/>
             <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="x" startDate="2024-05-01 07:00:00 +0000" endDate="2024-05-01 07:00:00 +0000">
              <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="x" unit="kg" startDate="2024-05-01 07:00:00 +0000" endDate="2024-05-01 07:00:00 +0000" value="1"/>
             </Correlation>
            </HealthData>
            """
        try xml.write(toFile: dir + "/export.xml", atomically: true, encoding: .utf8)
        let (entries, tally) = try Self.readAll(HealthImportRequest(path: dir + "/export.xml"))
        expectEqual(tally.unknown, ["HKQuantityTypeIdentifierDistanceWalkingRunning": 2])
        expectEqual(entries.count, 2, "a Record inside a Correlation is not read as a sample of its own")
        guard entries.count == 2, case .sample(.bodyMass, let kg) = entries[0].kind, case .sample(.activeEnergyBurned, let kcal) = entries[1].kind else {
            Issue.record("\(entries)")
            return
        }
        expect(abs(kg - 68.0388555) < 1e-6 && abs(kcal - 100) < 1e-9)
        expectEqual(entries[0].source.name, "Scale with a rather long")
        // A name is cut before the first character that does not fit, never around it; the app
        // group's own names are never taken by another source.
        expectEqual(ObjectSource(truncating: "Maximilian’s Apple Watch").name, "Maximilian’s Apple Wat")
        expectEqual(ObjectSource(truncating: "Twenty-two bytes long!’s Watch").name, "Twenty-two bytes long!")
        expect(ObjectSource(truncating: "watch").name == "watch (export)" && !ObjectSource(truncating: "phone-app").isOwnAppGroup)
    }

    /// One bad line in a good export, and what the reader must say about it.
    static let badExports: [(name: String, change: @Sendable (String) -> String, says: String)] = [
        ("malformed XML", { $0.replacingFirst("<Record type=\"HKQuantityTypeIdentifierHeartRate\"", "<Record <type=\"x\"") }, "'<' where an attribute name should start"),
        ("a month 13", { $0.replacingFirst("startDate=\"2024-01-02", "startDate=\"2024-13-02") }, "startDate \"2024-13-02"),
        ("a 30 February", { $0.replacingFirst("startDate=\"2024-01-02", "startDate=\"2024-02-30") }, "is not yyyy-MM-dd HH:mm:ss ±HHMM"),
        ("a date without its offset", { $0.replacingFirst("+0000\" value=", "\" value=") }, "is not yyyy-MM-dd"),
        ("an end before the start", { $0.replacingFirst("endDate=\"2024-01-0", "endDate=\"2023-01-0") }, "is before startDate"),
        ("a heart rate of 900", { $0.replacingFirst(#/(HeartRate" [^>]*? value=")[0-9.]+"/#, with: "$1900\"") }, "value 900 count/min is outside 1…400"),
        ("a value that is not a number", { $0.replacingFirst(#/(HeartRate" [^>]*? value=")[0-9.]+"/#, with: "$1seventy\"") }, "value \"seventy\" is not a number"),
        ("an unknown unit", { $0.replacingFirst("unit=\"count/min\"", "unit=\"beats\"") }, "unit \"beats\""),
        ("an unknown sleep value", { $0.replacingFirst("HKCategoryValueSleepAnalysisAsleepCore", "HKCategoryValueSleepAnalysisDozing") }, "unknown sleep value"),
        ("another root element", { $0.replacingFirst("<HealthData locale=\"en_US\">", "<Health locale=\"en_US\">").replacingFirst("</HealthData>", "</Health>") }, "the root element is <Health>"),
    ]

    /// A two-day generated export with `change` made to it, read whole in `directory(label)`:
    /// the error it is refused with (nil: read without one), the line where it first differs from
    /// the good one, and its path.
    static func refusal(_ label: String, _ name: String, _ change: (String) -> String) throws -> (error: HealthExportError?, line: Int?, path: String) {
        let dir = try directory(label)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let good = try twoDays.get()
        let bad = change(good)
        expect(bad != good, "\(name): the change did not apply")
        try bad.write(toFile: dir + "/export.xml", atomically: true, encoding: .utf8)
        let line = firstDifferentLine(good, bad)
        do {
            _ = try readAll(HealthImportRequest(path: dir + "/export.xml"))
            return (nil, line, dir + "/export.xml")
        } catch {
            return (error, line, dir + "/export.xml")
        }
    }

    /// The two-day export `refusal` changes (`export(_:days: 2)`), generated once for all its cases.
    static let twoDays = Result { () throws -> String in
        var text = ""
        _ = try HealthExportGenerator(HealthExportGenerator.Options(days: 2, seed: 5)).write { text += $0 }
        return text
    }

    /// The first line (from 1) where `good` and `bad` differ, or nil when no line both have
    /// differs: found by bytes, as splitting both into lines cost seconds in a debug build (the
    /// exports are ASCII with \n line ends, where bytes and characters agree).
    static func firstDifferentLine(_ good: String, _ bad: String) -> Int? {
        var good = good, bad = bad
        return good.withUTF8 { a in
            bad.withUTF8 { b in
                let shorter = min(a.count, b.count)
                var at = 0
                if shorter > 0 { at = memcmp(a.baseAddress!, b.baseAddress!, shorter) == 0 ? shorter : Self.firstDifference(a, b, below: shorter) }
                if at == shorter, a.count == b.count { return nil }
                var line = 1
                for index in 0..<at where a[index] == UInt8(ascii: "\n") { line += 1 }
                // One a prefix of the other: the longer has lines the shorter lacks (no pair differs).
                if at == shorter { return a.count != b.count && (a.count > shorter ? a[shorter] : b[shorter]) != UInt8(ascii: "\n") ? line : nil }
                return line
            }
        }
    }

    /// The first index below `limit` where `a` and `b` differ (`limit` when none does).
    static func firstDifference(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>, below limit: Int) -> Int {
        // Halving by memcmp: a byte loop over a 1 MB export is slow in a debug build.
        var low = 0, high = limit
        while high - low > 64 {
            let middle = (low + high) / 2
            if memcmp(a.baseAddress! + low, b.baseAddress! + low, middle - low) == 0 { low = middle } else { high = middle }
        }
        while low < high, a[low] == b[low] { low += 1 }
        return low
    }

    @Test("a bad export is refused with its line and column, whatever is wrong in it", arguments: 0..<badExports.count)  // R: E3
    func badExport(_ index: Int) throws {
        let (name, change, says) = Self.badExports[index]
        // Where the files first differ: the line the reader must name.
        let (refused, line, path) = try Self.refusal("bad\(index)", name, change)
        guard let error = refused else { Issue.record("\(name): read without an error"); return }
        expect(error.message.contains(says), "\(name): \(error.message)")
        expect(error.message.contains(path + " line "), "\(name): \(error.message)")
        expect(error.line == line && (error.column ?? 0) > 0, "\(name): \(error.message)")
    }

    @Test("a truncated export.xml or zip, a missing file and a zip without export.xml are refused by name")  // R: E3
    func truncatedAndMissing() throws {
        let dir = try Self.directory("truncated")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try Self.export(dir + "/export.xml", days: 2)
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/export.xml"))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: dir + "/half.xml"))
        try data.prefix(data.count - 20).write(to: URL(fileURLWithPath: dir + "/almost.xml"))
        try Self.makeZip(dir + "/export.xml", as: "apple_health_export/export.xml", into: dir + "/export.zip")
        let zipped = try Data(contentsOf: URL(fileURLWithPath: dir + "/export.zip"))
        try zipped.prefix(zipped.count / 2).write(to: URL(fileURLWithPath: dir + "/half.zip"))
        try Self.makeZip(dir + "/export.xml", as: "notes.xml", into: dir + "/other.zip")
        let cases: [(String, String)] = [
            ("half.xml", "half.xml line "), ("almost.xml", "truncated?"), ("half.zip", "the zip is damaged or truncated"),
            ("other.zip", "a zip without apple_health_export/export.xml"), ("missing.xml", "missing.xml: no such file"),
        ]
        for (file, says) in cases {
            do {
                _ = try Self.readAll(HealthImportRequest(path: dir + "/" + file))
                Issue.record("\(file): read without an error")
            } catch {
                expect(error.message.contains(says), "\(file): \(error.message)")
            }
        }
    }
}

extension String {
    func replacingFirst(_ target: String, _ replacement: String) -> String {
        guard let range = range(of: target) else { return self }
        return replacingCharacters(in: range, with: replacement)
    }

    func replacingFirst(_ pattern: Regex<(Substring, Substring)>, with template: String) -> String {
        guard let match = firstMatch(of: pattern) else { return self }
        return replacingCharacters(in: match.range, with: template.replacingOccurrences(of: "$1", with: String(match.output.1)))
    }
}

/// A large export.xml is read in two halves at once; nothing about the result may show it.
@Suite("Reading a large export in two halves")
struct HealthExportHalvesTests {
    static func read(_ path: String, parallelFrom threshold: Int) -> (entries: [ExportEntry], tally: HealthExportTally, rewound: [ExportEntry], error: HealthExportError?, halves: Bool) {
        do {
            let reader = try HealthExportReader(HealthImportRequest(path: path), parallelThreshold: threshold)
            var entries: [ExportEntry] = []
            while true {
                let batch = try reader.next(limit: 7_000)
                if batch.isEmpty { break }
                entries += batch
            }
            var again: [ExportEntry] = []
            if let cursor = reader.rewound() {
                while true {
                    let batch = try cursor.next(limit: 5_000)
                    if batch.isEmpty { break }
                    again += batch
                }
            }
            return (entries, reader.tally, again, nil, reader.readInHalves)
        } catch {
            return ([], HealthExportTally(), [], error, false)
        }
    }

    @Test("two halves give the same entries, counts, read-back and first error as one pass")  // R: E1, E3
    func sameAsOnePass() throws {
        let dir = try HealthExportReaderTests.directory("halves")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try HealthExportReaderTests.export(dir + "/export.xml", days: 12, seed: 6)
        let text = try String(contentsOfFile: dir + "/export.xml", encoding: .utf8)
        let whole = Self.read(dir + "/export.xml", parallelFrom: .max)
        let halves = Self.read(dir + "/export.xml", parallelFrom: 1)
        expect(whole.error == nil && halves.error == nil)
        expect(halves.halves && !whole.halves)
        expect(!whole.entries.isEmpty && halves.entries == whole.entries && halves.tally == whole.tally)
        expect(whole.rewound == whole.entries && halves.rewound == whole.entries)

        // A bad value in the second half: the same message, line and column.
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let late = lines.count * 3 / 4
        let target = try #require(lines.indices.first { $0 > late && lines[$0].contains("HKQuantityTypeIdentifierHeartRate\"") })
        var bad = lines
        bad[target] = Substring(String(lines[target]).replacingFirst(#/(value=")[0-9.]+"/#, with: "$1999\""))
        try bad.joined(separator: "\n").write(toFile: dir + "/late.xml", atomically: true, encoding: .utf8)
        let oneLate = Self.read(dir + "/late.xml", parallelFrom: .max), twoLate = Self.read(dir + "/late.xml", parallelFrom: 1)
        expect(oneLate.error != nil && twoLate.error == oneLate.error, "\(String(describing: twoLate.error)) vs \(String(describing: oneLate.error))")
        expectEqual(oneLate.error?.line, target + 1)

        // The middle of the file inside a comment: the first half does not end cleanly, and the
        // reader reads on by itself.
        var commented = lines
        let middle = lines.count / 2
        func wholeRecord(after index: Int) -> Int? {
            lines.indices.first { $0 >= index && lines[$0].hasPrefix(" <Record") && lines[$0].hasSuffix("/>") }
        }
        let open = try #require(wholeRecord(after: middle - 300)), close = try #require(wholeRecord(after: middle + 300))
        commented[open] = "<!--" + commented[open]
        commented[close] = commented[close] + "-->"
        try commented.joined(separator: "\n").write(toFile: dir + "/commented.xml", atomically: true, encoding: .utf8)
        let oneCommented = Self.read(dir + "/commented.xml", parallelFrom: .max), twoCommented = Self.read(dir + "/commented.xml", parallelFrom: 1)
        expect(oneCommented.error == nil && twoCommented.error == nil)
        expect(!twoCommented.halves, "the split fell inside the comment")
        expect(twoCommented.entries == oneCommented.entries && twoCommented.tally == oneCommented.tally)
        expect(oneCommented.entries.count < whole.entries.count)
    }
}
