#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PairSimCore
import Testing
import TestSupport

@Suite("End to end: restarts keep state")
struct RestartTests {
    @Test("a watch killed with an unacknowledged outbox delivers it after restart", .timeLimit(.minutes(5)))  // R: S5
    func watchOutboxSurvivesKill() async throws {
        let pair = try PairHarness("e2e-kill-watch")
        defer { pair.stopAll() }
        let epoch = PairHarness.now()
        try await pair.startNode(.watch, epoch: epoch)
        try pair.must(.watch, "start-workout rowing")
        try await Task.sleep(for: .microseconds(200_000))
        let uuid = try PairHarness.workoutID(try pair.must(.watch, "finish-workout"))
        await pair.stop("watch", signal: SIGKILL)
        try await pair.startNode(.watch, epoch: epoch)
        try await pair.startNode(.phone, epoch: epoch)
        try await pair.waitFor(.phone, "the workout from before the kill") { $0.name == "hk.saved" && $0["uuid"]?.stringValue == uuid }
        let started = pair.events(.watch).filter { $0.name == "node.started" }
        expectEqual(started.last?["restored"], .bool(true))
    }

    @Test("a watch killed mid bulk write with its outbox full of stored batches resumes; the phone gets every sample once", .timeLimit(.minutes(5)))  // R: S5, S6, E4
    func bulkWriteSurvivesKill() async throws {
        // No phone yet: nothing is acknowledged, so the outbox holds batches that refer to the
        // store (schema v5) when the watch is killed, and must rebuild their frames after restart.
        let pair = try PairHarness("e2e-kill-bulk", extra: """
            sync: { outboxLimit: 4 }
            wire: { maxItemsPerMessage: 2000 }
            """)
        defer { pair.stopAll() }
        let epoch = PairHarness.now()
        try await pair.startNode(.watch, epoch: epoch)
        try pair.must(.watch, "write-samples hr 20000")
        try await expect(PairHarness.poll(seconds: 180) { (try pair.status(.watch)["channels"]?["healthkit"]?["pending"]?.intValue ?? 0) >= 4 })
        await pair.stop("watch", signal: SIGKILL)
        try await pair.startNode(.watch, epoch: epoch)
        try await pair.startNode(.phone, epoch: epoch)
        try await pair.waitFor(.watch, "samples.written after the restart") { $0.name == "samples.written" }
        try await expect(PairHarness.poll(seconds: 180) { try pair.status(.phone)["stores"]?["samples"] == 20_000 },
                "phone: \(String(describing: try? pair.status(.phone)["stores"]))")
        try await expect(PairHarness.poll(seconds: 180) { try pair.status(.watch)["channels"]?["healthkit"]?["pending"] == 0 })
        try expect(pair.status(.watch)["stores"]?["samples"] == 20_000)
    }

    @Test("a phone killed after saving keeps its store and applies nothing twice", .timeLimit(.minutes(5)))  // R: S5, S6
    func phoneStoreSurvivesKill() async throws {
        let pair = try PairHarness("e2e-kill-phone")
        defer { pair.stopAll() }
        let epoch = PairHarness.now()
        try await pair.startNode(.watch, epoch: epoch)
        try await pair.startNode(.phone, epoch: epoch)
        try pair.must(.watch, "write-sample weight 71.2")
        try await pair.waitFor(.phone, "the weight sample") { $0.name == "hk.saved" }
        await pair.stop("phone", signal: SIGKILL)
        try pair.must(.watch, "write-sample weight 71.0")
        try await pair.startNode(.phone, epoch: epoch)
        try await pair.waitFor(.phone, count: 2, "both weight samples") { $0.name == "hk.saved" }
        let status = try pair.status(.phone)
        expect(status["stores"]?["workouts"] == 0 && status["stores"]?["samples"] == 2, "\(status)")
        expectEqual(pair.events(.phone).filter { $0.name == "hk.saved" }.count, 2)
    }

    @Test("the user's set-time and set-time-zone outlive kill -9; status --json shows the clock; a bad zone is refused", .timeLimit(.minutes(5)))  // R: F5
    func deviceClockSurvivesKill() async throws {
        let pair = try PairHarness("e2e-clock")
        defer { pair.stopAll() }
        let epoch = PairHarness.now()
        try await pair.startNode(.watch, epoch: epoch)
        try await pair.startNode(.phone, epoch: epoch)
        try expect(pair.must(.phone, "set-time-zone Asia/Tokyo").hasPrefix("phone time zone Asia/Tokyo: it reads 1970-01-01T09:"))
        try expect(pair.must(.phone, "set-time 2026-03-29T00:58:00Z").hasPrefix("phone clock set: it reads 2026-03-29T09:58:00"))
        let refused = try pair.ctl(.phone, "set-time-zone Mars/Olympus")
        expect(!refused.ok && refused.text.contains("unknown time zone \"Mars/Olympus\""), "\(refused.text)")
        try await pair.waitFor(.phone, "the clock change logged") { $0.name == "clock.set" }
        await pair.stop("phone", signal: SIGKILL)
        try await pair.startNode(.phone, epoch: epoch)
        let clock = try pair.status(.phone)["clock"]
        expect(clock?["timeZone"] == "Asia/Tokyo" && (clock?["reads"]?.stringValue ?? "").hasPrefix("2026-03-29T"), "\(String(describing: clock))")
        expect(pair.events(.phone).contains { $0.name == "clock.started" && $0["timeZone"] == "Asia/Tokyo" })
    }
}

@Suite("End to end: one node per data directory, one pair per topology")
struct ExclusivityTests {
    @Test("a second node on the same data directory is refused and the first keeps running", .timeLimit(.minutes(5)))  // R: S5, P2
    func secondNodeRefused() async throws {
        let pair = try PairHarness("e2e-twice")
        defer { pair.stopAll() }
        let epoch = PairHarness.now()
        try await pair.startNode(.watch, epoch: epoch)
        let second = try pair.spawn("watch-2", "watch-node", ["--topology", pair.topologyPath, "--no-stdin", "--fresh"])
        await second.waitUntilExit()
        expect(second.terminationStatus != 0)
        expect(pair.output("watch-2").contains("is in use by another node"))
        try expect(pair.ctl(.watch, "ping").ok)
        expect(pair.events(.watch).contains { $0.name == "node.ready" })
    }

    @Test("topology up refuses a pair that is already up; ctl keeps quoted words together", .timeLimit(.minutes(5)))  // R: P2, P3
    func upTwiceAndQuoting() async throws {
        let pair = try PairHarness("e2e-up-twice")
        defer { pair.stopAll() }
        try await pair.up()
        let (status, output) = try await pair.runTopology(["up", pair.topologyPath, "--no-stdin"])
        expect(status != 0)
        expect(output.contains("already running"))
        let (ctlStatus, reply) = try await pair.runTopology(["ctl", "-t", pair.topologyPath, "watch", "start-workout", "strength", "Bench Press"])
        expectEqual(ctlStatus, 0, "\(reply)")
        try expect(pair.must(.watch, "finish-workout").contains("records=1"))
        try await pair.waitFor(.watch, "the record") { $0.name == "record.saved" && $0["exercise"]?.stringValue == "Bench Press" }
    }
}
