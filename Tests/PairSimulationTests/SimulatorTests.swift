import Foundation
import PairSimApps
import PairSimCore
import PairSimKit
import WorkoutWatchApp
import Testing
import TestSupport
@testable import PairSimConfig
@testable import PairSimulation
@testable import PairSimScenario

@Suite("Deterministic simulation")
struct SimulatorTests {
    static func scenario(_ name: String) throws -> Scenario {
        try ScenarioLoader.load(path: Repository.scenarios + "/\(name).yaml")
    }

    @Test("the same seed gives a byte-identical event log; another seed differs")  // R: P6
    func deterministic() throws {
        let week = try Self.scenario("week-of-normal-life")
        var a = Simulator(week, seed: 11), b = Simulator(week, seed: 11), c = Simulator(week, seed: 12)
        a.run()
        b.run()
        c.run()
        expect(a.events.count > 1_000)
        expectEqual(a.eventLog, b.eventLog)
        expect(a.eventLog != c.eventLog)
    }

    @Test("every scenario in the library passes in simulation", arguments: Repository.scenarioFiles)  // R: P6
    func library(file: String) throws {
        let scenario = try ScenarioLoader.load(path: Repository.scenarios + "/" + file)
        var simulator = Simulator(scenario)
        simulator.run()
        let verdicts = ExpectationChecker.check(scenario.expectations, events: simulator.events)
        for verdict in verdicts { expect(verdict.passed, "\(file): \(verdict.line)") }
        expect(simulator.failedCommands.isEmpty, "\(simulator.failedCommands)")
    }

    // R: A3, A4, A7
    @Test("the delta-sync app plays every library scenario: no misbehaviour, its own costs counted", arguments: Repository.scenarioFiles)
    func deltaSyncLibrary(file: String) throws {
        let scenario = try ScenarioLoader.load(path: Repository.scenarios + "/" + file)
        var simulator = Simulator(scenario, app: "delta-sync")
        simulator.run()
        expect(!simulator.events.contains { $0.name == "app.misbehaved" }, "\(file)")
        // The reference app's UI actions are not delta-sync's: those, and only those, are refused;
        // and delta-sync does not use WatchConnectivity, so what the phone app would send over it is too.
        let theirs = ["open-workout", "delete-workout", "log-workout"]
        let foreign = simulator.failedCommands.filter { command in
            !theirs.contains { command.contains(" \($0) ") || command.hasSuffix(" \($0)") }
                && !(command.contains(" phone wc-") && command.contains("sessionNotActivated"))
        }
        expect(foreign.isEmpty, "\(file): \(foreign)")
        let stopped = try #require(simulator.events.last { $0.node == .phone && $0.name == "node.stopped" })
        expect(stopped["queries"] != nil && stopped["objectsRead"] != nil)
        expect(simulator.events.contains { $0.name == "delta.fetched" && $0.byApp }, "\(file): it fetched with anchored queries")
        expect(!simulator.events.contains { $0.name == "snapshot.fetch" }, "it never fetches whole snapshots")
    }

    @Test("a duration override stops the run there")  // R: P6
    func durationOverride() throws {
        var simulator = Simulator(try Self.scenario("week-of-normal-life"), duration: .days(1))
        simulator.run()
        expectEqual(simulator.events.last!.at, .zero + .days(1))
        expectEqual(simulator.events.filter { $0.name == "workout.finished" }.count, 1)
    }

    @Test("the summary counts what the report needs")  // R: P6, C12
    func summary() throws {
        let scenario = try Self.scenario("morning-run-pocket")
        var simulator = Simulator(scenario)
        simulator.run()
        let outcome = ScenarioOutcome(scenario: scenario.name, mode: "simulate", seed: simulator.seed, duration: simulator.duration,
                                      events: simulator.events, verdicts: ExpectationChecker.check(scenario.expectations, events: simulator.events),
                                      failedCommands: [], charts: WorkoutCharts.make(simulator.phoneStore))
        let summary = outcome.summary
        expectEqual(summary["passed"], true)
        expect(summary["counters"]?["wakes"] == 1)
        expect(summary["counters"]?["notifications"] == 1)
        expect((summary["channels"]?["healthkit"]?["messages"]?.intValue ?? 0) > 0)
        expect((summary["channels"]?["cloudkit"]?["bytes"]?.intValue ?? 0) > 0)
        expect(outcome.charts.count == 1 && outcome.charts[0].summary != nil)
    }
}

extension Simulator {
    /// A run with one of the build's apps (the reference app unless said).
    init(_ scenario: Scenario, app: String? = nil, seed: UInt64? = nil, duration: EmulatedDuration? = nil, nemesis: NemesisSpec? = nil,
         settled: Bool = false, realStorage: Bool? = nil) {
        self.init(scenario: scenario, app: try! AppCatalog.registration(named: app ?? scenario.topology.phone.app.name, topology: scenario.topology),
                  watchApp: try! AppCatalog.watchApp(for: scenario.topology), seed: seed, duration: duration, nemesis: nemesis, settled: settled,
                  realStorage: realStorage)
    }
}

