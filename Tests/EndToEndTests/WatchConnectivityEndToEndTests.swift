#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PairSimCore
import Testing
import TestSupport

/// WatchConnectivity between the real watch-node and phone-node (R: X1, X2): what only processes
/// show — frames crossing the sockets, the phone app's process woken, a queue kept on disk.
@Suite("End to end: WatchConnectivity on real processes")
struct WatchConnectivityEndToEndTests {
    static let wc = """
        channels:
          healthkit: { latency: 0 }
          cloudkit: { latency: 0, exportInterval: off }
          watchconnectivity: { latency: 0 }
        """

    @Test("a message from the watch wakes the suspended phone app, which answers it", .timeLimit(.minutes(5)))  // R: X1, X2
    func messageWakesSuspendedApp() async throws {
        let pair = try PairHarness("e2e-wc-wake", channels: Self.wc)
        defer { pair.stopAll() }
        try await pair.up()
        try pair.must(.phone, "background")
        try await PhoneEndToEndTests.waitForApp(pair, "suspended")
        try pair.must(.watch, "foreground")
        try await pair.waitFor(.watch, "the phone reachable") { $0.name == "wc.reachability" && $0["reachable"]?.boolValue == true }
        let sent = try pair.must(.watch, #"wc-send '{"event":"workoutFinished","uuid":"6F1C2B7E-0D8A-4C55-9E3B-2A1D4C5E6F70"}'"#)
        expect(sent.hasPrefix("sent message "))
        try await pair.waitFor(.phone, "the wake") {
            $0.name == "app.state" && $0["to"]?.stringValue == "background" && $0["reason"]?.stringValue == "WatchConnectivity message"
        }
        try await pair.waitFor(.phone, "the delivery") { $0.name == "wc.delivered" && $0["kind"]?.stringValue == "message" }
        try await pair.waitFor(.phone, "the app's reaction") { $0.name == "watch.workoutFinished" && $0["via"]?.stringValue == "message" }
        try await pair.waitFor(.watch, "the reply") { $0.name == "wc.replied" }
        let status = try pair.status(.watch)
        expect(status["watchConnectivity"]?["counters"]?["replies"]?.intValue == 1)
    }

    @Test("userInfo queued while out of range arrives, in order, after in-range; a queue survives kill -9", .timeLimit(.minutes(5)))  // R: X1
    func userInfoAfterInRange() async throws {
        let pair = try PairHarness("e2e-wc-userinfo", channels: Self.wc)
        defer { pair.stopAll() }
        let epoch = PairHarness.now()
        try await pair.startNode(.watch, epoch: epoch)
        try await pair.startNode(.phone, epoch: epoch)
        try pair.must(.watch, "out-of-range")
        for n in 1...3 { try pair.must(.watch, #"wc-transfer '{"event":"workoutFinished","n":\#(n)}'"#) }
        try expect(pair.status(.watch)["watchConnectivity"]?["outstanding"]?.arrayValue?.count == 3)
        try await pair.waitFor(.watch, "the head held by the partition") { $0.name == "sync.held" && $0["channel"]?.stringValue == "watchconnectivity" }
        expect(!pair.events(.phone).contains { $0.name == "wc.received" }, "nothing crosses while out of range")
        try pair.must(.watch, "in-range")
        let delivered = try await pair.waitFor(.phone, count: 3, "three deliveries") { $0.name == "wc.delivered" && $0["kind"]?.stringValue == "userinfo" }
        expectEqual(delivered.count, 3)
        try await pair.waitFor(.watch, count: 3, "three finished transfers") { $0.name == "wc.finished" }
        // As a person types it: the shell takes the quotes off, ctl puts them back.
        let (status, reply) = try await pair.runTopology(["ctl", "-t", pair.topologyPath, "watch", "wc-transfer", #"{"event":"hello","n":4}"#])
        expectEqual(status, 0, "\(reply)")
        try await pair.waitFor(.phone, count: 4, "the fourth delivery") { $0.name == "wc.delivered" && $0["kind"]?.stringValue == "userinfo" }
        expectEqual(pair.events(.phone).filter { $0.name == "watch.workoutFinished" }.map { $0["via"]?.stringValue }, ["userInfo", "userInfo", "userInfo"],
                "the fourth is not a workout message")

        // With the phone down, two more wait in the watch's queue; the watch is killed and comes back.
        await pair.stop("phone")
        for n in 5...6 { try pair.must(.watch, #"wc-transfer '{"event":"workoutFinished","n":\#(n)}'"#) }
        await pair.stop("watch", signal: SIGKILL)
        try await pair.startNode(.watch, epoch: epoch)
        try expect(pair.status(.watch)["watchConnectivity"]?["outstanding"]?.arrayValue?.count == 2, "the queue was on disk")
        try await pair.startNode(.phone, epoch: epoch)
        // Event logs outlive restarts: six deliveries and six finished transfers in all.
        try await pair.waitFor(.phone, count: 6, "the two after the restart") { $0.name == "wc.delivered" && $0["kind"]?.stringValue == "userinfo" }
        try await pair.waitFor(.watch, count: 6, "their finish") { $0.name == "wc.finished" }
    }
}
