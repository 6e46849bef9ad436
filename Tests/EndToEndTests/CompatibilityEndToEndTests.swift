#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PairSimCore
import Testing
import TestSupport

/// The source-compatibility suite (Tests/Compatibility): files written as Apple's documentation
/// writes them, only the import changed, compiled into `pairsim-compat` with PairSim's wrappers.
@Suite("End to end: Apple-style app code, only the import changed")
struct CompatibilityEndToEndTests {
    static let directory = FileManager.default.currentDirectoryPath + "/Tests/Compatibility/Scenarios"

    static var scenarios: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".yaml") }.sorted()
    }

    @Test("each file's scenario passes in the simulator, and the same seed logs the same bytes in two processes",
          arguments: scenarios)  // R: A13, A14
    func scenario(_ name: String) async throws {
        let program = PairHarness.binDirectory + "/pairsim-compat"
        let first = try await PairHarness.runProgram(program, ["simulate", Self.directory + "/" + name, "--seed", "11", "--events"])
        expectEqual(first.status, 0, "\(first.output.suffix(3_000))")
        expect(first.output.contains("app.print"), "the app's code ran and printed")
        let second = try await PairHarness.runProgram(program, ["simulate", Self.directory + "/" + name, "--seed", "11", "--events"])
        expectEqual(second.output, first.output, "a second process with the same seed differs")
    }

    @Test("a deliberately broken watch app fails the scenario's expectations on real processes as in simulation", .timeLimit(.minutes(5)))  // R: A8, A9, A12
    func brokenWatchApp() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pairsim-broken-\(UInt32.random(in: 0...UInt32.max))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/broken.yaml"
        try """
            name: broken-watch
            topology: instant
            overrides:
              watch: { app: workout-watch-broken }
            duration: 10m
            timeline:
              - { at: 30s, watch: foreground }
              - { at: 1m, watch: start-workout running }
              - { at: 6m, watch: finish-workout }
            expect:
              - { exactly: 1, of: "watch workout.finished" }
              - { never: "watch workout.finish.failed" }
            """.write(toFile: file, atomically: true, encoding: .utf8)
        let program = PairHarness.binDirectory + "/pairsim-compat"
        let simulated = try await PairHarness.runProgram(program, ["simulate", file])
        let ran = try await PairHarness.runProgram(program, ["run", file, "--clock", "stepped", "--dir", dir + "/nodes"])
        for (mode, result) in [("simulate", simulated), ("run", ran)] {
            expectEqual(result.status, 1, "\(mode): \(result.output.suffix(2_000))")
            expect(result.output.contains("✘ exactly 1 × watch workout.finished — 0 time(s)"), "\(mode): \(result.output.suffix(2_000))")
            expect(result.output.contains("✘ never watch workout.finish.failed"), "\(mode)")
            expect(result.output.contains("reproduce with: pairsim-compat \(mode) "), "\(mode)")
        }
    }

    @Test("the suite has every file it names: eleven scenarios over twelve files, in both language modes, the watch's included")  // R: A13, A9
    func allThere() {
        expectEqual(Self.scenarios.count, 11)
    }

    /// Foundation's `UserDefaults.standard` on a real node lives in the node's data directory and
    /// is written after each delivery, so it survives kill -9, as an app's defaults survive a crash.
    @Test("UserDefaults.standard of a real node's app survives kill -9 (AnchoredSyncStore's archived anchor)", .timeLimit(.minutes(5)))  // R: A13
    func userDefaultsSurviveKill() async throws {
        let pair = try PairHarness("e2e-compat-defaults")
        defer { pair.stopAll() }
        let epoch = PairHarness.now()
        try await pair.startNode(.watch, epoch: epoch)
        try await pair.startNode(.phone, epoch: epoch, executable: "pairsim-compat", app: "compat-anchored-sync")
        func printed(_ text: String) -> (Event) -> Bool { { $0.name == "app.print" && $0["text"]?.stringValue == text } }
        try pair.must(.phone, "foreground")
        try await pair.waitFor(.phone, "the first sync", printed("synced: +0 -0, 0 kept"))
        try pair.must(.watch, "write-sample hr 70")
        try await pair.waitFor(.phone, "the sample's update", printed("synced: +1 -0, 1 kept"))
        await pair.stop("phone", signal: SIGKILL)
        // Started as by hand this time: the node sets XDG_CONFIG_HOME itself (and starts again
        // with it), where the harness, as the launchers do, set it before.
        try await pair.startNode(.phone, epoch: epoch, executable: "pairsim-compat", app: "compat-anchored-sync", presetConfigHome: false)
        // The relaunched app's query starts at the archived anchor: nothing new since.
        try await pair.waitFor(.phone, count: 2, "the sync after the restart", printed("synced: +0 -0, 0 kept"))
        expect(!pair.events(.phone).contains(where: printed("synced: +1 -0, 2 kept")))
        // In the node's own directory, not ~/.config where every run of the executable would share it.
        expect(FileManager.default.fileExists(atPath: pair.topology.nodes[.phone]!.data + "/defaults/pairsim-compat.plist"))
    }
}

@Suite("docs/APPS.md's table of Apple's API")
struct APITableTests {
    /// The table is generated from PairSimKit's declarations (the symbol graph of the built module);
    /// a declaration added, renamed or tagged differently without regenerating it fails here.
    @Test("docs/APPS.md's API table is what PairSimKit declares (scripts/api-table.py --check)")  // R: A16
    func tableIsCurrent() async throws {
        let result = try await PairHarness.runProgram("/usr/bin/env", ["python3", FileManager.default.currentDirectoryPath + "/scripts/api-table.py", "--check"])
        expectEqual(result.status, 0, "\(result.output)")
    }
}
