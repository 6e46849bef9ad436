#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PairSimCore
import Testing

@Suite("End to end: restarts keep state", .serialized)
struct RestartTests {
    @Test("a watch killed with an unacknowledged outbox delivers it after restart", .timeLimit(.minutes(1)))  // R: S5
    func watchOutboxSurvivesKill() throws {
        let pair = try PairHarness("e2e-kill-watch")
        defer { pair.stopAll() }
        let epoch = PairHarness.now()
        try pair.startNode(.watch, epoch: epoch)
        try pair.must(.watch, "start-workout rowing")
        usleep(200_000)
        let uuid = try PairHarness.workoutID(try pair.must(.watch, "finish-workout"))
        pair.stop("watch", signal: SIGKILL)
        try pair.startNode(.watch, epoch: epoch)
        try pair.startNode(.phone, epoch: epoch)
        try pair.waitFor(.phone, "the workout from before the kill") { $0.name == "hk.saved" && $0["uuid"]?.stringValue == uuid }
        let started = pair.events(.watch).filter { $0.name == "node.started" }
        #expect(started.last?["restored"] == .bool(true))
    }

    @Test("a phone killed after saving keeps its store and applies nothing twice", .timeLimit(.minutes(1)))  // R: S5, S6
    func phoneStoreSurvivesKill() throws {
        let pair = try PairHarness("e2e-kill-phone")
        defer { pair.stopAll() }
        let epoch = PairHarness.now()
        try pair.startNode(.watch, epoch: epoch)
        try pair.startNode(.phone, epoch: epoch)
        try pair.must(.watch, "write-sample weight 71.2")
        try pair.waitFor(.phone, "the weight sample") { $0.name == "hk.saved" }
        pair.stop("phone", signal: SIGKILL)
        try pair.must(.watch, "write-sample weight 71.0")
        try pair.startNode(.phone, epoch: epoch)
        try pair.waitFor(.phone, count: 2, "both weight samples") { $0.name == "hk.saved" }
        let status = try pair.must(.phone, "status")
        #expect(status.contains("healthkit store: 0 workouts, 2 samples"), "\(status)")
        #expect(pair.events(.phone).filter { $0.name == "hk.saved" }.count == 2)
    }
}
