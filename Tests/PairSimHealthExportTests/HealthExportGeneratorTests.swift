import Foundation
import PairSimCore
@testable import PairSimHealthExport
import Testing
import TestSupport

/// Counts what an independent XML parser (Python's expat, as any tool reading a real export
/// would) finds in an export: element by element and record type by type. Not Foundation's
/// XMLParser: on Linux it crashes on a DTD with an ATTLIST declaration, and every export has one.
enum IndependentParse {
    static let python = "/usr/bin/python3"
    static let script = """
        import json, sys, re
        import xml.etree.ElementTree as ET
        counts = {"records": {}, "workouts": 0, "stats": 0, "events": 0, "summaries": 0, "dates": [], "version": None}
        head = open(sys.argv[1], encoding="utf-8").read(4096)
        m = re.search(r"HealthKit Export Version: (\\d+)", head)
        counts["version"] = m.group(1) if m else None
        for _, e in ET.iterparse(sys.argv[1]):
            if e.tag == "Record":
                counts["records"][e.get("type")] = counts["records"].get(e.get("type"), 0) + 1
                if len(counts["dates"]) < 1000: counts["dates"].append(e.get("startDate"))
            elif e.tag == "Workout": counts["workouts"] += 1
            elif e.tag == "WorkoutStatistics": counts["stats"] += 1
            elif e.tag == "WorkoutEvent": counts["events"] += 1
            elif e.tag == "ActivitySummary": counts["summaries"] += 1
        print(json.dumps(counts))
        """

    static func parse(_ path: String) throws -> (HealthExportGenerator.Counts, version: String?, dates: [String]) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script, path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        var counts = HealthExportGenerator.Counts()
        counts.records = object["records"] as? [String: Int] ?? [:]
        counts.workouts = object["workouts"] as? Int ?? -1
        counts.workoutStatistics = object["stats"] as? Int ?? -1
        counts.workoutEvents = object["events"] as? Int ?? -1
        counts.activitySummaries = object["summaries"] as? Int ?? -1
        return (counts, object["version"] as? String, object["dates"] as? [String] ?? [])
    }
}

@Suite("Synthetic Apple Health export")
struct HealthExportGeneratorTests {
    static func generate(_ options: HealthExportGenerator.Options) throws -> (Data, HealthExportGenerator.Counts) {
        var data = Data()
        let counts = try HealthExportGenerator(options).write { data.append(contentsOf: Array($0.utf8)) }
        return (data, counts)
    }

    @Test("the generated export parses back to the counts it reports, with every kind of data it promises")  // R: E2
    func parsesBack() throws {
        guard FileManager.default.isExecutableFile(atPath: IndependentParse.python) else {
            Issue.record("\(IndependentParse.python) is not installed (scripts/test.sh installs it)")
            return
        }
        var options = HealthExportGenerator.Options(days: 15, seed: 7)
        options.utcOffsetMinutes = 60
        let (data, counts) = try Self.generate(options)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString).xml").path
        try data.write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (parsed, version, dates) = try IndependentParse.parse(path)
        expectEqual(parsed, counts)
        expectEqual(version, "14")
        for type in ["HeartRate", "RestingHeartRate", "HeartRateVariabilitySDNN", "StepCount", "ActiveEnergyBurned",
                     "BodyMass", "BodyFatPercentage", "BodyMassIndex"] {
            expect((counts.records["HKQuantityTypeIdentifier" + type] ?? 0) > 0, "no \(type)")
        }
        expect((counts.records["HKCategoryTypeIdentifierSleepAnalysis"] ?? 0) >= 15 * 4)
        expect(counts.workouts >= 5 && counts.workouts <= 15 && counts.activitySummaries == 15)
        // Weekly weigh-ins: days 0, 7 and 14.
        expectEqual(counts.records["HKQuantityTypeIdentifierBodyMass"], 3)
        // Heart rate every few minutes, every 5 s in workouts: hundreds a day.
        expect((counts.records["HKQuantityTypeIdentifierHeartRate"] ?? 0) > 15 * 250)
        // Dates as the export writes them.
        expect(!dates.isEmpty && dates.allSatisfy { $0.wholeMatch(of: /\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \+0100/) != nil })
        expect(dates.contains { $0.hasPrefix("2024-01-01 ") })
    }

    @Test("the same options write the same bytes; another seed writes others")  // R: E2
    func deterministic() throws {
        let a = try Self.generate(.init(days: 3, seed: 1)).0
        expectEqual(a, (try Self.generate(.init(days: 3, seed: 1)).0))
        expect(a != (try Self.generate(.init(days: 3, seed: 2)).0))
    }

    @Test("calendar dates across month, leap-day and year ends")  // R: E2
    func calendar() {
        for (y, m, d) in [(1970, 1, 1), (2024, 2, 28), (2024, 2, 29), (2024, 3, 1), (2024, 12, 31), (2025, 1, 1), (2100, 3, 1)] {
            let days = CivilDate.days(y, m, d)
            let back = CivilDate.date(days)
            expect(back.0 == y && back.1 == m && back.2 == d)
        }
        expectEqual(CivilDate.days(2024, 3, 1) - CivilDate.days(2024, 2, 28), 2)
        expectEqual(HealthExportGenerator(.init(days: 1, seed: 1)).date(CivilDate.days(2024, 2, 29) * 86_400 + 3_661), "2024-02-29 01:01:01 +0000")
    }
}
