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
import Synchronization

/// `topology swarm`: one scenario over many seeds, in parallel worker processes (R: V4).
public struct SwarmCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "swarm",
        abstract: "Simulate a scenario over many seeds in parallel worker processes; print every failing seed with the command that reproduces it.",
        discussion: "Exit status 1 when any seed fails. docs/SCENARIOS.md#swarm.")

    @Argument(help: "Scenario file, e.g. Topologies/scenarios/week-of-normal-life.yaml.")
    var file: String

    @Option(help: "How many seeds to run.")
    var seeds: Int

    @Option(help: "First seed (the others follow it).")
    var from: UInt64 = 1

    @Option(help: "Worker processes (default: one per core).")
    var jobs: Int?

    @Flag(help: "Add the default nemesis to every seed of a scenario without a nemesis: key, and check the invariants (as `simulate --nemesis`).")
    var nemesis = false

    @Option(help: ArgumentHelp("The app under test (default: the topology's phone.app, else reference).", valueName: "name"))
    var app: String?

    @Option(help: ArgumentHelp("Write a JUnit XML report (a testsuite per seed) to this file.", valueName: "file"))
    var junit: String?

    @Option(help: .hidden)
    var worker: Int?

    public init() {}

    public func validate() throws {
        guard seeds >= 1, seeds <= 10_000_000 else { throw ValidationError("--seeds must be 1 to 10000000, got \(seeds)") }
        if let jobs, !(1...256).contains(jobs) { throw ValidationError("--jobs must be 1 to 256, got \(jobs)") }
        guard from <= UInt64.max - UInt64(seeds) else { throw ValidationError("--from \(from) + --seeds \(seeds) passes the largest seed") }
    }

    public func run() throws {
        let scenario = try loadScenario(file)
        let registration = try AppChoice.resolve(app, topology: scenario.topology)
        if let worker {
            // A worker: every jobs-th seed from its index, one JSON line each.
            let count = jobs ?? 1
            var index = worker
            while index < seeds {
                let line = Self.runSeed(scenario, registration, seed: from + UInt64(index), nemesis: nemesis)
                FileHandleWriter.standardOutput(JSONWriter.string(line) + "\n")
                index += count
            }
            return
        }
        try coordinate(scenario)
    }

    /// One seed: its verdicts as a JSON line.
    static func runSeed(_ scenario: Scenario, _ app: AppRegistration, seed: UInt64, nemesis: Bool) -> JSON {
        let started = ContinuousClock.now
        var run = Simulator(scenario: scenario, app: app, seed: seed, nemesis: scenario.nemesisPlayed(flag: nemesis))
        run.run()
        let verdicts = run.verdicts()
        let elapsed = ContinuousClock.now - started
        let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let verdictsJSON: [JSON] = verdicts.map { verdict -> JSON in
            .object(["label": .string(verdict.label), "passed": .bool(verdict.passed), "detail": .string(verdict.detail)])
        }
        var object = JSONObject()
        object.append("seed", .int(Int64(bitPattern: seed)))
        object.append("passed", .bool(verdicts.allSatisfy(\.passed) && run.failedCommands.isEmpty))
        object.append("verdicts", .array(verdictsJSON))
        object.append("failedCommands", .array(run.failedCommands.map(JSON.string)))
        object.append("events", .int(Int64(run.events.count)))
        object.append("wall", .double(wall))
        return .object(object)
    }

    func reproduce(_ seed: UInt64) -> String {
        "topology simulate \(file) --seed \(seed)" + (nemesis ? " --nemesis" : "") + (app.map { " --app \($0)" } ?? "")
    }

    /// True when the seeds play a nemesis: `--nemesis`, or the scenario's `nemesis:` key.
    func playsNemesis(_ scenario: Scenario) -> Bool { scenario.nemesisPlayed(flag: nemesis) != nil }

    func coordinate(_ scenario: Scenario) throws {
        let started = ContinuousClock.now
        let workers = min(jobs ?? ProcessInfo.processInfo.activeProcessorCount, seeds)
        let executable = Bundle.main.executablePath ?? CommandLine.arguments[0]
        let results = Mutex<[JSON]>([])
        let broken = Mutex<[String]>([])
        var children: [ChildProcess] = []
        for index in 0..<workers {
            var arguments = ["swarm", file, "--seeds", String(seeds), "--from", String(from), "--jobs", String(workers), "--worker", String(index)]
            if nemesis { arguments.append("--nemesis") }
            if let app { arguments += ["--app", app] }
            children.append(try ChildProcess(name: "swarm worker \(index)", executable: executable, arguments: arguments, output: .lines { line in
                if let json = try? JSONParser().parse(line), json["seed"] != nil { results.withLock { $0.append(json) } }
                else { broken.withLock { $0.append(line) } }
            }))
        }
        let tty = isatty(STDERR_FILENO) != 0
        while children.contains(where: \.isRunning) {
            usleep(200_000)
            if tty {
                let (done, failed) = results.withLock { ($0.count, $0.filter { $0["passed"] != .bool(true) }.count) }
                FileHandleWriter.standardError("\r\(done)/\(seeds) seeds, \(failed) failed")
            }
        }
        ChildProcess.stopAll(children, signal: nil)
        if tty { FileHandleWriter.standardError("\r" + String(repeating: " ", count: 40) + "\r") }
        let all = results.withLock { $0 }.sorted { ($0["seed"]?.intValue ?? 0) < ($1["seed"]?.intValue ?? 0) }
        let failing = all.filter { $0["passed"] != .bool(true) }
        for result in failing {
            let seed = UInt64(bitPattern: result["seed"]!.intValue!)
            print("✘ seed \(seed):")
            for verdict in result["verdicts"]?.arrayValue ?? [] where verdict["passed"] != .bool(true) {
                print("    \(verdict["label"]?.stringValue ?? "") — \(verdict["detail"]?.stringValue ?? "")")
            }
            for command in result["failedCommands"]?.arrayValue ?? [] { print("    timeline command failed: \(command.stringValue ?? "")") }
            print("  reproduce with: \(reproduce(seed))")
        }
        for line in broken.withLock({ $0 }) { print("worker: \(line)") }
        let exits = children.filter { $0.terminationStatus != 0 }.map { "\($0.name) exited with status \($0.terminationStatus)" }
        exits.forEach { print($0) }
        let elapsed = ContinuousClock.now - started
        let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let missing = seeds - all.count
        print("swarm \(scenario.name)\(playsNemesis(scenario) ? " --nemesis" : ""): \(all.count) seed(s) from \(from) in \(String(format: "%.1f", wall)) s "
              + "(\(String(format: "%.1f", Double(all.count) / max(wall, 0.001))) seeds/s, \(workers) worker(s)): "
              + "\(failing.count) failed" + (missing > 0 ? ", \(missing) not run" : ""))
        if let junit { try writeJUnit(all, scenario: scenario, to: junit) }
        if !failing.isEmpty || missing > 0 || !exits.isEmpty { throw ExitCode(1) }
    }

    func writeJUnit(_ results: [JSON], scenario: Scenario, to path: String) throws {
        let suites = results.map { result in
            let seed = UInt64(bitPattern: result["seed"]!.intValue!)
            let verdicts = (result["verdicts"]?.arrayValue ?? []).map {
                Verdict(passed: $0["passed"] == .bool(true), label: $0["label"]?.stringValue ?? "", detail: $0["detail"]?.stringValue ?? "")
            }
            let outcome = ScenarioOutcome(scenario: scenario.name, mode: playsNemesis(scenario) ? "swarm --nemesis" : "swarm", seed: seed, duration: scenario.duration,
                                          events: [], verdicts: verdicts, failedCommands: (result["failedCommands"]?.arrayValue ?? []).compactMap(\.stringValue),
                                          charts: [])
            return JUnitReport.Suite(outcome: outcome, file: file, reproduce: reproduce(seed), wallSeconds: result["wall"]?.doubleValue ?? 0)
        }
        try save(JUnitReport.xml(suites, timestamp: JUnitReport.timestamp(Date())), to: path, what: "--junit")
    }
}
