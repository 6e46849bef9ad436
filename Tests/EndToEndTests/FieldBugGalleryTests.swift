import Foundation
import Testing
import TestSupport

/// The field-bug gallery (docs/FIELD-BUGS.md, Examples/FieldBugs): each entry's buggy app fails its
/// scenario and its fixed app passes it. scripts/field-bugs.sh checks 8 seeds each way and the
/// real-process runs (scripts/test.sh runs it); these tests play one seed each way per entry, check
/// the entries marked `real` on real processes, and hold the gallery to its documented shape.
@Suite("The field-bug gallery")
struct FieldBugGalleryTests {
    struct Entry: CustomTestStringConvertible, Sendable {
        let number: String, device: String, scenario: String, buggy: String, fixed: String, real: Bool
        var testDescription: String { "\(number) \(scenario)" }
        var path: String { FieldBugGalleryTests.root + "/Examples/FieldBugs/Scenarios/" + scenario }
        var appOption: String { device == "watch" ? "--watch-app" : "--app" }
    }

    static let root = FileManager.default.currentDirectoryPath
    static var program: String { PairHarness.binDirectory + "/field-bugs" }

    /// Examples/FieldBugs/gallery.tsv, as scripts/field-bugs.sh reads it.
    static let entries: [Entry] = {
        let text = (try? String(contentsOfFile: root + "/Examples/FieldBugs/gallery.tsv", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#") else { return nil }
            let fields = line.split(separator: "\t").map(String.init)
            guard fields.count == 6 else { return nil }
            return Entry(number: fields[0], device: fields[1], scenario: fields[2], buggy: fields[3], fixed: fields[4], real: fields[5] == "real")
        }
    }()

    @Test("in simulation the buggy app fails its scenario and the fixed app passes it", arguments: entries)  // R: F1
    func simulated(_ entry: Entry) async throws {
        let fixed = try await PairHarness.runProgram(Self.program, ["simulate", entry.path, "--seed", "7", entry.appOption, entry.fixed])
        expectEqual(fixed.status, 0, "\(fixed.output.suffix(2_000))")
        let buggy = try await PairHarness.runProgram(Self.program, ["simulate", entry.path, "--seed", "7", entry.appOption, entry.buggy])
        expectEqual(buggy.status, 1, "\(buggy.output.suffix(2_000))")
        expect(buggy.output.contains("✘"), "an expectation fails, not only a command")
        expect(buggy.output.contains("reproduce with: field-bugs simulate \(entry.path) --seed 7 \(entry.appOption) \(entry.buggy)"))
    }

    @Test("on real processes the buggy app fails and the fixed app passes", .timeLimit(.minutes(5)), arguments: entries.filter(\.real))  // R: F1
    func realProcesses(_ entry: Entry) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pairsim-fieldbug-\(entry.number)-\(UInt32.random(in: 0...UInt32.max))").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (app, status) in [(entry.fixed, Int32(0)), (entry.buggy, Int32(1))] {
            let result = try await PairHarness.runProgram(Self.program, ["run", entry.path, "--clock", "stepped", entry.appOption, app, "--dir", dir + "/" + app])
            expectEqual(result.status, status, "\(app): \(result.output.suffix(2_000))")
        }
    }

    @Test("at least ten entries, each cited in docs/FIELD-BUGS.md by repository and number, both apps registered, three or more on real processes")  // R: F1
    func shape() async throws {
        expect(Self.entries.count >= 10)
        expect(Self.entries.filter(\.real).count >= 3)
        let doc = try String(contentsOfFile: Self.root + "/docs/FIELD-BUGS.md", encoding: .utf8)
        let apps = try await PairHarness.runProgram(Self.program, ["apps"])
        for entry in Self.entries {
            let row = doc.split(separator: "\n").first { $0.hasPrefix("| \(entry.number) |") }.map(String.init)
            expect(row != nil, "docs/FIELD-BUGS.md has no row for entry \(entry.number)")
            expect(row?.contains("https://github.com/") == true && row?.range(of: #"[\w.-]+/[\w.-]+#\d+"#, options: .regularExpression) != nil,
                    "entry \(entry.number) cites a repository and number")
            expect(FileManager.default.fileExists(atPath: entry.path))
            for app in [entry.buggy, entry.fixed] {
                expect(apps.output.contains(app + (entry.device == "watch" ? " [watch]" : " — ")), "\(app) is registered as a \(entry.device) app")
            }
        }
        // Background delivery, anchors, WatchConnectivity and the watch's workout lifecycle.
        for area in ["background delivery", "anchors", "WatchConnectivity", "workout lifecycle"] {
            expect(doc.contains("| \(area) |") || doc.contains("| \(area),"), "an entry covers \(area)")
        }
    }

    /// An observer query outlives suspension: with no background delivery the app is not woken for
    /// the run, but hears of it when the user opens the app (docs/FIDELITY.md).
    @Test("03's buggy app is not woken for the run but hears of it when the user opens the app four hours later")  // R: F1, O1
    func observerHeardOnReturn() async throws {
        let entry = try #require(Self.entries.first { $0.number == "03" })
        let result = try await PairHarness.runProgram(Self.program, ["simulate", entry.path, "--events", "--app", entry.buggy])
        let lines = result.output.split(separator: "\n").filter { $0.hasPrefix("phone │") && ($0.contains("gallery.workout") || $0.contains("trigger=change")) }
        expectEqual(lines.count, 2, "\(lines)")
        expect(lines.allSatisfy { $0.contains("04:00:00.000") }, "\(lines)")
    }
}
