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

/// `topology swarm`: one scenario over many seeds, in parallel worker processes (R: V4); a share
/// of them with `--shard I/N`, and `topology swarm merge` to join the shares (docs/SCENARIOS.md#swarm).
public struct SwarmCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "swarm",
        abstract: "Simulate a scenario over many seeds in parallel worker processes; print every failing seed with the command that reproduces it.",
        discussion: "`swarm FILE --seeds N …` runs them (the default); `swarm merge DIR…` joins the results of its shards. docs/SCENARIOS.md#swarm.",
        subcommands: [SwarmRun.self, SwarmMerge.self],
        defaultSubcommand: SwarmRun.self)

    public init() {}
}

/// `topology swarm FILE --seeds N [--shard I/N] [--results DIR] …`.
public struct SwarmRun: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Simulate a scenario over many seeds in parallel worker processes (what `topology swarm FILE …` does).",
        discussion: "Exit status 1 when any seed fails. docs/SCENARIOS.md#swarm.")

    @Argument(help: "Scenario file, e.g. Topologies/scenarios/week-of-normal-life.yaml.")
    var file: String

    @Option(help: "How many seeds in all (with --shard, this shard runs its share of them).")
    var seeds: Int

    @Option(help: "First seed (the others follow it).")
    var from: UInt64 = 1

    @Option(help: "Worker processes (default: one per core).")
    var jobs: Int?

    @Flag(help: "Add the default nemesis to every seed of a scenario without a nemesis: key, and check the invariants (as `simulate --nemesis`).")
    var nemesis = false

    @Option(help: ArgumentHelp("The app under test (default: the topology's phone.app, else reference).", valueName: "name"))
    var app: String?

    @OptionGroup var watch: WatchAppChoice

    @Option(help: ArgumentHelp("Write a JUnit XML report (a testsuite per seed) to this file.", valueName: "file"))
    var junit: String?

    @Option(help: ArgumentHelp("Run only shard I of N (1 ≤ I ≤ N): the seeds whose index counted from --from leaves I − 1 when divided by N. Every machine gets the same FILE, --seeds and --from.", valueName: "I/N"))
    var shard: String = "1/1"

    @Option(help: ArgumentHelp("Write this run's results to DIR/shard-I-of-N.jsonl, for `topology swarm merge`.", valueName: "dir"))
    var results: String?

    @Option(help: .hidden)
    var worker: Int?

    public init() {}

    public func validate() throws {
        guard seeds >= 1, seeds <= 100_000_000 else { throw ValidationError("--seeds must be 1 to 100000000, got \(seeds)") }
        if let jobs, !(1...256).contains(jobs) { throw ValidationError("--jobs must be 1 to 256, got \(jobs)") }
        guard from <= UInt64.max - UInt64(seeds) else { throw ValidationError("--from \(from) + --seeds \(seeds) passes the largest seed") }
        _ = try SwarmShard(parsing: shard)
    }

    public func run() throws {
        var scenario = try loadScenario(file, warn: worker == nil)
        scenario.topology = try watch.applied(to: scenario.topology)
        let registration = try AppChoice.resolve(app, topology: scenario.topology)
        _ = try AppChoice.resolveWatch(topology: scenario.topology)
        let shard = try SwarmShard(parsing: shard)
        if worker != nil {
            // A worker: the seeds the coordinator hands it on stdin, one per line, until it closes
            // the pipe; one JSON line each on stdout.
            while let line = readLine() {
                guard let seed = UInt64(line) else { throw RuntimeError("swarm worker: stdin line '\(line)' is not a seed") }
                let result = Self.runSeed(scenario, registration, seed: seed, nemesis: nemesis)
                FileHandleWriter.standardOutput(JSONWriter.string(result) + "\n")
            }
            return
        }
        try coordinate(scenario, shard: shard, share: shard.indices(of: seeds).map { from + UInt64($0) })
    }

    /// One seed: its verdicts as a JSON line.
    static func runSeed(_ scenario: Scenario, _ app: AppRegistration, seed: UInt64, nemesis: Bool) -> JSON {
        let started = ContinuousClock.now
        // Checked before any seed runs (`run()`).
        let watchApp = try! AppChoice.resolveWatch(topology: scenario.topology)
        var run = Simulator(scenario: scenario, app: app, watchApp: watchApp, seed: seed, nemesis: scenario.nemesisPlayed(flag: nemesis))
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
        if run.runsRealStorage {
            // This seed ran the real journal and SQLite on a faulty disk (R: K8).
            object.append("storageFaults", .int(Int64(run.storageFaults.count)))
        }
        object.append("wall", .double(wall))
        return .object(object)
    }

    /// Runs the shard's `share` of the seeds in worker processes, handing each worker its next seed when it reports the
    /// last: a worker never idles while seeds are left, however unequal they are. The seeds that
    /// play the real storage (~6× the others) go first. The results come out in seed order
    /// whatever the schedule.
    func coordinate(_ scenario: Scenario, shard: SwarmShard, share: [UInt64]) throws {
        let started = ContinuousClock.now
        let count = share.count
        // None for a shard with no seeds: its summary says it ran 0 seeds with 0 workers.
        let workers = min(max(1, jobs ?? ProcessInfo.processInfo.activeProcessorCount), count)
        let executable = Bundle.main.executablePath ?? CommandLine.arguments[0]
        let spec = scenario.nemesisPlayed(flag: nemesis)
        let drawn = zip(share, share.map { Nemesis.drawsRealStorage(spec, seed: $0) })
        let order = drawn.filter { $0.1 }.map(\.0) + drawn.filter { !$0.1 }.map(\.0)
        let collected = Mutex<[JSON]>([])
        let broken = Mutex<[String]>([])
        let dispatch = SeedDispatch(order: order, workers: workers)
        // A worker that dies leaves its pipe: writing to it must fail, not end this process. The
        // workers inherit it ignored, which is harmless: they write only to this process's pipe.
        signal(SIGPIPE, SIG_IGN)
        // Each worker's temporary files (a real-storage seed's disks) go in a directory of its own
        // under this one, which goes when the swarm ends: a worker killed in a seed cannot remove
        // its seed's files itself, and a night's swarm would pile them up.
        let scratch = SimulatedDiskStorage.temporaryDirectory + "pairsim-swarm-\(ProcessInfo.processInfo.globallyUniqueString)"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        var children: [ChildProcess] = []
        for index in 0..<workers {
            let temporary = scratch + "/worker-\(index)"
            try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
            var environment = ProcessInfo.processInfo.environment
            environment["TMPDIR"] = temporary
            var arguments = ["swarm", file, "--seeds", String(seeds), "--from", String(from), "--worker", String(index),
                             "--shard", shard.description]
            if nemesis { arguments.append("--nemesis") }
            if let app { arguments += ["--app", app] }
            if let watchApp = watch.watchApp { arguments += ["--watch-app", watchApp] }
            children.append(try ChildProcess(name: "swarm worker \(index)", executable: executable, arguments: arguments,
                                             output: .lines { line in
                if let json = try? JSONParser().parse(line), json["seed"] != nil {
                    collected.withLock { $0.append(json) }
                    dispatch.next(to: index)
                } else {
                    broken.withLock { $0.append(line) }
                    // A result line broken by something written to stderr meanwhile: its seed
                    // counts as not run, and the worker still gets its next one.
                    if line.contains("\"seed\"") { dispatch.next(to: index) }
                }
            }, stdin: dispatch.pipes[index], environment: environment))
            dispatch.next(to: index)
        }
        let tty = isatty(STDERR_FILENO) != 0
        if tty {
            while children.contains(where: \.isRunning) {
                usleep(200_000)
                let (done, failed) = collected.withLock { ($0.count, $0.filter { $0["passed"] != .bool(true) }.count) }
                FileHandleWriter.standardError("\r\(done)/\(count) seeds, \(failed) failed")
            }
        } else {
            for child in children { child.waitUntilExit() }
        }
        ChildProcess.stopAll(children, signal: nil)
        if tty { FileHandleWriter.standardError("\r" + String(repeating: " ", count: 40) + "\r") }
        let elapsed = ContinuousClock.now - started
        let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        var header = SwarmResults.Header(file: file, scenario: scenario.name, duration: scenario.duration, from: from, seeds: seeds,
                                         nemesis: nemesis, playsNemesis: scenario.nemesisPlayed(flag: nemesis) != nil, app: app, shard: shard,
                                         program: SwarmResults.programName)
        header.watchApp = watch.watchApp
        let report = SwarmResults(header: header, results: collected.withLock { $0 })
        if let results { try report.save(in: results) }
        for line in broken.withLock({ $0 }) { print("worker: \(line)") }
        let exits = children.indices.filter { children[$0].terminationStatus != 0 }.map { index in
            "\(children[index].name) \(children[index].howItEnded)"
                + (dispatch.running(on: index).map { " while it ran seed \($0)" } ?? "")
        }
        exits.forEach { print($0) }
        let failed = report.printFailures()
        print(report.summary(shardNote: shard.count > 1 ? ", shard \(shard)" : "",
                             timing: " in \(String(format: "%.1f", wall)) s (\(String(format: "%.1f", Double(report.results.count) / max(wall, 0.001))) seeds/s, \(workers) worker(s))"))
        if let junit { try report.writeJUnit(to: junit) }
        if failed || !exits.isEmpty { throw ExitCode(1) }
    }
}

