#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PairSimCore
import Testing
import TestSupport

@Suite("End to end: the phone's HealthKit and app on real processes")
struct PhoneEndToEndTests {
    /// Waits until the phone's app reaches `state`.
    static func waitForApp(_ pair: PairHarness, _ state: String) async throws {
        try await pair.waitFor(.phone, "app \(state)") { $0.name == "app.state" && $0["to"]?.stringValue == state }
    }

    @Test("a sample written while the phone app is suspended wakes it, and it completes", .timeLimit(.minutes(5)))  // R: O4, O5, L2, W5
    func wakeWhileSuspended() async throws {
        let pair = try PairHarness("e2e-wake")
        defer { pair.stopAll() }
        try await pair.up()
        try pair.must(.phone, "background")
        try await Self.waitForApp(pair, "suspended")
        try pair.must(.watch, "write-sample hrv 47")
        try await pair.waitFor(.phone, "the wake") { $0.name == "bgdelivery.wake" && $0["type"]?.stringValue == "heartRateVariabilitySDNN" }
        try await pair.waitFor(.phone, "the completion") { $0.name == "bgdelivery.completion" }
        let fired = pair.events(.phone).filter { $0.name == "observer.fired" && $0["trigger"]?.stringValue == "wake" }
        expectEqual(fired.count, 1)
        expect(pair.events(.phone).contains { $0.name == "cache.invalidated" && $0["reason"]?.stringValue == "backgroundDelivery" })
    }

    @Test("three missed completions stop delivery for the type", .timeLimit(.minutes(5)))  // R: O5
    func threeMisses() async throws {
        let pair = try PairHarness("e2e-misses")
        defer { pair.stopAll() }
        try await pair.up()
        try pair.must(.phone, "miss-completion hrv 3")
        try pair.must(.phone, "background")
        try await Self.waitForApp(pair, "suspended")
        try pair.must(.watch, "write-sample hrv 51")
        try await pair.waitFor(.phone, "delivery stopped") { $0.name == "bgdelivery.stopped" }
        let phone = pair.events(.phone)
        expectEqual(phone.filter { $0.name == "bgdelivery.wake" }.count, 3)
        expectEqual(phone.filter { $0.name == "bgdelivery.backoff" }.map { $0["delay"]?.stringValue }, ["1m", "2m"])
        try expect(pair.must(.phone, "status").contains("hrv immediate STOPPED misses 3"))
    }

    // The throttle window (a second write 20 s later) is timing: PhoneTimingSimulationTests checks it
    // in virtual time. Here, what only processes show: the sample crosses the sockets and reloads the tabs.
    @Test("HRV from the watch reaches the phone's observer: a refresh and tab reloads", .timeLimit(.minutes(5)))  // R: C1, C2, C3
    func refreshFromTheWatch() async throws {
        let pair = try PairHarness("e2e-refresh")
        defer { pair.stopAll() }
        try await pair.up()
        try await Task.sleep(for: .seconds(2)) // past the first minute after launch (60 s emulated at 60×)
        try pair.must(.watch, "write-sample hrv 49")
        let refresh = try await pair.waitFor(.phone, "the refresh") { $0.name == "coordinator.refresh" }
        try await pair.waitFor(.phone, count: 3, "three tab loads") { $0.name == "tab.loaded" && $0.at >= refresh[0].at }
        let today = pair.events(.phone).last { $0.name == "tab.loaded" && $0["tab"]?.stringValue == "today" }
        expectEqual(today?["hrv"]?.doubleValue, 49)
    }

    @Test("a finished workout: its notification, and the detail shows its chart", .timeLimit(.minutes(5)))  // R: D2, D6, W1
    func notificationAndDetail() async throws {
        let pair = try PairHarness("e2e-notify")
        defer { pair.stopAll() }
        try await pair.up()
        try pair.must(.watch, "start-workout running")
        try await Task.sleep(for: .seconds(1))
        let uuid = try PairHarness.workoutID(try pair.must(.watch, "finish-workout"))
        try await pair.waitFor(.phone, "the notification") { $0.name == "notification.posted" && $0["uuid"]?.stringValue == uuid }
        try await pair.waitFor(.phone, "the record") { $0.name == "record.saved" }
        let detail = try pair.must(.phone, "open-workout latest")
        expect(detail.contains("heart rate: average"))
        expect(detail.contains("┤"))
        // "Exactly one, however long after" is checked in virtual time (PhoneTimingSimulationTests).
    }

    @Test("deleting one record on the phone removes it and its workout on both sides; its siblings stay", .timeLimit(.minutes(5)))  // R: D5, S2
    func deleteEverywhere() async throws {
        let pair = try PairHarness("e2e-delete")
        defer { pair.stopAll() }
        try await pair.up()
        try pair.must(.watch, "start-workout strength")
        try await Task.sleep(for: .microseconds(500_000))
        let uuid = try PairHarness.workoutID(try pair.must(.watch, "finish-workout"))
        try await pair.waitFor(.phone, count: 3, "three records") { $0.name == "record.saved" }
        try await pair.waitFor(.phone, "the workout") { $0.name == "hk.saved" && $0["uuid"]?.stringValue == uuid }
        let reply = try pair.must(.phone, "delete-workout latest")
        expect(reply.contains("deleted record") && reply.contains("2 other record(s) of the session stay")
                && reply.contains("deleted HealthKit workout \(uuid)"), "\(reply)")
        try await pair.waitFor(.watch, "the workout deleted on the watch") { $0.name == "hk.deleted" && $0["uuid"]?.stringValue == uuid }
        try await pair.waitFor(.watch, "the record deleted on the watch") { $0.name == "record.deleted" }
        let watch = try pair.status(.watch)
        expect(watch["stores"]?["workouts"] == 0 && watch["stores"]?["records"] == 2, "\(watch)")
    }

    @Test("records arriving before their HealthKit workout still show once", .timeLimit(.minutes(5)))  // R: D1
    func recordsBeforeWorkout() async throws {
        // The watch out of Bluetooth range holds the HealthKit workout while the records go over
        // the internet (CloudKit): an order made by events, not by a latency racing the test.
        let pair = try PairHarness("e2e-order")
        defer { pair.stopAll() }
        try await pair.up()
        try pair.must(.watch, "start-workout running")
        try await Task.sleep(for: .microseconds(500_000))
        try pair.must(.watch, "out-of-range")
        let uuid = try PairHarness.workoutID(try pair.must(.watch, "finish-workout"))
        try await pair.waitFor(.phone, "the record first") { $0.name == "record.saved" }
        expect(!pair.events(.phone).contains { $0.name == "hk.saved" && $0["uuid"]?.stringValue == uuid })
        try pair.must(.phone, "pull-to-refresh train")
        let early = try await pair.waitFor(.phone, "train with the record alone") { $0.name == "tab.loaded" && $0["tab"]?.stringValue == "train" && $0["recordsOnly"] == 1 }
        expectEqual(early.last?["workouts"], 1)
        try pair.must(.watch, "in-range")
        try await pair.waitFor(.phone, "the workout later") { $0.name == "hk.saved" && $0["uuid"]?.stringValue == uuid }
        try pair.must(.phone, "pull-to-refresh train")
        let late = try await pair.waitFor(.phone, "train with one linked workout") { $0.name == "tab.loaded" && $0["tab"]?.stringValue == "train" && $0["linked"] == 1 }
        expectEqual(late.last?["workouts"], 1)
    }
}
