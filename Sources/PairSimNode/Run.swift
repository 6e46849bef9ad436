#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import PairSimConfig
import PairSimCore
import PairSimRuntime
import PairSimScenario
import PairSimulation

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play a scenario on real watch-node and phone-node processes, time-scaled, and check its expectations.",
        discussion: """
            The nodes get private ipc endpoints and data directories (under --dir), so a run never clashes
            with a running pair. Exit status 1 when an expectation or a timeline command fails.
            """)

    @Argument(help: "Scenario file.")
    var file: String

    @Option(help: ArgumentHelp("Override the topology's time scale.", valueName: "factor"))
    var timeScale: Double?

    @Option(help: ArgumentHelp("""
        How emulated time passes: wall (the time scale × the wall clock) or stepped (the launcher moves \
        it from one deadline to the next once the pair is quiet: a run's timing is the topology's \
        however busy the machine; docs/SCENARIOS.md#stepped-time).
        """, valueName: "wall|stepped"))
    var clock: String = "wall"

    @Option(help: ArgumentHelp("Write events.jsonl, summary.json and report.html here.", valueName: "dir"))
    var report: String?

    @Option(help: ArgumentHelp("Where the nodes' state and logs go (default .pairsim/scenarios/<name>-<pid>).", valueName: "dir"))
    var dir: String?

    @Flag(help: "Print each timeline command as it runs.")
    var verbose = false

    @Flag(help: "Add the nemesis drawn from the topology's seed — node kills (kill -9 of the real process), partitions, fault bursts — as `simulate --nemesis` does, and check PairSim's invariants (against the fault-free run, simulated) and the scenario's own instead of its expectations. A scenario with a nemesis: key always plays its own here too.")
    var nemesis = false

    @OptionGroup var outputs: ResultOutputs

    @OptionGroup var phone: PhoneChoice

    func run() throws {
        let started = ContinuousClock.now
        let scenario = try loadScenario(file)
        if let timeScale, let problem = Topology.timeScaleProblem(timeScale) { throw ValidationError(problem) }
        guard let clockMode = ScenarioRunner.ClockMode(rawValue: clock) else {
            throw ValidationError("--clock must be wall or stepped, got \"\(clock)\"")
        }
        if clockMode == .stepped, timeScale != nil { throw ValidationError("--time-scale has no effect with --clock stepped") }
        var runner = ScenarioRunner(scenario: scenario, binDirectory: executableDirectory(),
                                    directory: dir ?? ".pairsim/scenarios/\(scenario.name)-\(getpid())")
        runner.timeScale = timeScale
        runner.clock = clockMode
        runner.app = phone.app
        runner.watchApp = phone.watch.watchApp
        _ = try phone.watch.applied(to: scenario.topology)
        runner.phoneBinary = try phone.binary()
        // An unknown app is refused here, before any node starts (a --phone-bin knows its own apps).
        if runner.phoneBinary == nil { _ = try AppChoice.resolve(phone.app, topology: scenario.topology) }
        if verbose { runner.progress = { print($0) } }
        let spec = scenario.nemesisPlayed(flag: nemesis)
        var calm: Simulator?
        if let spec {
            // The fault-free twin the invariants compare with is simulated: it needs the app in this build.
            guard runner.phoneBinary == nil else {
                throw ValidationError("--nemesis compares with a simulated fault-free run of the app: run it with the app's own executable (\(phone.phoneBin ?? "PATH") run \(file) --nemesis)")
            }
            var played = scenario
            played.topology = try phone.watch.applied(to: scenario.topology)
            var twin = Simulator(scenario: played, app: try AppChoice.resolve(phone.app, topology: played.topology),
                                 watchApp: try AppChoice.resolveWatch(topology: played.topology), settled: true)
            twin.run()
            calm = twin
            runner.nemesisTimeline = Nemesis.draw(spec, seed: scenario.topology.seed, duration: scenario.duration)
            runner.nemesisBursts = Nemesis.bursts(spec, seed: scenario.topology.seed, duration: scenario.duration)
            runner.settle = Nemesis.settle
        }
        var outcome = try runner.run()
        if let calm {
            let end = try Self.end(of: runner, scenario: scenario, outcome: outcome, watchApp: phone.watch.watchApp ?? scenario.topology.watch.app)
            outcome.verdicts = Invariants.check(end, calm: RunEnd(calm)) + outcome.verdicts
            let kills = runner.nemesisTimeline.filter { $0.driverCommand == .killNode }.count
            let partitions = runner.nemesisTimeline.filter { $0.command == "out-of-range" }.count
            print("nemesis: \(kills) node kill(s), \(partitions) partition(s), \(runner.nemesisBursts.count) fault burst(s)"
                  + (runner.notes.refused.isEmpty ? "" : "; \(runner.notes.refused.count) timeline command(s) refused under it (first: \(runner.notes.refused[0]))")
                  + "; the scenario's expectations are not checked under it (faults change timing on purpose)")
        }
        if let report { try ReportWriter.write(outcome, to: report) }
        let reproduce = "\(SwarmResults.programName) run \(file)" + (timeScale.map { " --time-scale \(Self.number($0))" } ?? "")
            + (clockMode == .stepped ? " --clock stepped" : "") + phone.reproduceArguments + (nemesis ? " --nemesis" : "")
        try outputs.write(outcome, file: file, reproduce: reproduce, since: started)
        print(outcome.verdictText)
        if let report { print("report: \(report)/report.html") }
        if !outcome.passed {
            print("reproduce with: \(reproduce)" + (clockMode == .stepped ? "" : " (real processes: timing varies from run to run)"))
            throw ExitCode(1)
        }
    }

    /// How the real run ended, read from the nodes' databases (stopped by now) and its log.
    static func end(of runner: ScenarioRunner, scenario: Scenario, outcome: ScenarioOutcome, watchApp: String) throws -> RunEnd {
        let topology = try TopologyLoader.load(path: runner.directory + "/topology.yaml")
        var watch = WatchModel(topology: topology, boot: "end", app: watchApp)
        try watch.restore(try ScenarioRunner.savedState(directory: topology.nodes[.watch]!.data), now: .zero + outcome.duration)
        var phone = PhonePlatform(topology: topology, boot: "end")
        try phone.restore(try ScenarioRunner.savedState(directory: topology.nodes[.phone]!.data), now: .zero + outcome.duration)
        func oldest(_ sync: SyncEngine) -> EmulatedInstant? { Channel.allCases.compactMap { sync.oldestPending($0) }.min() }
        let timeline = scenario.timeline + runner.nemesisTimeline
        var kills: [NodeName: Int] = [.watch: 0, .phone: 0]
        for entry in timeline where entry.driverCommand == .killNode { kills[entry.node]! += 1 }
        let down = Set(NodeName.allCases.filter { node in outcome.failedCommands.contains { $0.hasPrefix("\(node)-node was killed and never restarted") } })
        return RunEnd(watchStore: watch.store, watchRecords: watch.records, phoneStore: phone.store, phoneRecords: phone.records,
                      phoneWaiting: (phone.lockBuffer, phone.container), oldestPending: [.watch: oldest(watch.sync), .phone: oldest(phone.sync)],
                      maxPending: nil, kills: kills, down: down, events: outcome.events, scenarioLength: scenario.duration,
                      outboxLimit: topology.reliability.outboxLimit, exactTiming: runner.clock == .stepped)
    }

    static func number(_ value: Double) -> String { value.rounded() == value ? String(Int64(value)) : String(value) }
}