/// Hands a swarm's seeds to its workers one at a time, over each worker's stdin.
final class SeedDispatch: @unchecked Sendable {
    let pipes: [Pipe]
    private let state: Mutex<(next: Int, running: [UInt64?])>
    private let order: [UInt64]

    init(order: [UInt64], workers: Int) {
        self.order = order
        pipes = (0..<workers).map { _ in Pipe() }
        state = Mutex((0, Array(repeating: nil, count: workers)))
    }

    /// Gives `worker` the next seed, or closes its stdin when none is left (it then exits).
    func next(to worker: Int) {
        state.withLock { state in
            let handle = pipes[worker].fileHandleForWriting
            guard state.next < order.count else {
                state.running[worker] = nil
                try? handle.close()
                return
            }
            let seed = order[state.next]
            // A worker already dead takes nothing: its seed stays for the others.
            guard (try? handle.write(contentsOf: Array("\(seed)\n".utf8))) != nil else {
                state.running[worker] = nil
                return
            }
            state.next += 1
            state.running[worker] = seed
        }
    }

    /// The seed `worker` was given last and has not reported.
    func running(on worker: Int) -> UInt64? { state.withLock { $0.running[worker] } }
}

/// `topology swarm merge DIR…`: one summary, one JUnit file and one list of failing seeds from
/// the results of a sharded swarm, as the unsharded swarm of the same seeds prints them.
public struct SwarmMerge: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Join the results (--results DIR) of a swarm's shards: print every failing seed with its reproduce command, and a summary.",
        discussion: "Exit status 1 when any seed failed or a shard's results are missing. docs/SCENARIOS.md#swarm-across-machines.")

    @Argument(help: "Directories (or .jsonl files) holding the shards' results.")
    var paths: [String]

    @Option(help: ArgumentHelp("Write one JUnit XML report (a testsuite per seed) to this file.", valueName: "file"))
    var junit: String?

    public init() {}

    public func run() throws {
        let report = try SwarmResults.merge(paths)
        let failed = report.printFailures()
        let shards = report.header.shard.count
        print(report.summary(shardNote: ", merged from \(shards) shard(s)", timing: ""))
        if let junit { try report.writeJUnit(to: junit) }
        if failed { throw ExitCode(1) }
    }
}
