#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PairSimCore
import Testing
import TestSupport
import ZeroMQ

@Suite("End to end: the pair on real processes")
struct PairTests {
    @Test("a workout finished on the watch reaches the phone with its UUID", .timeLimit(.minutes(5)))  // R: S1, S2, W1, W3, P2, P3
    func workoutReachesPhone() async throws {
        let pair = try PairHarness("e2e-finish")
        defer { pair.stopAll() }
        try await pair.up()
        try pair.must(.watch, "start-workout running")
        try await Task.sleep(for: .microseconds(500_000)) // 30 emulated seconds of running
        let uuid = try PairHarness.workoutID(try pair.must(.watch, "finish-workout"))
        try await pair.waitFor(.phone, "hk.saved of \(uuid)") { $0.name == "hk.saved" && $0["uuid"]?.stringValue == uuid }
        try await pair.waitFor(.phone, "record.saved linked to \(uuid)") {
            $0.name == "record.saved" && $0["healthKitWorkoutID"]?.stringValue == uuid
        }
        // The watch app's live builder: the sensor's readings reached the phone as they came, one
        // reading a batch, at least the 30 s's six (R: A10).
        let samples = try await pair.waitFor(.phone, "heart-rate samples") { $0.name == "hk.saved" && $0["type"]?.stringValue == "heartRate" }
        expect(samples.reduce(0) { $0 + ($1["count"]?.intValue ?? 0) } >= 6, "\(samples.count) batches")
        // The launcher relayed both nodes' output with prefixes.
        let (status, text) = try await pair.runTopology(["down", pair.topologyPath])
        expectEqual(status, 0, "\(text)the launcher's output:\n\(pair.output("launcher").split(separator: "\n").suffix(12).joined(separator: "\n"))")
        await pair.process("launcher")?.waitUntilExit()
        expectEqual(pair.process("launcher")?.terminationStatus, 0)
        let relayed = pair.output("launcher")
        expect(relayed.contains("watch │ ") && relayed.contains("phone │ "))
        expect(relayed.contains("workout.finished"))
    }

    @Test("a phone started after the workout still gets everything, once", .timeLimit(.minutes(5)))  // R: S5, S6
    func latePhone() async throws {
        let pair = try PairHarness("e2e-late")
        defer { pair.stopAll() }
        let epoch = PairHarness.now()
        try await pair.startNode(.watch, epoch: epoch)
        try pair.must(.watch, "start-workout cycling")
        try await Task.sleep(for: .microseconds(300_000))
        let uuid = try PairHarness.workoutID(try pair.must(.watch, "finish-workout"))
        try pair.must(.watch, "write-sample hrv 48")
        // The watch publishes into the void and retransmits with backoff: wait for that, not for a time.
        try await pair.waitFor(.watch, "a retransmit with nobody listening") { $0.name == "sync.retransmit" }
        try await pair.startNode(.phone, epoch: epoch)
        try await pair.waitFor(.phone, "the late workout") { $0.name == "hk.saved" && $0["uuid"]?.stringValue == uuid }
        try await pair.waitFor(.phone, "the HRV sample") { $0.name == "hk.saved" && $0["type"]?.stringValue == "heartRateVariabilitySDNN" }
        try await pair.waitFor(.watch, "all acknowledged") { _ in (try? pair.status(.watch))?["channels"]?["healthkit"]?["pending"]?.intValue == 0 }
        expectEqual(pair.events(.phone).filter { $0.name == "hk.saved" && $0["uuid"]?.stringValue == uuid }.count, 1)
    }

    @Test("unknown commands and bad arguments get an error reply; the node keeps running", .timeLimit(.minutes(5)))  // R: P3
    func commandErrors() async throws {
        let pair = try PairHarness("e2e-ctl")
        defer { pair.stopAll() }
        try await pair.up()
        let unknown = try pair.ctl(.watch, "fly-to-moon")
        expect(!unknown.ok && unknown.text.contains("unknown watch command"))
        let bad = try pair.ctl(.watch, "start-workout")
        expect(!bad.ok && bad.text.contains("usage: start-workout"))
        let (status, output) = try await pair.runTopology(["ctl", "-t", pair.topologyPath, "watch", "finish-workout"])
        expectEqual(status, 1)
        expect(output.contains("no session in progress"))
        try expect(pair.ctl(.watch, "status").ok)
        try await pair.waitFor(.watch, "command.failed events") { $0.name == "command.failed" }
    }

