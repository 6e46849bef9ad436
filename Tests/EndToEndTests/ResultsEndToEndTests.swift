import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import TestSupport

/// Results where developers already look (R: I1, I2, I3): JUnit for CI, a Perfetto trace, the
/// report and the comparison page — from the real `topology` binary.
@Suite("End to end: JUnit, traces, reports")
struct ResultsEndToEndTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let scenarios = root + "/Topologies/scenarios"
    static let schema = root + "/Tests/Fixtures/junit.xsd"

    static func temporary(_ name: String) throws -> String {
        let path = NSTemporaryDirectory() + "pairsim-\(name)-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// xmllint (Debian's libxml2-utils, which scripts/test.sh installs) validates against the schema.
    static func validateJUnit(_ path: String) async throws {
        let xmllint = "/usr/bin/xmllint"
        guard FileManager.default.isExecutableFile(atPath: xmllint) else {
            Issue.record("xmllint is not installed (scripts/test.sh installs libxml2-utils)")
            return
        }
        let (status, output) = try await PairHarness.runProgram(xmllint, ["--noout", "--schema", schema, path])
        expectEqual(status, 0, "\(path) does not validate: \(output)")
    }

    static func xml(_ path: String) throws -> XMLDocument { try XMLDocument(contentsOf: URL(fileURLWithPath: path)) }

    @Test("simulate --junit: schema-valid, a test case per expectation, failures carry the verdict and the reproduce command",
          .timeLimit(.minutes(5)))  // R: I1
    func junitFromSimulate() async throws {
        let dir = try Self.temporary("junit")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let passing = dir + "/passing.xml"
        try await expectEqual(PairHarness.runTopology(["simulate", Self.scenarios + "/morning-run-pocket.yaml", "--junit", passing]).status, 0)
        try await Self.validateJUnit(passing)
        let good = try Self.xml(passing)
        let suites = try good.nodes(forXPath: "/testsuites/testsuite")
        expectEqual(suites.count, 1)
        try expectEqual(good.nodes(forXPath: "//testcase").count, 7, "one per expectation of morning-run-pocket")
        try expect(good.nodes(forXPath: "//failure").isEmpty)
        try expectEqual(good.nodes(forXPath: "//property[@name='emulatedDuration']/@value").first?.stringValue, "2h")

        let file = dir + "/failing.yaml"
        try """
            name: failing
            topology: \(Self.scenarios)/../default.yaml
            duration: 30m
            timeline:
              - { at: 5m, watch: write-sample hrv 50 }
              - { at: 6m, phone: open-workout nonsense }
            expect:
              - { never: "phone hk.saved" }
              - { eventually: "phone hk.saved" }
            """.write(toFile: file, atomically: true, encoding: .utf8)
        let failing = dir + "/failing.xml"
        try await expectEqual(PairHarness.runTopology(["simulate", file, "--seed", "7", "--junit", failing]).status, 1)
        try await Self.validateJUnit(failing)
        let bad = try Self.xml(failing)
        try expectEqual(bad.nodes(forXPath: "/testsuites/@failures").first?.stringValue, "2", "a failed expectation and a failed command")
        try expectEqual(bad.nodes(forXPath: "//testcase").count, 3)
        let failure = try #require(try bad.nodes(forXPath: "//testcase[failure]/failure").first?.stringValue)
        expect(failure.contains("✘ never phone hk.saved"))
        expect(failure.contains("reproduce with: topology simulate \(file) --seed 7"))
    }

    @Test("run --junit and --trace on real processes; topology log --trace traces the pair's own logs", .timeLimit(.minutes(5)))  // R: I1, I2
    func runOutputs() async throws {
        let dir = try Self.temporary("run-outputs")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (status, output) = try await PairHarness.runTopology([
            // Stepped time: the verdicts hang on 60 s windows, which a loaded machine misses at 120×.
            "run", Self.scenarios + "/foreground-after-refresh.yaml", "--clock", "stepped", "--dir", dir + "/pair",
            "--junit", dir + "/run.xml", "--trace", dir + "/run.trace.json",
        ])
        expectEqual(status, 0, "\(output)")
        try await Self.validateJUnit(dir + "/run.xml")
        try expectEqual(Self.xml(dir + "/run.xml").nodes(forXPath: "//property[@name='mode']/@value").first?.stringValue, "run")
        try TraceRules.check(dir + "/run.trace.json")
        let logged = try await PairHarness.runTopology(["log", dir + "/pair/topology.yaml", "--trace", dir + "/log.trace.json"])
        expectEqual(logged.status, 0, "\(logged.output)")
        let events = try TraceRules.check(dir + "/log.trace.json")
        expect(events.contains { $0["ph"] as? String == "B" && $0["name"] as? String == "foreground" })
    }

    @Test("the trace follows the format's rules and shows states, wakes, handlers, fetches, messages and counters",
          .timeLimit(.minutes(5)))  // R: I2
    func traceRules() async throws {
        let dir = try Self.temporary("trace")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/trace.json"
        try await expectEqual(PairHarness.runTopology(["simulate", Self.scenarios + "/locked-wake-while-locked.yaml", "--trace", path]).status, 0)
        let events = try TraceRules.check(path)
        func named(_ phase: String, _ name: String) -> Bool { events.contains { $0["ph"] as? String == phase && ($0["name"] as? String ?? "").hasPrefix(name) } }
        for state in ["foreground", "background", "suspended", "locked"] { expect(named("B", state), "no \(state) span") }
        expect(named("X", "wake workout") && named("X", "handler workout") && named("X", "fetch #") && named("X", "load "))
        expect(named("s", "healthkit #") && named("f", "healthkit #") && named("s", "cloudkit #"), "messages as flows")
        expect(named("C", "wakes") && named("C", "notifications"))
        let processes = events.filter { $0["ph"] as? String == "M" && $0["name"] as? String == "process_name" }
            .compactMap { ($0["args"] as? [String: Any])?["name"] as? String }
        expectEqual(Set(processes), ["watch", "phone"])
    }

    @Test("report.html draws app-state bands, coloured ticks, causal links and delay histograms; compare puts two runs side by side",
          .timeLimit(.minutes(5)))  // R: I3, A7
    func reportAndCompare() async throws {
        let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let chromium else {
            Issue.record("Debian's chromium is not installed (scripts/test.sh installs it)")
            return
        }
        let dir = try Self.temporary("compare")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await expectEqual(PairHarness.runTopology(["simulate", Self.scenarios + "/locked-during-workout.yaml", "--report", dir + "/apple"]).status, 0)
        try await expectEqual(PairHarness.runTopology(["simulate", Self.scenarios + "/locked-wake-while-locked.yaml", "--report", dir + "/seed004"]).status, 0)
        let compared = try await PairHarness.runTopology(["compare", dir + "/apple", dir + "/seed004", "--output", dir + "/compare.html"])
        expectEqual(compared.status, 0, "\(compared.output)")
        func dom(_ page: String) async throws -> String {
            try await PairHarness.runProgram(chromium, ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(dir)/profile", "--dump-dom", "file://\(page)"]).output
        }
        let report = try await dom(dir + "/apple/report.html")
        for state in ["foreground", "suspended", "locked"] { expect(report.contains("data-band=\"\(state)\""), "no \(state) band") }
        for kind in ["workout", "sync", "store", "lifecycle", "user"] { expect(report.contains("data-kind=\"\(kind)\""), "no \(kind) ticks") }
        expect(report.contains("class=\"causal\" data-link=\""), "no causal link")
        expect(report.contains("data-histogram=\"healthkit\"") && report.contains("data-histogram=\"cloudkit\""))
        expect(report.contains("<th>wakes</th>"))
        let page = try await dom(dir + "/compare.html")
        expectEqual(page.components(separatedBy: "class=\"compare-timeline\"").count, 3, "two timelines")
        expect(page.contains("data-counter=\"wakes\"") && page.contains("data-counter=\"notifications\""))
        expect(page.contains("Compare: apple vs seed004"))
        // The comparison reads its inputs back: a directory that is not a report is refused clearly.
        let refused = try await PairHarness.runTopology(["compare", dir + "/apple", dir + "/nothing"])
        expect(refused.status != 0 && refused.output.contains("summary.json: not found"), "\(refused.output)")
    }
}

/// The Chrome Trace Event format's rules, as ui.perfetto.dev and chrome://tracing read them.
enum TraceRules {
    /// Checks the file and returns its events: required fields per phase, B/E balanced and
    /// matching per track, timestamps never going back on a track, X durations not negative and
    /// X slices on one track nested (never half-overlapping), every flow start finished once.
    @discardableResult
    static func check(_ path: String) throws -> [[String: Any]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let events = try #require(root["traceEvents"] as? [[String: Any]])
        expect(events.count > 10)
        var open: [String: [String]] = [:], last: [String: Double] = [:], flows: [Int: Int] = [:]
        var slices: [String: [Double]] = [:] // per track, the ends of the X slices enclosing the current time
        for (index, event) in events.enumerated() {
            let phase = event["ph"] as? String ?? ""
            expect(event["name"] is String && event["pid"] is Int, "event \(index) lacks name or pid")
            if phase == "M" { continue }
            guard let ts = event["ts"] as? Double ?? (event["ts"] as? Int).map(Double.init), let tid = event["tid"] as? Int else {
                Issue.record("event \(index) lacks ts or tid: \(event)")
                continue
            }
            let track = "\(event["pid"]!)/\(tid)"
            expect(ts >= last[track, default: -1], "event \(index) goes back in time on track \(track)")
            last[track] = ts
            let name = event["name"] as! String
            switch phase {
            case "B": open[track, default: []].append(name)
            case "E":
                expectEqual(open[track]?.popLast(), name, "E \(name) at \(ts) does not close the open B on \(track)")
            case "X":
                let duration = Double(event["dur"] as? Int ?? -1)
                expect(duration >= 0, "X \(name) has no duration")
                var enclosing = slices[track, default: []]
                while let end = enclosing.last, end <= ts { enclosing.removeLast() }
                expect(enclosing.last.map { ts + duration <= $0 } ?? true, "X \(name) at \(ts) overlaps its enclosing slice on \(track)")
                enclosing.append(ts + duration)
                slices[track] = enclosing
            case "s": flows[event["id"] as? Int ?? -1, default: 0] += 1
            case "f": flows[event["id"] as? Int ?? -1, default: 0] -= 1
            case "i", "C": break
            default: Issue.record("unknown phase \(phase)")
            }
        }
        let unclosed = open.filter { !$0.value.isEmpty }, unpaired = flows.filter { $0.value != 0 }
        expect(unclosed.isEmpty, "unclosed spans: \(unclosed)")
        expect(unpaired.isEmpty, "unpaired flows: \(unpaired)")
        return events
    }
}

/// Both apps on real processes (R: A3, A4).
@Suite("End to end: the apps on real processes")
struct AppsEndToEndTests {
    /// Played by the wall clock (600×), the way `topology up` runs a pair: what it checks holds
    /// however late a timeline command lands on a busy machine.
    @Test("topology apps lists the build's apps; run --app delta-sync plays a scenario with it on real nodes", .timeLimit(.minutes(5)))  // R: A4
    func deltaSyncOnRealProcesses() async throws {
        let listed = try await PairHarness.runTopology(["apps"])
        expect(listed.status == 0 && listed.output.contains("reference (this topology's)") && listed.output.contains("delta-sync"), "\(listed.output)")
        let dir = try ResultsEndToEndTests.temporary("delta-run")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try await PairHarness.runTopology(["run", ResultsEndToEndTests.scenarios + "/morning-run-pocket.yaml", "--app", "delta-sync",
                                         "--clock", "stepped", "--dir", dir + "/pair", "--report", dir + "/report"])
        let events = try String(contentsOfFile: dir + "/report/events.jsonl", encoding: .utf8)
        expect(events.contains(#""appName":"delta-sync""#))
        expect(events.contains(#""event":"delta.fetched","by":"app""#))
        expect(events.contains(#""event":"notification.posted""#) && events.contains("Workout completed"))
        expect(!events.contains(#""event":"snapshot.fetch""#), "the reference app is not running")
        let unknown = try await PairHarness.runTopology(["run", ResultsEndToEndTests.scenarios + "/morning-run-pocket.yaml", "--app", "nope",
                                                   "--dir", dir + "/pair2"])
        expect(unknown.status != 0)
    }
}
