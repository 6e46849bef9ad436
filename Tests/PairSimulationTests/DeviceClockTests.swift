import Foundation
import PairSimApps
@testable import PairSimCore
import PairSimKit
import Testing
import TestSupport
@testable import PairSimConfig
@testable import PairSimulation

/// Each device's own clock (R: F5): offset, drift, the user's time and time-zone changes,
/// daylight saving; what the app's Date() reads and what each device stamps.
@Suite("Device clocks")
struct DeviceClockTests {
    /// An iPhone app that logs what its Date() reads when launched and a minute later, and every
    /// significant time change it hears, with the Date() it reads then.
    final class Clocked: PairSimApp, @unchecked Sendable {
        static func ms(_ date: Date) -> AppLog.Value { .int(Int((date.timeIntervalSince1970 * 1_000).rounded())) }

        func didFinishLaunching(_ options: LaunchOptions) {
            AppLog.event("clocked.launched", ["date": Self.ms(Date())])
            Task {
                try? await Task.sleep(for: .seconds(60))
                AppLog.event("clocked.minuteLater", ["date": Self.ms(Date())])
            }
        }

        func applicationSignificantTimeChange(_ application: UIApplication) {
            AppLog.event("clocked.notified", ["date": Self.ms(Date())])
        }
    }

    static func run(seed: UInt64 = 1, overrides: String = "", _ timeline: String, duration: String = "1h") throws -> Simulator {
        let scenario = try ScenarioLoader.parse(yaml: """
            name: clocked
            duration: \(duration)
            topology: default
            \(overrides)
            timeline:
            \(timeline)
            """, file: Repository.scenarios + "/inline.yaml")
        var simulator = Simulator(scenario: scenario, app: AppRegistration(name: "clocked", summary: "", actions: [], make: { Clocked() }), watchApp: try! AppCatalog.watchApp(for: scenario.topology), seed: seed)
        simulator.run()
        return simulator
    }

    static func notified(_ run: Simulator) -> [(at: EmulatedDuration, date: Int64)] {
        run.events.filter { $0.name == "clocked.notified" }.map { ($0.at - .zero, $0["date"]?.intValue ?? 0) }
    }

    // MARK: The clock itself

    @Test("a drifting clock reads offset plus drift since it was set; its inverse finds the instant of any reading")  // R: F5
    func readingAndInverse() {
        let clock = DeviceClock(offset: .minutes(-3), driftPPM: 40, since: .zero)
        // Spelled with their types: left to inference these lines took the compiler 11 s.
        let zero = EmulatedInstant.zero
        expectEqual(clock.reading(at: zero + EmulatedDuration.minutes(10)), zero + EmulatedDuration.minutes(7) + EmulatedDuration.milliseconds(24))
        expectEqual(clock.reading(at: zero + EmulatedDuration.days(1)), zero + EmulatedDuration.days(1) - EmulatedDuration.minutes(3) + EmulatedDuration.milliseconds(3_456))
        for ms in stride(from: Int64(1_000), to: 90_000_000, by: 1_234_567) { // above zero: readings stop at the epoch
            let reading = EmulatedInstant(milliseconds: ms)
            let t: EmulatedInstant = clock.instant(reading: reading)
            let before: EmulatedInstant = t - EmulatedDuration.milliseconds(1)
            expect(clock.reading(at: t) >= reading)
            expect(clock.reading(at: before) < reading)
        }
        var set = clock
        set.set(reading: .zero + .hours(5), at: .zero + .hours(1))
        expectEqual(set.reading(at: .zero + .hours(1)), .zero + .hours(5))
    }

