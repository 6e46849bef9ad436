#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import PairSimCore
import PairSimRuntime
import PairSimScenario

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
        if scenario.nemesis != nil {
            // Its faults and invariants need the fault-free twin and exact timing: simulation only.
            print("note: the scenario's nemesis plays in simulation only (topology simulate/swarm); here its timeline and expectations run without it")
        }
        let outcome = try runner.run()
        if let report { try ReportWriter.write(outcome, to: report) }
        let reproduce = "\(SwarmResults.programName) run \(file)" + (timeScale.map { " --time-scale \(Self.number($0))" } ?? "")
            + (clockMode == .stepped ? " --clock stepped" : "") + phone.reproduceArguments
        try outputs.write(outcome, file: file, reproduce: reproduce, since: started)
        print(outcome.verdictText)
        if let report { print("report: \(report)/report.html") }
        if !outcome.passed {
            print("reproduce with: \(reproduce)" + (clockMode == .stepped ? "" : " (real processes: timing varies from run to run)"))
            throw ExitCode(1)
        }
    }

    static func number(_ value: Double) -> String { value.rounded() == value ? String(Int64(value)) : String(value) }
}
