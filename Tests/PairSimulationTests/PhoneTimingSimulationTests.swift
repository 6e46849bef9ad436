import Foundation
import PairSimCore
import Testing
import TestSupport
@testable import PairSimConfig
@testable import PairSimulation

/// Timing behaviour the end-to-end tests used to check with sleeps on real processes, checked in
/// virtual time instead, where a window is exact and a busy machine cannot move it (R: V1).
@Suite("Phone timing in simulation")
struct PhoneTimingSimulationTests {
    static func run(_ timeline: String, duration: String = "1h") throws -> Simulator {
        var simulator = Simulator(try ScenarioLoader.parse(yaml: """
            name: timing
            duration: \(duration)
            topology: ../../Topologies/instant.yaml
            timeline:
            \(timeline)
            """, file: Repository.scenarios + "/inline.yaml"))
        simulator.run()
        expect(simulator.failedCommands.isEmpty, "\(simulator.failedCommands)")
        return simulator
    }

    @Test("HRV from the watch: one refresh and tab reloads; a second write 20 s later is throttled")  // R: C1, C2, C3, C7
    func refreshThenThrottle() throws {
        let simulator = try Self.run("""
              - { at: 2m, watch: write-sample hrv 49 }
              - { at: 2m20s, watch: write-sample hrv 52 }
            """)
        let phone = simulator.events.filter { $0.node == .phone }
        let refreshes = phone.filter { $0.name == "coordinator.refresh" && $0.at >= .zero + .minutes(2) }
        expectEqual(refreshes.count, 1, "\(refreshes.map(\.humanLine))")
        let loads = phone.filter { $0.name == "tab.loaded" && $0.at >= refreshes[0].at && $0.at < .zero + .minutes(2) + .seconds(20) }
        expectEqual(loads.count, 3)
        expect(loads.first { $0["tab"] == "today" }?["hrv"]?.doubleValue == 49)
        let throttled = phone.filter { $0.name == "coordinator.throttled" && $0.at >= .zero + .minutes(2) + .seconds(20) }
        expect(throttled.count == 1 && throttled[0]["source"] == "observer", "\(throttled.map(\.humanLine))")
    }

    @Test("a finished workout: exactly one notification, however long after")  // R: D2, W1
    func exactlyOneNotification() throws {
        let simulator = try Self.run("""
              - { at: 5m, watch: start-workout running }
              - { at: 35m, watch: finish-workout }
            """, duration: "6h")
        let notifications = simulator.events.filter { $0.name == "notification.posted" && $0["title"] == "Workout completed" }
        expectEqual(notifications.count, 1, "\(notifications.map(\.humanLine))")
        let finished = try #require(simulator.events.first { $0.name == "workout.finished" })
        expectEqual(notifications[0]["uuid"]?.stringValue, finished["uuid"]?.stringValue)
    }
}