    @Test("ISO 8601 dates with a zone parse and print back; daylight saving is found where the zone's rules put it")  // R: F5
    func isoAndTransitions() throws {
        let date = try #require(DeviceClock.parseISO("2026-03-29T00:58:00Z"))
        expectEqual(DeviceClock.parseISO("2026-03-29T02:58+02:00"), date)
        expectEqual(DeviceClock.parseISO("2026-03-29T02:58:00.250+02:00"), date + .milliseconds(250))
        for bad in ["2026-03-29T00:58:00", "2026-02-30T00:00Z", "2026-03-29 00:58Z", "2026-03-29T24:00Z", "tomorrow"] {
            expectEqual(DeviceClock.parseISO(bad), nil, "\(bad)")
        }
        let berlin = DeviceClock(offset: date - .zero, timeZone: "Europe/Berlin")
        expectEqual(berlin.localText(at: .zero), "2026-03-29T01:58:00.000+01:00")
        // Summer time begins at 01:00 UTC on the last Sunday of March: two minutes on.
        expectEqual(berlin.nextTransition(after: .zero), .zero + .minutes(2))
        expectEqual(berlin.localText(at: .zero + .minutes(2)), "2026-03-29T03:00:00.000+02:00")
        expectEqual(DeviceClock(timeZone: "UTC").nextTransition(after: .zero), nil)
    }

