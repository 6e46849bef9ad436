import Foundation
import PairSimCore
@testable import PairSimHealthExport
import Testing
import TestSupport

/// Hostile exports are harmless (R: E4): out-of-range values, control characters, numbers outside
/// the documented grammar, huge values and special files are refused, with file, line and column,
/// in a message of bounded size — never a trap.
@Suite("Hostile Apple Health exports")
struct HostileExportTests {
    static let hostile: [(name: String, change: @Sendable (String) -> String, says: String)] = [
        ("a heart rate of 1e19", { $0.replacingFirst(#/(HeartRate" [^>]*? value=")[0-9.]+"/#, with: "$11e19\"") }, "value 1e+19 count/min is outside"),
        ("a heart rate of -1e19", { $0.replacingFirst(#/(HeartRate" [^>]*? value=")[0-9.]+"/#, with: "$1-1e19\"") }, "value -1e+19 count/min is outside"),
        ("a heart rate of 1e308", { $0.replacingFirst(#/(HeartRate" [^>]*? value=")[0-9.]+"/#, with: "$11e308\"") }, "is outside"),
        ("a heart rate of 1e309 (infinite)", { $0.replacingFirst(#/(HeartRate" [^>]*? value=")[0-9.]+"/#, with: "$11e309\"") }, "is not a number"),
        ("NaN", { $0.replacingFirst(#/(HeartRate" [^>]*? value=")[0-9.]+"/#, with: "$1NaN\"") }, "is not a number"),
        ("a workout of 1e19 minutes", { $0.replacingFirst(#/(duration=")[0-9.]+"/#, with: "$11e19\"") }, "is longer than the workout"),
        ("energy of 1e19 kcal", { $0.replacingFirst(#/(ActiveEnergyBurned" [^>]*? value=")[0-9.]+"/#, with: "$11e19\"") }, "is outside"),
        ("hexadecimal", { $0.replacingFirst(#/(HeartRate" [^>]*? value=")[0-9.]+"/#, with: "$10x48\"") }, "is not a number"),
        ("a plus sign", { $0.replacingFirst(#/(HeartRate" [^>]*? value=")[0-9.]+"/#, with: "$1+72\"") }, "is not a number"),
        ("a trailing point", { $0.replacingFirst(#/(HeartRate" [^>]*? value=")[0-9.]+"/#, with: "$172.\"") }, "is not a number"),
        ("a leading point", { $0.replacingFirst(#/(HeartRate" [^>]*? value=")[0-9.]+"/#, with: "$1.72e2\"") }, "is not a number"),
        ("a line feed before the number", { $0.replacingFirst(#/(HeartRate" [^>]*? value=")[0-9.]+"/#, with: "$1&#10;72\"") }, "is not a number"),
        ("a control character in sourceName", { $0.replacingFirst("sourceName=\"", "sourceName=\"\u{01}") }, "holds a control character"),
        ("an escape in sourceName", { $0.replacingFirst("sourceName=\"", "sourceName=\"\u{1B}[2J") }, "holds a control character"),
        ("the app's name and a NUL", { $0.replacingFirst(#/(sourceName=")[^"]*"/#, with: "$1watch-app\u{00}\"") }, "holds a control character"),
        ("a control character in a workout's type", { $0.replacingFirst("workoutActivityType=\"", "workoutActivityType=\"\u{01}") }, "holds a control character"),
        ("a control character in a record's type", { $0.replacingFirst("<Record type=\"", "<Record type=\"HKQuantityTypeIdentifierFoo\u{1B}\" x=\"") }, "holds a control character"),
    ]

    @Test("a hostile value is refused with its line and column, never a trap", arguments: 0..<hostile.count)  // R: E4
    func hostileValue(_ index: Int) throws {
        let (name, change, says) = Self.hostile[index]
        let (refused, _, path) = try HealthExportReaderTests.refusal("hostile\(index)", name, change)
        guard let error = refused else { Issue.record("\(name): read without an error"); return }
        expect(error.message.contains(says), "\(name): \(error.message)")
        expect(error.message.contains(path + " line ") && (error.line ?? 0) > 0 && (error.column ?? 0) > 0, "\(name): \(error.message)")
    }

    @Test("numbers in the documented grammar are taken: 72, -0.5 kg changes aside, 1.5e2, 1E-2")  // R: E4
    func numberGrammar() {
        for (text, value) in [("72", 72.0), ("-0.5", -0.5), ("1.5e2", 150), ("1E-2", 0.01), ("0072", 72)] {
            let bytes = Array(text.utf8)
            expectEqual(bytes.withUnsafeBufferPointer { HealthExportReader.number($0) }, Optional(value), "\(text)")
        }
        for text in ["0x48", "+72", "72.", ".5", "1e", "1e+", " 72", "72 ", "inf", "nan", "1_000", "٧٢"] {
            expectEqual(Array(text.utf8).withUnsafeBufferPointer { HealthExportReader.number($0) }, nil, "\(text)")
        }
    }

    @Test("what quotes the input is cut: a 2 MB value, a 2 MB root name, 300 long unknown type names")  // R: E4
    func boundedMessages() throws {
        let dir = try HealthExportReaderTests.directory("bounded")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try HealthExportReaderTests.export(dir + "/good.xml", days: 1)
        let good = try String(contentsOfFile: dir + "/good.xml", encoding: .utf8)
        let huge = String(repeating: "9", count: 2_000_000)
        try good.replacingFirst(#/(HeartRate" [^>]*? value=")[0-9.]+"/#, with: "$1\(huge)x\"").write(toFile: dir + "/value.xml", atomically: true, encoding: .utf8)
        do { _ = try HealthExportReaderTests.readAll(HealthImportRequest(path: dir + "/value.xml")); Issue.record("read") } catch {
            expect(error.message.utf8.count < 500, "\(error.message.utf8.count) bytes")
        }
        var unknown = ""
        for index in 0..<300 {
            unknown += " <Record type=\"HKQuantityTypeIdentifier\(index)\(String(repeating: "x", count: 10_000))\" sourceName=\"x\" unit=\"km\" startDate=\"2024-01-01 08:00:00 +0000\" endDate=\"2024-01-01 08:10:00 +0000\" value=\"1\"/>\n"
        }
        try good.replacingFirst("</HealthData>", unknown + "</HealthData>").write(toFile: dir + "/unknown.xml", atomically: true, encoding: .utf8)
        let (_, tally) = try HealthExportReaderTests.readAll(HealthImportRequest(path: dir + "/unknown.xml"))
        expectEqual(tally.unknown.count, 101, "100 names and the rest together")
        expectEqual(tally.unknown["(other types)"], 200)
        expect(tally.unknown.keys.allSatisfy { $0.utf8.count <= 64 + 3 }, "each name cut to 64 bytes and …")
    }

    @Test("a named pipe, a device and a folder without export.xml are refused at once")  // R: E4
    func specialFiles() throws {
        let dir = try HealthExportReaderTests.directory("special")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fifo = dir + "/export.xml"
        expectEqual(mkfifo(fifo, 0o600), 0)
        let started = ContinuousClock.now
        for path in [fifo, dir, "/dev/zero"] {
            do { _ = try HealthExportReader(HealthImportRequest(path: path)); Issue.record("\(path) was opened") } catch {
                expect(error.message.contains("not a regular file"), "\(path): \(error.message)")
            }
        }
        // Not a timing assertion: a pipe opened the old way blocked for ever, so this would never return.
        _ = started
    }

    @Test("--skip-invalid imports the rest of an export with bad records and reports each by line; without it the error names the flag")  // R: E5
    func skipInvalid() throws {
        let dir = try HealthExportReaderTests.directory("skip")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try HealthExportReaderTests.export(dir + "/good.xml", days: 2)
        let good = try String(contentsOfFile: dir + "/good.xml", encoding: .utf8)
        let (all, _) = try HealthExportReaderTests.readAll(HealthImportRequest(path: dir + "/good.xml"))
        // A value typed by hand, and a unit Apple once wrote differently.
        let bad = good.replacingFirst(#/(HeartRate" [^>]*? value=")[0-9.]+"/#, with: "$1seventy\"")
            .replacingFirst(#/(BodyMass" [^>]*? unit=")kg"/#, with: "$1KG\"")
        try bad.write(toFile: dir + "/export.xml", atomically: true, encoding: .utf8)
        let lines = bad.split(separator: "\n", omittingEmptySubsequences: false)
        let badLines = lines.indices.filter { lines[$0].contains("value=\"seventy\"") || lines[$0].contains("unit=\"KG\"") }.map { $0 + 1 }
        expectEqual(badLines.count, 2)
        do {
            _ = try HealthExportReaderTests.readAll(HealthImportRequest(path: dir + "/export.xml"))
            Issue.record("read without an error")
        } catch {
            expect(error.message.contains("--skip-invalid imports the rest without it") && error.line == badLines.first, "\(error.message)")
        }
        let (entries, tally) = try HealthExportReaderTests.readAll(HealthImportRequest(path: dir + "/export.xml", skipInvalid: true))
        expectEqual(entries.count, all.count - 2)
        expectEqual(tally.skipped, 2)
        expectEqual(tally.skippedRecords.map { Int($0.split(separator: ",")[0].dropFirst(5)) }, badLines.map(Optional.some), "\(tally.skippedRecords)")
        expectEqual(tally.skippedRecords.first?.contains("value \"seventy\" is not a number"), true)
        expectEqual(tally.skippedRecords.last?.contains("unit \"KG\""), true)
        // Broken XML is not a record: it still ends the import.
        try bad.replacingFirst("<Record ", "<Record <").write(toFile: dir + "/broken.xml", atomically: true, encoding: .utf8)
        #expect(throws: HealthExportError.self) { try HealthExportReaderTests.readAll(HealthImportRequest(path: dir + "/broken.xml", skipInvalid: true)) }
    }

    /// Huge tokens — whitespace inside a tag, an attribute, a comment, the DTD, a processing
    /// instruction — each read once however many reads they span. Measured, not asserted (a
    /// busy machine varies); `scripts/bench.sh hostile` times them, and the watch answering
    /// meanwhile is tested end to end. Each is the text before the pad and after it: `write`
    /// puts the pad between them as bytes (building a 65 MB String took seconds in a debug build).
    static func hugeTokens() -> [(name: String, before: String, after: String)] {
        let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let record = "<Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"Watch\" unit=\"count/min\" startDate=\"2024-01-01 08:00:00 +0000\" endDate=\"2024-01-01 08:00:00 +0000\" value=\"72\""
        return [
            ("whitespace inside a tag", head + "<HealthData locale=\"en_US\">\n" + record, "/>\n</HealthData>\n"),
            ("a long attribute value", head + "<HealthData locale=\"en_US\">\n" + record + " device=\"", "\"/>\n</HealthData>\n"),
            ("a long comment", head + "<HealthData locale=\"en_US\">\n<!--", "-->\n" + record + "/>\n</HealthData>\n"),
            ("whitespace in the DTD", head + "<!DOCTYPE HealthData [", "]>\n<HealthData locale=\"en_US\">\n" + record + "/>\n</HealthData>\n"),
            ("a long processing instruction", head + "<?pi ", "?>\n<HealthData locale=\"en_US\">\n" + record + "/>\n</HealthData>\n"),
            ("whitespace in an end tag", head + "<HealthData locale=\"en_US\">\n" + record + "/>\n</HealthData", ">\n"),
        ]
    }

    /// Writes a huge token's file: `before`, `megabytes` MB of spaces, `after`.
    static func write(_ token: (name: String, before: String, after: String), megabytes: Int, to path: String) throws {
        var data = Data(token.before.utf8)
        data.append(Data(repeating: UInt8(ascii: " "), count: megabytes << 20))
        data.append(Data(token.after.utf8))
        try data.write(to: URL(fileURLWithPath: path))
    }

    @Test("a huge whitespace run, attribute, comment, DTD or processing instruction reads as the export it is")  // R: E4
    func hugeTokensRead() throws {
        let dir = try HealthExportReaderTests.directory("huge")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (index, token) in Self.hugeTokens().enumerated() {
            let path = dir + "/\(index).xml"
            try Self.write(token, megabytes: 8, to: path)
            let started = ContinuousClock.now
            let (entries, _) = try HealthExportReaderTests.readAll(HealthImportRequest(path: path))
            expectEqual(entries.count, 1, "\(token.name)")
            print("\(token.name), 8 MB: \(ContinuousClock.now - started)")
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    @Test("one piece of markup over 64 MB is refused where it starts: memory stays bounded")  // R: E4
    func tokenTooLong() throws {
        let dir = try HealthExportReaderTests.directory("toolong")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.write(Self.hugeTokens()[2], megabytes: 65, to: dir + "/export.xml") // a comment
        do { _ = try HealthExportReaderTests.readAll(HealthImportRequest(path: dir + "/export.xml")); Issue.record("read") } catch {
            expect(error.message.contains("markup longer than 64 MB") && error.line == 3 && error.column == 1, "\(error.message)")
        }
        try? FileManager.default.removeItem(atPath: dir + "/export.xml")
    }
}
