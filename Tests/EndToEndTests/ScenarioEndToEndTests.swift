#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PairSimCore
import PairSimRuntime
import Testing
import TestSupport

@Suite("End to end: scenarios, simulation and reports")
struct ScenarioEndToEndTests {
    static let scenarios = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Topologies/scenarios").path

    static func topology(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await PairHarness.runTopology(arguments)
    }

    static func temporary(_ name: String) -> String {
        NSTemporaryDirectory() + "pairsim-\(name)-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// The verdict lines (✔/✘ and the label), without the measured details that differ between runs.
    static func verdicts(_ output: String) -> [String] {
        output.split(separator: "\n").filter { $0.hasPrefix("  ✔") || $0.hasPrefix("  ✘") }
            .map { String($0.split(separator: "—", maxSplits: 1)[0]).trimmingCharacters(in: .whitespaces) }
    }

    /// The reference app, and delta-sync, whose work starts in `Task { }` on the app's executor.
    /// (`Examples/MyHealthApp`, which scripts/test.sh plays, uses `DispatchQueue.main` too.)
    @Test("simulate: the same seed writes the same events.jsonl byte for byte, an app's Task { } included",
          .timeLimit(.minutes(5)), arguments: [("hrv-storm", "reference"), ("week-of-normal-life", "delta-sync")])  // R: P6, A14
    func sameSeedSameBytes(scenario: String, app: String) async throws {
        let a = Self.temporary("sim-a"), b = Self.temporary("sim-b")
        defer { for dir in [a, b] { try? FileManager.default.removeItem(atPath: dir) } }
        let file = Self.scenarios + "/\(scenario).yaml"
        try await expectEqual(Self.topology(["simulate", file, "--seed", "99", "--app", app, "--report", a]).status, 0)
        try await expectEqual(Self.topology(["simulate", file, "--seed", "99", "--app", app, "--report", b]).status, 0)
        let first = try Data(contentsOf: URL(fileURLWithPath: a + "/events.jsonl"))
        expect(first.count > 1_000)
        expectEqual(first, (try Data(contentsOf: URL(fileURLWithPath: b + "/events.jsonl"))))
        for name in ["summary.json", "report.html"] { expect(FileManager.default.fileExists(atPath: a + "/" + name)) }
        if app == "delta-sync" {
            let log = String(decoding: first, as: UTF8.self)
            expect(log.contains(#""event":"delta.fetched","by":"app""#), "the Task { } ran")
            expect(log.contains(#""event":"notification.posted""#))
        }
    }

    @Test("topology run starts the timeline when both nodes are ready and lands each command at its instant: a 30-minute workout has simulate's 361 samples", .timeLimit(.minutes(5)))  // R: K9
    func runKeepsItsWord() async throws {
        let dir = Self.temporary("on-time")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/on-time.yaml"
        try """
            name: on-time
            topology: \(Self.scenarios)/../default.yaml
            duration: 35m
            timeline:
              - { at: 0, watch: write-sample hrv 50 }
              - { at: 0, phone: background }
              - { at: 1m, watch: start-workout running }
              - { at: 31m, watch: finish-workout }
            expect:
              - { eventually: "watch workout.finished duration=30m samples=361" }
            """.write(toFile: file, atomically: true, encoding: .utf8)
        let run = try await Self.topology(["run", file, "--time-scale", "600", "--dir", dir + "/run"])
        let finished = EventLog.read(path: dir + "/run/watch/events.jsonl").filter { $0.name == "workout.finished" }.map(\.humanLine)
        expectEqual(run.status, 0, "\(run.output)\nthe watch's workout.finished: \(finished)")
        let started = EventLog.read(path: dir + "/run/watch/events.jsonl").first { $0.name == "workout.started" }
        expectEqual(started?.at, .zero + .minutes(1), "the first command at 1m, not when the launcher's clock got there: \(String(describing: started?.at))")
        expectEqual(EventLog.read(path: dir + "/run/watch/events.jsonl").first { $0.name == "sample.written" }?.at, .zero, "at 0 runs at 0")
        expectEqual(EventLog.read(path: dir + "/run/phone/events.jsonl").first { $0.name == "app.state" && $0["to"] == "background" }?.at, .zero,
                "on the other node at the same instant")
    }

    @Test("topology run --nemesis kills real processes, partitions and bursts as drawn from the seed, then checks PairSim's invariants and the scenario's own", .timeLimit(.minutes(5)))  // R: K9, V3
    func runWithNemesis() async throws {
        let dir = Self.temporary("run-nemesis")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (name, invariant, passes) in [("kept", "{ atMost: 1, of: \"phone notification.posted\" }", true),
                                          ("broken", "{ never: \"watch workout.finished\" }", false)] {
            let file = dir + "/\(name).yaml"
            try """
                name: \(name)
                topology: \(Self.scenarios)/../default.yaml
                duration: 1h
                timeline:
                  - { at: 5m, watch: start-workout running }
                  - { at: 25m, watch: finish-workout }
                invariants:
                  - \(invariant)
                """.write(toFile: file, atomically: true, encoding: .utf8)
            let run = try await Self.topology(["run", file, "--nemesis", "--clock", "stepped", "--dir", dir + "/\(name).run"])
            expectEqual((run.status == 0), passes, "\(run.output)")
            expect(run.output.contains("nemesis: 6 node kill(s)"), "\(run.output)")
            expect(run.output.contains("✔ invariant: every node is up at the end — 6 kill(s), all restarted"), "\(run.output)")
            expect(run.output.contains("✔ invariant: nothing lost: what each side made before the nemesis ended reached the other"), "\(run.output)")
            if !passes {
                expect(run.output.contains("✘ invariant: never watch workout.finished") && run.output.contains("--nemesis"), "\(run.output)")
            }
            // The nodes were killed for real: each restart logged restored=true.
            let restarts = EventLog.read(path: dir + "/\(name).run/watch/events.jsonl").filter { $0.name == "node.started" && $0["restored"] == .bool(true) }
                + EventLog.read(path: dir + "/\(name).run/phone/events.jsonl").filter { $0.name == "node.started" && $0["restored"] == .bool(true) }
            expectEqual(restarts.count, 6, "\(restarts.count) restarts")
        }
    }

    @Test("a failing simulation says how to reproduce it and exits non-zero", .timeLimit(.minutes(5)))  // R: P6
    func failingSimulation() async throws {
        let dir = Self.temporary("fail")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/failing.yaml"
        try """
            name: failing
            topology: \(Self.scenarios)/../default.yaml
            duration: 30m
            timeline:
              - { at: 5m, watch: write-sample hrv 50 }
            expect:
              - { never: "phone hk.saved" }
              - { eventually: "phone bgdelivery.stopped" }
            """.write(toFile: file, atomically: true, encoding: .utf8)
        let (status, output) = try await Self.topology(["simulate", file, "--seed", "1234"])
        expectEqual(status, 1)
        expect(output.contains("FAILED: 2 problem(s)"))
        expect(output.contains("reproduce with: topology simulate \(file) --seed 1234"))
    }

    /// Library scenarios played on real processes too, in stepped time: the launcher moves the
    /// clock from one deadline to the next once the pair is quiet, so a run's timing is the
    /// topology's however loaded the machine, and the fourteen run side by side.
    static let agreeing: [String] = [
        "morning-run-pocket", "three-missed-completions", "watch-out-of-range",
        // The lifecycle rules (R: H4, C6, L1, L2), as Apple documents them and as the seeds' options read them.
        "locked-during-workout", "locked-wake-while-locked", "unlock-returns-to-app",
        "foreground-after-refresh", "foreground-time-away", "leaving-the-screen",
        // kill-node / restart-node: kill -9 and a restart on real processes, the durable image in simulation (R: V1).
        "nodes-killed-mid-stream",
        // import-health of a file named relative to the scenario, on real processes (R: E1).
        "replay-health-export",
        // WatchConnectivity: the watch's workout message and the Train tab at once, and without it (R: X4).
        "instant-workout-message", "instant-workout-message-off", "wc-transfers-in-and-out-of-range",
        // A developer's watch app (workout-watch) hosted on the watch, as the phone's app is (R: A8, A9).
        "hosted-watch-workout", "hosted-watch-killed",
        // Background execution (R: F2): a UIKit task's expiry, BGTasks at the system's discretion, plug-in.
        "background-tasks",
        // WatchConnectivity as documented: a force-quit app launched by a message, refusals a timeline expects (R: F6).
        "wc-as-documented",
        // A watch app that is not running, launched in the background by a transfer (R: F3).
        "hosted-watch-launched-by-transfer",
    ]

    /// An event log as a sorted list of lines, less what a driver stamps of its own: the boot id
    /// and the process's endpoints and time scale (and byte counts, which carry the boot id).
    static func comparable(_ path: String) throws -> [String] {
        EventLog.read(path: path).compactMap { event -> String? in
            // Logged by one driver only (docs/SCENARIOS.md#stepped-time): a process says when it
            // is ready; the simulator logs the kills it plays; `node.stopped` counts the bytes of
            // the hello, which carries the boot id.
            guard !["node.ready", "node.killed", "node.stopped"].contains(event.name) else { return nil }
            var event = event
            var fields = JSONObject()
            for member in event.fields.members where !["boot", "timeScale", "publish", "control", "peer"].contains(member.key) {
                fields.append(member.key, member.value)
            }
            event.fields = fields
            return "\(event.node) \(event.humanLine)"
        }.sorted()
    }

    @Test("run in stepped time and simulate reach the same verdicts, and log the same events", .timeLimit(.minutes(10)), arguments: agreeing)  // R: P6, H4, C6, L1, L2, V1, E1, X4, A12, A8, A9, F2, F6, F3
    func agreement(scenario: String) async throws {
        let file = Self.scenarios + "/\(scenario).yaml"
        let simulatedDir = Self.temporary("sim-\(scenario)"), ranDir = Self.temporary("run-\(scenario)")
        defer { for dir in [simulatedDir, ranDir] { try? FileManager.default.removeItem(atPath: dir) } }
        let simulated = try await PairHarness.runTopology(["simulate", file, "--report", simulatedDir])
        let ran = try await PairHarness.runTopology(["run", file, "--clock", "stepped", "--dir", ranDir + "/nodes", "--report", ranDir])
        expectEqual(simulated.status, 0, "\(simulated.output)")
        expectEqual(ran.status, 0, "\(ran.output)")
        expect(!Self.verdicts(ran.output).isEmpty)
        expectEqual(Self.verdicts(ran.output), Self.verdicts(simulated.output), "run:\n\(ran.output)\nsimulate:\n\(simulated.output)")
        // Kills end a process mid-way: a real node takes the frames waiting for it in one turn,
        // where the simulator makes each its own turn (docs/SCENARIOS.md#stepped-time). Elsewhere
        // the two drivers log the same events at the same instants.
        if !scenario.contains("killed") {
            let simulatedEvents = try Self.comparable(simulatedDir + "/events.jsonl"), ranEvents = try Self.comparable(ranDir + "/events.jsonl")
            let onlySimulated = Self.difference(simulatedEvents, ranEvents), onlyRan = Self.difference(ranEvents, simulatedEvents)
            expect(onlySimulated.isEmpty && onlyRan.isEmpty,
                    "only in simulate:\n\(onlySimulated.prefix(10).joined(separator: "\n"))\nonly in run:\n\(onlyRan.prefix(10).joined(separator: "\n"))")
        }
    }

    /// The lines of `a` not matched one for one in `b` (both sorted).
    static func difference(_ a: [String], _ b: [String]) -> [String] {
        var counts: [String: Int] = [:]
        for line in b { counts[line, default: 0] += 1 }
        return a.filter { line in
            guard let count = counts[line], count > 0 else { return true }
            counts[line] = count - 1
            return false
        }
    }

    @Test("the report renders in headless Chromium with its lanes and heart-rate chart", .timeLimit(.minutes(5)))  // R: P6
    func reportInChromium() async throws {
        let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let chromium else {
            Issue.record("Debian's chromium is not installed (scripts/test.sh installs it)")
            return
        }
        let dir = Self.temporary("report")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await expectEqual(Self.topology(["simulate", Self.scenarios + "/morning-run-pocket.yaml", "--report", dir]).status, 0)
        let (_, dom) = try await PairHarness.runProgram(chromium, ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(dir)/profile",
                                                             "--dump-dom", "file://\(dir)/report.html"])
        // The lanes and the chart exist only once the page's script has run: the DOM proves it rendered.
        for lane in ["watch", "healthkit", "cloudkit", "phone"] {
            expect(dom.contains("data-lane=\"\(lane)\""), "lane \(lane) missing")
        }
        expect(dom.components(separatedBy: "<rect").count > 10, "no event ticks drawn")
        expect(dom.contains("<polyline") && dom.contains("class=\"hr\""), "no heart-rate chart drawn")
        expect(dom.contains("Scenario morning-run-pocket — passed"))
        let html = try String(contentsOfFile: dir + "/report.html", encoding: .utf8)
        expect(!html.contains("src=") && !html.contains("<link") && !html.contains("url("), "the page must be self-contained")
    }
}

@Suite("End to end: topology swarm")
struct SwarmEndToEndTests {
    @Test("swarm runs seeds in worker processes; a failing seed is printed with its reproduce command, which replays it", .timeLimit(.minutes(5)))  // R: V4, I1
    func swarm() async throws {
        let dir = try ResultsEndToEndTests.temporary("swarm")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // One kill per seed, drawn from it: a correct build passes the invariants for every seed.
        let file = try Self.oneKill(in: dir)
        let junit = dir + "/swarm.xml"
        let (status, output) = try await PairHarness.runTopology(["swarm", file, "--seeds", "12", "--from", "40", "--jobs", "3", "--junit", junit])
        expectEqual(status, 0, "\(output)")
        expect(output.contains("swarm one-kill --nemesis: 12 seed(s) from 40 in"), "\(output)")
        expect(output.contains("3 worker(s)): 0 failed"), "\(output)")
        try await ResultsEndToEndTests.validateJUnit(junit)
        try expectEqual(String(contentsOfFile: junit, encoding: .utf8).components(separatedBy: "<testsuite ").count, 13)
        let one = try await PairHarness.runTopology(["simulate", file, "--seed", "41"])
        expect(one.status == 0 && one.output.contains("nemesis: 1 node kill(s)"), "\(one.output)")

        // Without the nemesis the scenario's expectations decide: this one fails for every seed.
        let failing = dir + "/failing.yaml"
        try """
            name: failing
            topology: \(ResultsEndToEndTests.scenarios)/../default.yaml
            duration: 30m
            timeline:
              - { at: 5m, watch: write-sample hrv 50 }
            expect:
              - { never: "phone hk.saved" }
            """.write(toFile: failing, atomically: true, encoding: .utf8)
        let bad = try await PairHarness.runTopology(["swarm", failing, "--seeds", "4", "--from", "7"])
        expectEqual(bad.status, 1)
        for seed in 7...10 { expect(bad.output.contains("reproduce with: topology simulate \(failing) --seed \(seed)\n"), "\(bad.output)") }
        expect(bad.output.contains("4 failed"))
        let replay = try await PairHarness.runTopology(["simulate", failing, "--seed", "9"])
        expect(replay.status == 1 && replay.output.contains("✘ never phone hk.saved"), "\(replay.output)")
    }

    /// A JUnit file without what differs between two runs of the same seeds: wall times and the timestamp.
    static func timeless(_ path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8)
            .replacingOccurrences(of: #"(time|timestamp)="[^"]*""#, with: "", options: .regularExpression)
            .replacingOccurrences(of: #"name="wallSeconds" value="[^"]*""#, with: "", options: .regularExpression)
    }

    @Test("three shards run as separate processes and merged report what one unsharded swarm of the same seeds does", .timeLimit(.minutes(5)))  // R: V4, I1
    func shardsMerge() async throws {
        let dir = try ResultsEndToEndTests.temporary("shards")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Some seeds fail: the healthkit channel's latency (uniform 1–4 s) decides whether the
        // sample lands within 2.5 s.
        let file = dir + "/mixed.yaml"
        try """
            name: mixed
            topology: \(ResultsEndToEndTests.scenarios)/../default.yaml
            duration: 20m
            timeline:
              - { at: 5m, watch: write-sample hrv 50 }
            expect:
              - { after: "watch sample.written", within: 2500ms, then: "phone hk.saved" }
            """.write(toFile: file, atomically: true, encoding: .utf8)
        let whole = try await PairHarness.runTopology(["swarm", file, "--seeds", "15", "--from", "3", "--junit", dir + "/whole.xml"])
        expectEqual(whole.status, 1, "\(whole.output)")
        async let one = PairHarness.runTopology(["swarm", file, "--seeds", "15", "--from", "3", "--shard", "1/3", "--results", dir + "/results"])
        async let two = PairHarness.runTopology(["swarm", file, "--seeds", "15", "--from", "3", "--shard", "2/3", "--results", dir + "/results"])
        async let three = PairHarness.runTopology(["swarm", file, "--seeds", "15", "--from", "3", "--shard", "3/3", "--results", dir + "/results"])
        let shards = try await [one, two, three]
        for (index, shard) in shards.enumerated() {
            expect(shard.output.contains("swarm mixed: 5 seed(s) from 3, shard \(index + 1)/3 in"), "\(shard.output)")
        }
        // More shards than seeds: a shard with none starts no worker and passes.
        let empty = try await PairHarness.runTopology(["swarm", file, "--seeds", "2", "--from", "3", "--shard", "3/3"])
        expect(empty.status == 0 && empty.output.contains("swarm mixed: 0 seed(s) from 3, shard 3/3 in") && empty.output.contains("(0.0 seeds/s, 0 worker(s)): 0 failed"),
               "\(empty.output)")
        let merged = try await PairHarness.runTopology(["swarm", "merge", dir + "/results", "--junit", dir + "/merged.xml"])
        expectEqual(merged.status, 1, "\(merged.output)")
        // Every failing seed, what failed and its reproduce line: the same lines, in the same order.
        let failures = { (output: String) in output.split(separator: "\n").filter { !$0.hasPrefix("swarm ") } }
        expect(!failures(whole.output).isEmpty)
        expectEqual(failures(merged.output), failures(whole.output), "merged:\n\(merged.output)\nwhole:\n\(whole.output)")
        let failed = try #require(whole.output.split(separator: "\n").last { $0.hasPrefix("swarm ") }?.split(separator: ":").last)
        expect(merged.output.contains("swarm mixed: 15 seed(s) from 3, merged from 3 shard(s):\(failed)"), "\(merged.output)")
        try await ResultsEndToEndTests.validateJUnit(dir + "/merged.xml")
        try expectEqual(Self.timeless(dir + "/merged.xml"), Self.timeless(dir + "/whole.xml"))

        // A shard missing: the merge says which, counts its seeds as not run and fails.
        try FileManager.default.removeItem(atPath: dir + "/results/shard-2-of-3.jsonl")
        let partial = try await PairHarness.runTopology(["swarm", "merge", dir + "/results"])
        expect(partial.status == 1 && partial.output.contains("shard 2/3: no results") && partial.output.contains(", 5 not run"), "\(partial.output)")
        // Another swarm's shard is refused, naming both.
        _ = try await PairHarness.runTopology(["swarm", file, "--seeds", "15", "--from", "4", "--shard", "2/3", "--results", dir + "/results"])
        let mixed = try await PairHarness.runTopology(["swarm", "merge", dir + "/results"])
        expect(mixed.status != 0 && mixed.output.contains("another swarm's results"), "\(mixed.output)")
    }

    /// The container file, the Indexed Job and the CI-matrix example (docs/SWARM.md): the
    /// manifests against Kubernetes' schemas (kubernetes-validate) and GitHub's workflow schema
    /// (check-jsonschema), both from PyPI, which scripts/test.sh installs.
    @Test("the Kubernetes Indexed Job and the CI matrix example validate against their schemas; each shard is the completion index's", .timeLimit(.minutes(5)))  // R: V4
    func deployFilesValidate() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let job = try String(contentsOfFile: root + "/deploy/kubernetes/swarm-job.yaml", encoding: .utf8)
        expect(job.contains("completionMode: Indexed") && job.contains(#"--shard "$((JOB_COMPLETION_INDEX + 1))/$SHARDS""#))
        expect(job.contains("completions: 100") && job.contains(#"value: "100""#), "SHARDS matches completions")
        let dockerfile = try String(contentsOfFile: root + "/deploy/Dockerfile", encoding: .utf8)
        expect(dockerfile.contains("FROM swift:") && dockerfile.contains("--product topology"))
        let validators = ["kubernetes-validate", "check-jsonschema"]
        for tool in validators {
            guard (try? await PairHarness.runProgram("/usr/bin/env", [tool, "--version"]))?.status == 0 else {
                Issue.record("\(tool) is not installed (scripts/test.sh installs it from PyPI)")
                return
            }
        }
        let kubernetes = try await PairHarness.runProgram("/usr/bin/env", ["kubernetes-validate", "-k", "1.31.0", "--strict",
                                                                      root + "/deploy/kubernetes/swarm-job.yaml", root + "/deploy/kubernetes/swarm-merge-job.yaml"])
        expectEqual(kubernetes.status, 0, "\(kubernetes.output)")
        let workflow = try await PairHarness.runProgram("/usr/bin/env", ["check-jsonschema", "--builtin-schema", "vendor.github-workflows",
                                                                    root + "/deploy/github-actions/swarm.yml"])
        expectEqual(workflow.status, 0, "\(workflow.output)")
    }
}