    @Test("watch.clock and phone.clock load; a seeded clock is drawn within its bounds, the same for the same seed; bad keys are refused where they are")  // R: F5
    func topologyKeys() throws {
        let topology = try TopologyLoader.parse(yaml: """
            name: clocks
            nodes:
              watch: { publish: "tcp://127.0.0.1:7401", control: "ipc://w.ctl", data: "w" }
              phone: { publish: "tcp://127.0.0.1:7402", control: "ipc://p.ctl", data: "p" }
            watch: { clock: { offset: -90s, drift: 40, timeZone: Europe/Berlin } }
            phone: { clock: { offset: seeded, drift: seeded } }
            """, file: "test.yaml")
        expect(topology.watch.clock.offset == .seconds(-90) && topology.watch.clock.driftPPM == 40 && topology.watch.clock.timeZone == "Europe/Berlin")
        expect(topology.phone.clock.offset == nil && topology.phone.clock.driftPPM == nil)
        let drawn = (1...50).map { topology.phone.clock.clock(seed: UInt64($0), node: .phone, since: .zero) }
        expect(drawn.allSatisfy { abs($0.offset.milliseconds) <= 120_000 && abs($0.driftPPM) <= 50 })
        expect(Set(drawn.map(\.offset)).count > 40)
        expectEqual(topology.phone.clock.clock(seed: 7, node: .phone, since: .zero), topology.phone.clock.clock(seed: 7, node: .phone, since: .zero))
        for (yaml, message) in [("watch: { clock: { timeZone: Mars/Olympus } }", "unknown time zone \"Mars/Olympus\""),
                                ("phone: { clock: { offset: soon } }", "expected a duration with an optional sign"),
                                ("phone: { clock: { drift: 5000 } }", "must be between -1000 and 1000"),
                                ("phone: { clock: { skew: 1s } }", "skew")] {
            let error = #expect(throws: ConfigError.self) {
                try TopologyLoader.parse(yaml: "name: clocks\nnodes:\n  watch: { publish: \"tcp://127.0.0.1:1\", control: \"ipc://w\", data: \"w\" }\n  phone: { publish: \"tcp://127.0.0.1:2\", control: \"ipc://p\", data: \"p\" }\n" + yaml, file: "test.yaml")
            }
            expect(error?.description.contains(message) == true && error?.description.contains("test.yaml:") == true, "\(error?.description ?? "")")
        }
    }

    // MARK: What the app reads and hears

    @Test("the app's Date() reads its device's clock; timers run on true time")  // R: F5
    func appReadsDeviceClock() throws {
        let run = try Self.run(overrides: "overrides:\n  phone: { clock: { offset: +5m } }", "  - { at: 30m, phone: status }")
        let launched = try #require(run.events.first { $0.name == "clocked.launched" })
        expect(launched.at == .zero && launched["date"] == .int(300_000))
        let later = try #require(run.events.first { $0.name == "clocked.minuteLater" })
        expect(later.at == .zero + .minutes(1) && later["date"] == .int(360_000), "a 60 s sleep is 60 s of true time")
        expect(run.events.contains { $0.name == "clock.started" && $0.node == .phone && $0["offsetMs"] == .int(300_000) })
        expect(!run.events.contains { $0.name == "clock.started" && $0.node == .watch }, "a clock on true UTC time logs nothing")
    }

    @Test("set-time moves Date() at once; set-time, set-time-zone and daylight saving each call applicationSignificantTimeChange")  // R: F5
    func userChanges() throws {
        let run = try Self.run("""
              - { at: 10m, phone: set-time +1h }
              - { at: 20m, phone: set-time-zone Asia/Tokyo }
              - { at: 30m, phone: set-time 1970-01-02T00:00:00+09:00 }
            """)
        let set = try #require(run.events.first { $0.name == "clock.set" })
        expect(set.at == .zero + .minutes(10) && set["offsetMs"] == .int(3_600_000) && set["to"] == "1970-01-01T01:10:00.000Z")
        let heard = Self.notified(run)
        expectEqual(heard.count, 3, "\(heard)")
        expect(heard.first?.at == .minutes(10) && heard.first?.date == 4_200_000)
        expect(heard.dropFirst().first?.at == .minutes(20) && heard.dropFirst().first?.date == 4_800_000, "a zone change leaves the clock alone")
        // 1970-01-02 00:00 in Tokyo is 1970-01-01 15:00 UTC.
        expect(heard.last?.at == .minutes(30) && heard.last?.date == 15 * 3_600_000)
        let zone = try #require(run.events.first { $0.name == "clock.zone" })
        expect(zone["from"] == "UTC" && zone["to"] == "Asia/Tokyo" && zone["reads"] == "1970-01-01T10:20:00.000+09:00")
        let refused = Self.commandFailures(try Self.run("""
              - { at: 1m, phone: set-time-zone Mars/Olympus }
              - { at: 1m, phone: set-time tomorrow }
            """))
        expect(refused.count == 2 && refused[0].contains("unknown time zone") && refused[1].contains("ISO 8601"))
    }

    static func commandFailures(_ run: Simulator) -> [String] {
        run.events.filter { $0.name == "command.failed" }.map { $0["reason"]?.stringValue ?? "" }
    }

    @Test("a suspended app hears of a time change when it runs again, not before")  // R: F5
    func heldWhileSuspended() throws {
        let run = try Self.run("""
              - { at: 1m, phone: background }
              - { at: 10m, phone: set-time -30s }
              - { at: 20m, phone: foreground }
            """)
        let heard = Self.notified(run)
        expect(heard.count == 1 && heard.allSatisfy { $0.at == .minutes(20) }, "\(heard)")
        expectEqual(heard.first?.date, Int64(1_170_000), "20m on a clock set 30 s back")
    }

    @Test("daylight saving begins on the device's clock: clock.dst, and the iPhone app hears a significant time change")  // R: F5
    func daylightSaving() throws {
        let run = try Self.run(overrides: "overrides:\n  phone: { clock: { timeZone: Europe/Berlin } }", """
              - { at: 5m, phone: set-time 2026-03-29T00:58:00Z }
            """)
        let dst = try #require(run.events.first { $0.name == "clock.dst" })
        expect(dst.at == .zero + .minutes(7) && dst["daylightSaving"] == .bool(true) && dst["reads"] == "2026-03-29T03:00:00.000+02:00")
        expectEqual(Self.notified(run).map(\.at), [.minutes(5), .minutes(7)], "the set-time, then daylight saving")
    }

    @Test("local midnight on the phone's clock calls applicationSignificantTimeChange; a suspended app hears it once when it runs again")  // R: F5
    func midnight() throws {
        // Tokyo is UTC+9: its midnights fall at 15:00 and 39:00 true time.
        let awake = try Self.run(overrides: "overrides:\n  phone: { clock: { timeZone: Asia/Tokyo } }", "  - { at: 1m, phone: status }", duration: "16h")
        expectEqual(Self.notified(awake).map(\.at), [.hours(15)])
        let asleep = try Self.run(overrides: "overrides:\n  phone: { clock: { timeZone: Asia/Tokyo } }", """
              - { at: 1m, phone: background }
              - { at: 40h, phone: foreground }
            """, duration: "41h")
        expectEqual(Self.notified(asleep).map(\.at), [.hours(40)], "two midnights while suspended: one call when it runs again")
    }

    @Test("a daily budget starts again at the device's local midnight, daylight saving included")  // R: F4, F5
    func localDailyBudget() throws {
        let tokyo = DeviceClock(timeZone: "Asia/Tokyo")
        var budget = DailyBudget()
        expectEqual(budget.remaining(of: 2, now: .zero, clock: tokyo), 2)
        budget.take(); budget.take()
        expectEqual(budget.remaining(of: 2, now: .zero + .hours(14) + .minutes(59), clock: tokyo), 0)
        expectEqual(budget.nextDay(clock: tokyo), .zero + .hours(15))
        expectEqual(budget.remaining(of: 2, now: .zero + .hours(15), clock: tokyo), 2)
        // New York's clock set to 7 March 2026 (EST); the 8th's midnight is 05:00 UTC, the 9th's
        // 04:00 UTC (EDT began in between): 23 hours apart.
        let start = try #require(DeviceClock.parseISO("2026-03-07T12:00:00-05:00"))
        let york = DeviceClock(offset: start - .zero, timeZone: "America/New_York")
        let eighth = york.startOfLocalDay(york.localDay(at: .zero) + 1), ninth = york.startOfLocalDay(york.localDay(at: .zero) + 2)
        expect(york.localText(at: eighth) == "2026-03-08T00:00:00.000-05:00" && york.localText(at: ninth) == "2026-03-09T00:00:00.000-04:00")
        expectEqual(ninth - eighth, .hours(23))
    }

    // MARK: What each device stamps

    @Test("the watch stamps a workout and its samples on its own clock and HealthKit sync keeps the stamps; the phone's clock does not touch them")  // R: F5
    func watchStamps() throws {
        func workoutOnPhone(_ overrides: String) throws -> Event {
            let run = try Self.run(overrides: overrides, """
                  - { at: 10m, watch: start-workout running }
                  - { at: 40m, watch: finish-workout }
                """)
            return try #require(run.events.first { $0.name == "hk.saved" && $0.node == .phone && $0["kind"] == "workout" })
        }
        let exact = try workoutOnPhone("")
        expect(exact["start"] == "00:10:00.000" && exact["end"] == "00:40:00.000")
        let slow = try workoutOnPhone("overrides:\n  watch: { clock: { offset: -3m, drift: 40 } }\n  phone: { clock: { offset: +1h } }")
        expect(slow["start"] == "00:07:00.024" && slow["end"] == "00:37:00.096")
    }

    @Test("a user's set-time outlives a kill: the restarted watch reads what it read before")  // R: F5
    func survivesRestart() throws {
        let run = try Self.run("""
              - { at: 5m, watch: set-time +2h }
              - { at: 10m, watch: kill-node }
              - { at: 11m, watch: restart-node }
            """)
        let restarted = try #require(run.events.last { $0.name == "clock.started" && $0.node == .watch })
        expect(restarted.at == .zero + .minutes(11) && restarted["offsetMs"] == .int(7_200_000))
    }

    @Test("a watch clock that loses time or starts behind 1970 still syncs: the workout's active time fits its stamped span, stamps never go below the epoch")  // R: F5
    func slowAndEarlyClocksSync() throws {
        for overrides in ["overrides:\n  watch: { clock: { drift: -40 } }", "overrides:\n  watch: { clock: { offset: -5m } }"] {
            let run = try Self.run(overrides: overrides, """
                  - { at: 1m, watch: start-workout running }
                  - { at: 31m, watch: finish-workout }
                """)
            expect(!run.events.contains { $0.name == "wire.rejected" }, "\(overrides): \(run.events.filter { $0.name == "wire.rejected" }.prefix(1))")
            let saved = try #require(run.events.first { $0.name == "hk.saved" && $0.node == .phone && $0["kind"] == "workout" }, "\(overrides)")
            expect(saved["start"] != nil)
        }
    }

    @Test("set-time before 1970 and zones that are not IANA identifiers are refused")  // R: F5
    func refusedSettings() throws {
        let refused = Self.commandFailures(try Self.run("""
              - { at: 1m, phone: set-time 1969-12-31T23:00:00Z }
              - { at: 1m, phone: set-time-zone GMT+2 }
            """))
        expect(refused.count == 2 && refused[0].contains("outside 1970") && refused[1].contains("unknown time zone \"GMT+2\""), "\(refused)")
    }
}
