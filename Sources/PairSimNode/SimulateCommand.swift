import Foundation
#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import PairSimRuntime
import PairSimConfig
import PairSimCore
import PairSimKit
import PairSimScenario
import PairSimulation

/// `topology simulate` (and `simulate` of a developer's own node executable).
public struct SimulateCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Play a scenario in deterministic virtual time in this process; the same seed gives the same event log, byte for byte.",
        discussion: "Scenario files: docs/SCENARIOS.md. Exit status 1 when an expectation fails (the output says how to reproduce).")

    @Argument(help: "Scenario file, e.g. Topologies/scenarios/morning-run-pocket.yaml.")
    var file: String

    @Option(help: "Seed for every random draw (default: the topology's).")
    var seed: UInt64?

    @Option(help: ArgumentHelp("How much emulated time to play (default: the scenario's duration), e.g. 7d.", valueName: "duration"))
    var duration: String?

    @Option(help: ArgumentHelp("Write events.jsonl, summary.json and report.html here.", valueName: "dir"))
    var report: String?

    @Flag(help: "Print every event as it is logged (readable lines).")
    var events = false

    @Option(help: ArgumentHelp("The app under test (default: the topology's phone.app, else reference); `topology apps` lists them.", valueName: "name"))
    var app: String?

    @OptionGroup var watch: WatchAppChoice

    @Option(help: ArgumentHelp("Simulate with the app linked into this executable (a developer's own node, e.g. my-phone-node): runs `PATH simulate …` with the other arguments.", valueName: "path"))
    var phoneBin: String?

    @Flag(help: "Add the default nemesis (6 node kills, 3 partitions, 4 fault bursts) drawn from the seed to a scenario without a nemesis: key, and check the invariants (docs/SCENARIOS.md#nemesis) instead of the scenario's expectations. A scenario with a nemesis: key always plays its own.")
    var nemesis = false

    @Flag(help: "Run the real journal and SQLite on a faulty disk, each kill with a storage fault (with the nemesis, a share of seeds does by itself: nemesis.realStorage), and check that every restart reads back what was committed.")
    var realStorage = false

    @OptionGroup var outputs: ResultOutputs

    public init() {}

    public func run() throws {
        if let phoneBin { throw ExitCode(try Self.delegate(to: phoneBin)) }
        let started = ContinuousClock.now
        var scenario = try loadScenario(file)
        scenario.topology = try watch.applied(to: scenario.topology)
        var length: EmulatedDuration?
        if let duration {
            guard let parsed = EmulatedDuration(parsing: duration), parsed > .zero else {
                throw ValidationError("--duration must be a duration like 2h or 7d, got \"\(duration)\"")
            }
            length = parsed
        }
        let registration = try AppChoice.resolve(app, topology: scenario.topology)
        let spec = scenario.nemesisPlayed(flag: self.nemesis)
        let nemesis = spec != nil
        let watchRegistration = try AppChoice.resolveWatch(topology: scenario.topology)
        var simulator = Simulator(scenario: scenario, app: registration, watchApp: watchRegistration, seed: seed, duration: length, nemesis: spec,
                                  realStorage: realStorage ? true : nil)
        let showProgress = isatty(STDERR_FILENO) != 0 && simulator.duration >= .days(1)
        let total = Double(simulator.duration.milliseconds)
        simulator.run(progress: showProgress ? { now in
            let done = Int(Double(now.milliseconds) / total * 30)
            FileHandleWriter.standardError("\r[" + String(repeating: "#", count: done) + String(repeating: ".", count: 30 - done) + "] \(now)")
        } : nil)
        if showProgress { FileHandleWriter.standardError("\r" + String(repeating: " ", count: 60) + "\r") }
        if events { simulator.events.forEach { print("\($0.node) │ \($0.humanLine)") } }
        let verdicts = simulator.verdicts()
        if nemesis {
            print("nemesis: \(Simulator.nemesisSummary(simulator)); the scenario's expectations are not checked under it (faults change timing on purpose)")
        }
        let outcome = ScenarioOutcome(
            scenario: scenario.name, mode: nemesis ? "simulate --nemesis" : "simulate", seed: simulator.seed, duration: simulator.duration,
            events: simulator.events, verdicts: verdicts, failedCommands: simulator.failedCommands, charts: WorkoutCharts.make(simulator.phoneStore))
        let reproduce = "\(SwarmResults.programName) simulate \(file) --seed \(simulator.seed)" + (duration.map { " --duration \($0)" } ?? "")
            + (app.map { " --app \($0)" } ?? "") + watch.reproduceArgument + (nemesis ? " --nemesis" : "")
            + (realStorage ? " --real-storage" : "")
        if let report { try ReportWriter.write(outcome, to: report) }
        try outputs.write(outcome, file: file, reproduce: reproduce, since: started)
        print(outcome.verdictText)
        if let report { print("report: \(report)/report.html") }
        if !outcome.passed {
            print("reproduce with: \(reproduce)")
            throw ExitCode(1)
        }
    }

    /// Runs `binary simulate <these arguments without --phone-bin>`, sharing stdout and stderr.
    static func delegate(to binary: String) throws -> Int32 {
        guard FileManager.default.isExecutableFile(atPath: binary) else { throw ValidationError("--phone-bin: \(binary) is not an executable file") }
        var arguments = Array(CommandLine.arguments.drop { $0 != "simulate" }.dropFirst())
        if let index = arguments.firstIndex(of: "--phone-bin") { arguments.removeSubrange(index...min(index + 1, arguments.count - 1)) }
        arguments.removeAll { $0.hasPrefix("--phone-bin=") }
        let child = try ChildProcess(name: binary, executable: binary, arguments: ["simulate"] + arguments, output: .inherit)
        child.waitUntilExit()
        return child.terminationStatus
    }
}
