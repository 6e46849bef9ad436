import Foundation
import PairSimApps
@testable import PairSimCore
import PairSimKit
import Testing
@testable import PairSimConfig
@testable import PairSimulation

/// WatchConnectivity as Apple documents it, and scenarios that expect a call to fail (R: F6).
@Suite("WatchConnectivity as documented")
struct WatchConnectivityAsDocumentedTests {
    static func run(_ timeline: String, overrides: String = "") throws -> Simulator {
        let scenario = try ScenarioLoader.parse(yaml: """
            name: wc
            duration: 30m
            topology: default
            \(overrides)
            timeline:
              - { at: 1m, watch: foreground }
            \(timeline)
            """, file: Repository.scenarios + "/inline.yaml")
        var simulator = Simulator(scenario)
        simulator.run()
        return simulator
    }

    @Test("a message launches a force-quit iPhone app, as documented; launchesForceQuitApp: false keeps the field reading (waits, expires)")  // R: F6
    func forceQuit() throws {
        let timeline = """
              - { at: 2m, phone: force-quit }
              - { at: 3m, watch: "wc-send '{\\"a\\":1}' --no-reply" }
            """
        let documented = try Self.run(timeline)
        #expect(documented.events.contains { $0.name == "app.state" && $0["from"] == "forceQuit" && $0["reason"] == "WatchConnectivity message" })
        #expect(documented.events.contains { $0.name == "wc.delivered" })
        let field = try Self.run(timeline, overrides: "overrides:\n  channels: { watchconnectivity: { launchesForceQuitApp: false } }")
        #expect(!field.events.contains { $0.name == "app.state" && $0["from"] == "forceQuit" })
        #expect(field.events.contains { $0.node == .phone && $0.name == "wc.expired" })
    }

    @Test("fails: CODE passes a command refused with that code, and fails the scenario when it succeeds or fails otherwise")  // R: F6
    func expectedFailures() throws {
        let passing = try Self.run("""
              - { at: 10m, watch: out-of-range }
              - { at: 11m, watch: "wc-send '{\\"a\\":1}'", fails: notReachable }
              - { at: 12m, watch: in-range }
              - { at: 13m, watch: "wc-send '{\\"a\\":[1,null]}'", fails: payloadUnsupportedTypes }
            """)
        #expect(passing.failedCommands.isEmpty, "\(passing.failedCommands)")
        let succeeded = try Self.run("""
              - { at: 11m, watch: "wc-send '{\\"a\\":1}' --no-reply", fails: notReachable }
            """)
        #expect(succeeded.failedCommands.count == 1 && succeeded.failedCommands[0].contains("expected to fail with notReachable, but it succeeded"))
        let otherwise = try Self.run("""
              - { at: 11m, watch: "wc-send '{\\"a\\":null}'", fails: notReachable }
            """)
        #expect(otherwise.failedCommands.count == 1 && otherwise.failedCommands[0].contains("expected to fail with notReachable, but: wc-send: payloadUnsupportedTypes"))
    }

    @Test("a payload holding null anywhere is refused with payloadUnsupportedTypes, naming where")  // R: F6
    func nullRefused() throws {
        let run = try Self.run("""
              - { at: 11m, watch: "wc-transfer '{\\"a\\":{\\"b\\":[0,null]}}'" }
            """)
        #expect(run.failedCommands.first?.contains("payloadUnsupportedTypes: the payload holds null at a.b[1]") == true, "\(run.failedCommands)")
    }
}
