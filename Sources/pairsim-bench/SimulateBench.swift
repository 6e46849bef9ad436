import ArgumentParser
import Foundation
import PairSimConfig
import PairSimApps
import PairSimCore
import PairSimKit
import PairSimulation

struct SimulateBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "A week of a pair's life in virtual time: emulated seconds per wall second and events per second.")

    @Option(help: "Scenario to play.")
    var scenario = "Topologies/scenarios/week-of-normal-life.yaml"

    @Option(help: "Runs (the median is reported, and the best).")
    var repeats = 5

    @Option(help: "Apps to play it with, side by side.")
    var apps = ["reference", "delta-sync"]

    func run() throws {
        let loaded: Scenario
        do { loaded = try ScenarioLoader.load(path: scenario) } catch { throw BenchError("\(error)") }
        for name in apps {
            let app: AppRegistration
            do { app = try AppCatalog.registration(named: name, topology: loaded.topology) } catch { throw BenchError(error.message) }
            try run(loaded, app: app)
        }
    }

    func run(_ loaded: Scenario, app: AppRegistration) throws {
        var times: [Double] = []
        var events = 0
        var log: [UInt8] = []
        for index in 0..<repeats {
            var simulator = Simulator(scenario: loaded, app: app, watchApp: try AppCatalog.watchApp(for: loaded.topology))
            let t0 = monotonicNanoseconds()
            simulator.run()
            times.append(Double(monotonicNanoseconds() - t0) / 1e9)
            events = simulator.events.count
            let bytes = simulator.eventLog
            if index == 0 { log = bytes } else if bytes != log { throw BenchError("two runs with the same seed logged different bytes") }
        }
        let emulated = loaded.duration.seconds
        let median = percentile(times, 0.5), best = times.min()!
        report("== simulate benchmark: \(loaded.name) with the \(app.name) app, \(loaded.duration) emulated, \(events) events (median of \(repeats))")
        report("wall time: \(format(median * 1_000, 1)) ms, best \(format(best * 1_000, 1)) ms (goal: a week in under 60 ms)")
        report("speed: \(human(emulated / median))× real time (goal: ≥ 600 k×); \(human(Double(events) / median)) events/s (goal: ≥ 1 M)")
        report("determinism: \(repeats) runs, byte-identical event logs (\(log.count) bytes)")
    }
}