    @Test("commands on a node's stdin work like the control socket", .timeLimit(.minutes(5)))  // R: P3
    func stdinCommands() async throws {
        let pair = try PairHarness("e2e-stdin")
        defer { pair.stopAll() }
        let input = Pipe()
        try await pair.startNode(.watch, epoch: PairHarness.now(), stdin: input)
        input.fileHandleForWriting.write(Data("start-workout walking\nstatus\nbogus\n".utf8))
        try await pair.waitFor(.watch, "workout.started") { $0.name == "workout.started" }
        _ = await PairHarness.poll(seconds: 60) { pair.output("watch").contains("> error: unknown watch command") }
        let output = pair.output("watch")
        expect(output.contains("> started walking session #1"))
        expect(output.contains("> session: running walking"))
        expect(output.contains("> error: unknown watch command \"bogus\""))
        // Events are written when the node idles, but a stdin reply still follows its events.
        let event = output.range(of: "workout.started"), reply = output.range(of: "> started walking session #1")
        expect(event != nil && reply != nil && event!.lowerBound < reply!.lowerBound, "\(output)")
    }

    @Test("topology down leaves no process behind", .timeLimit(.minutes(5)))  // R: P2
    func downLeavesNothing() async throws {
        let pair = try PairHarness("e2e-down")
        defer { pair.stopAll() }
        let launcher = try await pair.up()
        let runFile = try String(contentsOfFile: ".pairsim/e2e-down.run.json", encoding: .utf8)
        let pids = try JSONParser().parse(runFile)
        let (status, text) = try await pair.runTopology(["down", pair.topologyPath])
        expectEqual(status, 0, "\(text)the launcher's output:\n\(pair.output("launcher").split(separator: "\n").suffix(12).joined(separator: "\n"))")
        await launcher.waitUntilExit()
        for key in ["launcher", "watch", "phone"] {
            let pid = Int32(pids[key]!.intValue!)
            expect(kill(pid, 0) != 0, "\(key) (pid \(pid)) still alive")
        }
        expect(!FileManager.default.fileExists(atPath: ".pairsim/e2e-down.run.json"))
    }

    @Test("the launcher exits non-zero when a node fails", .timeLimit(.minutes(5)))  // R: P2
    func launcherReportsFailure() async throws {
        let pair = try PairHarness("e2e-fail")
        defer { pair.stopAll() }
        let launcher = try await pair.up()
        let runFile = try JSONParser().parse(try String(contentsOfFile: ".pairsim/e2e-fail.run.json", encoding: .utf8))
        kill(Int32(runFile["phone"]!.intValue!), SIGKILL)
        await launcher.waitUntilExit()
        expect(launcher.terminationStatus != 0)
        expect(pair.output("launcher").contains("phone-node exited with status"))
    }
}

@Suite("End to end: scripts/run-pair.sh")
struct RunPairScriptTests {
    @Test("run-pair.sh finishes a workout and exits 0 once the phone logged its UUID", .timeLimit(.minutes(5)))  // R: P4
    func runPair() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        var environment = ProcessInfo.processInfo.environment
        environment["PAIRSIM_BIN"] = PairHarness.binDirectory
        environment["TOPOLOGY"] = "Topologies/instant.yaml"
        environment["WORKOUT_SECONDS"] = "1"
        let (status, output) = try await PairHarness.runProgram(root + "/scripts/run-pair.sh", [], environment: environment)
        expectEqual(status, 0, "\(output)")
        let uuid = try PairHarness.workoutID(output)
        expect(output.contains("ok: phone-node saved workout \(uuid)"))
        expect(output.contains("notification.posted title=\"Workout completed\""))
        expect(output.contains("record.saved") && output.contains("healthKitWorkoutID=\(uuid)"))
    }
}
