#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PairSimConfig
import PairSimCore
import PairSimScenario
import ZeroMQ

/// `topology run`: plays a scenario on real watch-node and phone-node processes (time-scaled, or
/// in stepped time), then checks its expectations on the merged event logs.
public struct ScenarioRunner {
    /// How emulated time passes in a run.
    public enum ClockMode: String, Sendable, CaseIterable {
        /// `timeScale` × the wall clock, as `topology up` runs a pair.
        case wall
        /// Moved by the launcher from one deadline to the next once the pair is quiet (`SteppedTime`).
        case stepped
    }

    public let scenario: Scenario
    public let binDirectory: String
    public var timeScale: Double?
    public var clock: ClockMode = .wall
    /// Where the run's topology, state and logs go.
    public var directory: String
    /// Called with each line worth showing as the run goes.
    public var progress: (String) -> Void = { _ in }
    /// The phone's app (`--app`); nil: the topology's.
    public var app: String?
    /// The watch's app (`--watch-app`); nil: the topology's.
    public var watchApp: String?
    /// Another phone-node executable (a developer's own, `--phone-bin`).
    public var phoneBinary: String?

    public init(scenario: Scenario, binDirectory: String, directory: String) {
        self.scenario = scenario
        self.binDirectory = binDirectory
        self.directory = directory
    }

    public func run() throws -> ScenarioOutcome {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let yaml = try ScenarioLoader.privateTopologyYAML(scenario, directory: directory, timeScale: timeScale)
        let topologyPath = directory + "/topology.yaml"
        try yaml.write(toFile: topologyPath, atomically: true, encoding: .utf8)
        let topology = try TopologyLoader.load(path: topologyPath)
        let steppedPath = directory + "/clock"
        let clock = self.clock == .stepped
            ? EmulatedClock(stepped: try SharedClock(path: steppedPath, create: true))
            : EmulatedClock(epochUnixMilliseconds: Int64(EmulatedClock.wallMilliseconds()), timeScale: topology.timeScale)
        var children: [ChildProcess] = []
        defer { ChildProcess.stopAll(children, signal: SIGKILL, grace: 0) }
        let context = try Context()
        let stepper = clock.stepped.map { SteppedTime(clock: $0, endpoints: topology.nodes.mapValues(\.control), context: context) }
        defer { stepper?.close() }
        /// Lets emulated time reach `instant`: by the wall clock, or step by step.
        func wait(until instant: EmulatedInstant) throws {
            if let stepper { try stepper.advance(to: instant) } else { sleepUntil(instant, clock) }
        }
        func ctl(_ node: NodeName, _ command: String, timeout: Int32 = 5_000) throws -> ControlClient.Reply {
            try ControlClient(endpoint: topology.nodes[node]!.control, timeoutMilliseconds: timeout).send(command, context: context)
        }
        func launch(_ node: NodeName, fresh: Bool) throws -> ChildProcess {
            var launch = NodeLaunch(node: node, topologyPath: topologyPath, epochUnixMilliseconds: clock.epochUnixMilliseconds)
            launch.quiet = true
            launch.fresh = fresh
            launch.parentPID = getpid()
            launch.app = node == .phone ? app : watchApp
            if stepper != nil { launch.steppedClock = steppedPath }
            let child = try launch.start(binDirectory: binDirectory, phoneBinary: phoneBinary, output: .errorsOnly)
            children.append(child)
            return child
        }
        var processes: [NodeName: ChildProcess] = [:]
        for node in NodeName.allCases { processes[node] = try launch(node, fresh: true) }
        for node in NodeName.allCases {
            do { try processes[node]!.waitUntilAnswering(control: topology.nodes[node]!.control, context: context) } catch {
                throw RuntimeError("\(error); the scenario did not begin; its log: \(topology.nodes[node]!.data)/events.jsonl")
            }
            stepper?.started(node)
        }
        try stepper?.waitUntilPaired()
        progress("pair ready at \(clock.now()) (" + (stepper == nil ? "time scale \(topology.timeScale)×" : "stepped time")
                 + "); \(scenario.timeline.count) command(s) over \(scenario.duration)")
        var failed: [String] = []
        var postponed: [NodeName: [TimelineEntry]] = [.watch: [], .phone: []]
        func send(_ entry: TimelineEntry) throws {
            let reply = try ctl(entry.node, entry.command, timeout: 30_000)
            progress("\(clock.now()) \(entry.node) \(entry.command) → \(reply.ok ? "ok" : "error: " + reply.text)")
            if let line = entry.problem(ok: reply.ok, reply: reply.text) { failed.append(line) }
            try stepper?.quiet()
        }
        for entry in scenario.timeline {
            try wait(until: entry.at)
            switch entry.driverCommand {
            case .killNode:
                // kill -9: what the node did not commit is gone; its data directory stays.
                guard let process = processes[entry.node], process.isRunning else { continue }
                process.signal(SIGKILL)
                process.waitUntilExit()
                processes[entry.node] = nil
                stepper?.killed(entry.node)
                progress("\(clock.now()) \(entry.node) kill-node → killed (pid \(process.pid))")
            case .restartNode:
                guard processes[entry.node] == nil else { continue }
                let process = try launch(entry.node, fresh: false)
                try process.waitUntilAnswering(control: topology.nodes[entry.node]!.control, context: context)
                processes[entry.node] = process
                stepper?.started(entry.node)
                try stepper?.waitUntilPaired()
                progress("\(clock.now()) \(entry.node) restart-node → running again (pid \(process.pid))")
                for waiting in postponed[entry.node]! { try send(waiting) }
                postponed[entry.node] = []
            case nil:
                // A device whose process is down takes the command when it is back (as in simulate).
                if processes[entry.node] == nil { postponed[entry.node]!.append(entry) } else { try send(entry) }
            }
        }
        try wait(until: .zero + scenario.duration)
        if let stepper {
            progress("stepped time: \(stepper.steps) step(s)" + (stepper.stalls > 0 ? ", \(stepper.stalls) frame(s) lost on the way (counts taken again)" : ""))
        }
        for node in NodeName.allCases {
            guard let child = processes[node] else { failed.append("\(node)-node was killed and never restarted"); continue }
            if !child.isRunning { failed.append("\(node)-node exited with status \(child.terminationStatus) during the run") }
            else if (try? ctl(node, "shutdown", timeout: 2_000))?.ok != true { child.signal(SIGTERM) }
        }
        ChildProcess.stopAll(children, signal: nil) { failed.append("\($0.name) did not stop within 10 s") }
        var badLines: [EventLog.BadLine] = []
        let events = EventLog.merged(topology, badLines: &badLines)
        EventLog.report(badLines)
        let state = try JournaledStorage(directory: topology.nodes[.phone]!.data).load()
        let charts = WorkoutCharts.make(workouts: state.workouts.map(\.0),
                                        heartRate: state.samples.map(\.0).filter { $0.type == .heartRate })
        return ScenarioOutcome(scenario: scenario.name, mode: "run", seed: topology.seed, duration: scenario.duration, events: events,
                               verdicts: ExpectationChecker.check(scenario.expectations + scenario.invariants, events: events),
                               failedCommands: failed, charts: charts)
    }

    func sleepUntil(_ instant: EmulatedInstant, _ clock: EmulatedClock) {
        while clock.now() < instant {
            let wait = clock.wallMilliseconds(until: instant)
            usleep(UInt32(min(max(wait, 1), 200) * 1_000))
        }
    }
}