/// In simulation an app's trap stops the run, with the seed and the log so far (R: A6).
@Suite("Simulation with an app that traps")
struct TrappingSimulationTests {
    final class Trapper: PairSimApp {
        let store = HKHealthStore()
        func didFinishLaunching(_ options: LaunchOptions) {
            let type = HKQuantityType(.heartRateVariabilitySDNN)
            store.execute(HKObserverQuery(sampleType: type, predicate: nil) { _, done, _ in
                if AppClock().now.milliseconds > 60_000 { let none: Int? = nil; _ = none! }
                done()
            })
        }
    }

    @Test("the run stops at the trap and says so; events up to it are kept")
    func stops() throws {
        let scenario = try ScenarioLoader.load(path: Repository.scenarios + "/hrv-storm.yaml")
        var simulator = Simulator(scenario: scenario, app: AppRegistration(name: "trapper", summary: "", actions: [], make: { Trapper() }), watchApp: try! AppCatalog.watchApp(for: scenario.topology))
        simulator.run()
        let crash = try #require(simulator.appCrash)
        expectEqual(simulator.failedCommands.last?.contains("the app trapped (SIGILL during observer update handler); the run stopped there"), true, "\(simulator.failedCommands)")
        expectEqual(simulator.events.last { $0.name != "node.stopped" }?.at, crash.at, "nothing after the trap")
        expectEqual(simulator.events.last?.name, "node.stopped")
    }
}

/// A developer's watch app on the watch, in simulation (R: A8, A9).
@Suite("Simulation with a developer's watch app")
struct HostedWatchSimulationTests {
    @Test("workout-watch plays its scenario; the same seed logs the same bytes")  // R: A8, A9, P6
    func plays() throws {
        let scenario = try SimulatorTests.scenario("hosted-watch-workout")
        var a = Simulator(scenario), b = Simulator(scenario)
        a.run()
        b.run()
        expectEqual(a.eventLog, b.eventLog)
        for verdict in ExpectationChecker.check(scenario.expectations, events: a.events) { expect(verdict.passed, "\(verdict.line)") }
        // Heart rate reached the phone while the workout ran.
        let finished = try #require(a.events.first { $0.node == .watch && $0.name == "workout.finished" })
        expect(a.events.contains { $0.node == .phone && $0.name == "hk.saved" && $0["type"]?.stringValue == "heartRate" && $0.at < finished.at })
    }

    @Test("a broken watch app (finishWorkout() before endCollection) fails the scenario's expectations")  // R: A8, A9
    func brokenAppCaught() throws {
        let scenario = try SimulatorTests.scenario("hosted-watch-workout")
        let broken = AppRegistration(name: "workout-watch", summary: "broken", actions: WorkoutWatchApp.actions,
                                     makeWatchApp: { WorkoutWatchApp(endsCollectionFirst: false) })
        var run = Simulator(scenario: scenario, app: try AppCatalog.registration(named: "reference", topology: scenario.topology), watchApp: broken)
        run.run()
        let failed = ExpectationChecker.check(scenario.expectations, events: run.events).filter { !$0.passed }.map(\.label)
        expect(failed.contains("exactly 1 × watch workout.finished"), "\(failed)")
        expect(failed.contains("exactly 1 × phone watch.workoutFinished via=message"), "\(failed)")
    }

    @Test("a scenario's own invariants are checked under the nemesis, where its expectations are not: the broken app fails them on every seed, the right one on none")  // R: A11, V2
    func appInvariantsUnderNemesis() throws {
        var scenario = try SimulatorTests.scenario("hosted-watch-workout")
        scenario.invariants = [ExpectationSpec(expectation: .atLeast(1, try EventMatcher(parsing: "watch workout.finished")),
                                               label: "invariant: the workout is saved")]
        let reference = try AppCatalog.registration(named: "reference", topology: scenario.topology)
        let broken = AppRegistration(name: "workout-watch", summary: "broken", actions: WorkoutWatchApp.actions,
                                     makeWatchApp: { WorkoutWatchApp(endsCollectionFirst: false) })
        for seed in UInt64(1)...3 {
            for (app, fails) in [(try AppCatalog.watchApp(for: scenario.topology), false), (broken, true)] {
                var run = Simulator(scenario: scenario, app: reference, watchApp: app, seed: seed, nemesis: NemesisSpec())
                run.run()
                let verdict = run.verdicts().first { $0.label == "invariant: the workout is saved" }
                expectEqual(verdict?.passed, !fails, "seed \(seed), \(app.summary)")
            }
        }
    }
}
