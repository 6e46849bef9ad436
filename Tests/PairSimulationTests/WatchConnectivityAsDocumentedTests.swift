import Foundation
import PairSimApps
@testable import PairSimCore
import PairSimKit
import Testing
import TestSupport
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
        expect(documented.events.contains { $0.name == "app.state" && $0["from"] == "forceQuit" && $0["reason"] == "WatchConnectivity message" })
        expect(documented.events.contains { $0.name == "wc.delivered" })
        let field = try Self.run(timeline, overrides: "overrides:\n  channels: { watchconnectivity: { launchesForceQuitApp: false } }")
        expect(!field.events.contains { $0.name == "app.state" && $0["from"] == "forceQuit" })
        expect(field.events.contains { $0.node == .phone && $0.name == "wc.expired" })
    }

    @Test("fails: CODE passes a command refused with that code, and fails the scenario when it succeeds or fails otherwise")  // R: F6
    func expectedFailures() throws {
        let passing = try Self.run("""
              - { at: 10m, watch: out-of-range }
              - { at: 11m, watch: "wc-send '{\\"a\\":1}'", fails: notReachable }
              - { at: 12m, watch: in-range }
              - { at: 13m, watch: "wc-send '{\\"a\\":[1,null]}'", fails: payloadUnsupportedTypes }
            """)
        expect(passing.failedCommands.isEmpty, "\(passing.failedCommands)")
        let succeeded = try Self.run("""
              - { at: 11m, watch: "wc-send '{\\"a\\":1}' --no-reply", fails: notReachable }
            """)
        expect(succeeded.failedCommands.count == 1 && succeeded.failedCommands[0].contains("expected to fail with notReachable, but it succeeded"))
        let otherwise = try Self.run("""
              - { at: 11m, watch: "wc-send '{\\"a\\":null}'", fails: notReachable }
            """)
        expect(otherwise.failedCommands.count == 1 && otherwise.failedCommands[0].contains("expected to fail with notReachable, but: wc-send: payloadUnsupportedTypes"))
    }

    @Test("a payload holding null anywhere is refused with payloadUnsupportedTypes, naming where")  // R: F6
    func nullRefused() throws {
        let run = try Self.run("""
              - { at: 11m, watch: "wc-transfer '{\\"a\\":{\\"b\\":[0,null]}}'" }
            """)
        expectEqual(run.failedCommands.first?.contains("payloadUnsupportedTypes: the payload holds null at a.b[1]"), true, "\(run.failedCommands)")
    }

    /// Sends complication data four times once its session is active, logging what WCSession says.
    final class ComplicationSender: PairSimApp, WCSessionDelegate, @unchecked Sendable {
        func didFinishLaunching(_ options: LaunchOptions) {
            WCSession.default.delegate = self
            WCSession.default.activate()
        }
        func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: Error?) {
            for n in 1...4 {
                let before = session.remainingComplicationUserInfoTransfers
                let transfer = session.transferCurrentComplicationUserInfo(["n": n])
                AppLog.event("sender.sent", ["enabled": .bool(session.isComplicationEnabled), "remainingBefore": .int(before),
                                             "complication": .bool(transfer.isCurrentComplicationInfo)])
            }
        }
    }

    @Test("transferCurrentComplicationUserInfo: a daily budget with a complication on the face, none without; past it, ordinary user info")  // R: F4
    func complicationBudget() throws {
        func run(_ watch: String) throws -> [Event] {
            let scenario = try ScenarioLoader.parse(yaml: """
                name: complication
                duration: 1h
                topology: default
                overrides:
                  watch: \(watch)
                timeline:
                  - { at: 1m, watch: foreground }
                """, file: Repository.scenarios + "/inline.yaml")
            var simulator = Simulator(scenario: scenario, app: AppRegistration(name: "sender", summary: "", actions: [], make: { ComplicationSender() }), watchApp: try! AppCatalog.watchApp(for: scenario.topology))
            simulator.run()
            return simulator.events
        }
        let onFace = try run("{ complication: { onActiveFace: true, transfersPerDay: 3 } }").filter { $0.name == "sender.sent" }
        expectEqual(onFace.map { $0["remainingBefore"]?.intValue }, [3, 2, 1, 0])
        expectEqual(onFace.map { $0["complication"] }, [.bool(true), .bool(true), .bool(true), .bool(false)])
        expect(onFace.allSatisfy { $0["enabled"] == .bool(true) })
        let offFace = try run("{ complication: { onActiveFace: false } }")
        expect(offFace.filter { $0.name == "sender.sent" }.allSatisfy { $0["enabled"] == .bool(false) && $0["complication"] == .bool(false) })
        expect(!offFace.contains { $0.name == "wc.queued" && $0["complication"] != nil })
        expectEqual(offFace.filter { $0.node == .watch && $0.name == "wc.received" }.count, 4, "all four arrive as user info")
    }
}

/// A user action takes only the options its usage names (R: K5).
@Suite("App action options")
struct AppActionOptionTests {
    @Test("a watch killed while a transfer is stalled until nudged restores it stalled, and the relaunched app's activation nudges it out")  // R: K8, X1, A10
    func stalledUntilNudgedSurvivesKill() throws {
        var scenario = try ScenarioLoader.load(path: Repository.scenarios + "/wc-userinfo-stuck.yaml")
        scenario.timeline += [TimelineEntry(at: .zero + .minutes(30), node: .watch, command: "kill-node"),
                              TimelineEntry(at: .zero + .minutes(31), node: .watch, command: "restart-node")]
        scenario.timeline.sort { $0.at < $1.at }
        for realStorage in [false, true] {
            var run = Simulator(scenario, realStorage: realStorage)
            run.run()
            // It refused its own state at every restart: `stalledUntil` was past the wire's bound for instants.
            expect(run.failedCommands.isEmpty, "\(run.failedCommands)")
            expect(run.storageFindings.isEmpty, "\(run.storageFindings)")
            let received = run.events.filter { $0.node == .phone && $0.name == EventName.wcReceived.rawValue && $0["kind"] == .string("userinfo") }
            // The reference watch app is relaunched with the node and activates its session again: as
            // the field reports say, that unsticks the transfer (before, the built-in app waited for
            // the second transfer at 1h40m); the second then sticks in its turn.
            expect(received.count == 1 && received[0].at >= .zero + .minutes(31) && received[0].at < .zero + .minutes(32), "\(received.map(\.at))")
            expectEqual(run.events.filter { $0.node == .watch && $0.name == EventName.wcStalled.rawValue }.count, 2)
        }
    }

    @Test("log-workout --bogus is refused with a suggestion; the options the usage names are taken")  // R: K5
    func unknownOptionRefused() throws {
        let scenario = try ScenarioLoader.parse(yaml: """
            name: options
            duration: 10m
            topology: default
            timeline:
              - { at: 1m, phone: "log-workout running --duratin 20m", fails: "did you mean --duration" }
              - { at: 2m, phone: "log-workout running --bogus 1", fails: "unknown option --bogus" }
              - { at: 3m, phone: "log-workout running --duration 20m" }
            """, file: Repository.scenarios + "/inline.yaml")
        var run = Simulator(scenario)
        run.run()
        expect(run.failedCommands.isEmpty, "\(run.failedCommands)")
    }
}
