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
    /// The nemesis's faults (`run --nemesis`, R: K9): node kills and partitions joining the
    /// timeline, fault bursts joining the channels, and quiet time after the scenario's end.
    /// Under it the expectations are not checked (faults move timing on purpose), and a timeline
    /// command refused meanwhile is noted rather than failed (as in `simulate --nemesis`).
    public var nemesisTimeline: [TimelineEntry] = []
    public var nemesisBursts: [(Channel, FaultBurst)] = []
    public var settle: EmulatedDuration = .zero
    public var underNemesis: Bool { !nemesisTimeline.isEmpty || !nemesisBursts.isEmpty }
    /// Timeline commands refused under the nemesis, by the last run.
    public final class Notes: @unchecked Sendable { public var refused: [String] = [] }
    public let notes = Notes()

    public init(scenario: Scenario, binDirectory: String, directory: String) {
        self.scenario = scenario
        self.binDirectory = binDirectory
        self.directory = directory
    }

    public func run() throws -> ScenarioOutcome {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let yaml = try ScenarioLoader.privateTopologyYAML(scenario, directory: directory, timeScale: timeScale, bursts: nemesisBursts)
        let topologyPath = directory + "/topology.yaml"
        try yaml.write(toFile: topologyPath, atomically: true, encoding: .utf8)
        let topology = try TopologyLoader.load(path: topologyPath)
        let steppedPath = directory + "/clock", epochPath = directory + "/epoch"
        // Wall time starts when both nodes are up and paired, not when the first was launched:
        // until then it stands at zero in both (their epoch file holds 0), so the timeline's
        // instants are the pair's (R: K9). Starting two processes takes wall seconds, which at
        // 600× were 18–27 emulated seconds of the timeline gone before it began.
        let clock = self.clock == .stepped
            ? EmulatedClock(stepped: try SharedClock(path: steppedPath, create: true))
            : EmulatedClock(epochFile: try SharedClock(path: epochPath, create: true), timeScale: topology.timeScale)
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
            launch.dataDirectory = topology.nodes[node]!.data
            launch.parentPID = getpid()
            launch.app = node == .phone ? app : watchApp
            if stepper != nil { launch.steppedClock = steppedPath } else { launch.epochFile = epochPath }
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
        if clock.epochFile != nil {
            // Paired before the epoch is written (below, once the first commands wait at their nodes).
            try SteppedTime.waitUntilPaired(then: "; the scenario did not begin") { node in
                let reply = try ctl(node, "clock-status")
                return reply.ok && (try? JSONParser().parse(reply.text))?["subscribed"]?.boolValue == true
            }
        }
        func pairReady() {
            progress("pair ready at \(clock.now()) (" + (stepper == nil ? "time scale \(topology.timeScale)×" : "stepped time")
                 + "); \(scenario.timeline.count) command(s) over \(scenario.duration)")
        }
        var failed: [String] = []
        var postponed: [NodeName: [TimelineEntry]] = [.watch: [], .phone: []]
        func record(_ entry: TimelineEntry, _ reply: ControlClient.Reply) {
            progress("\(clock.now()) \(entry.node) \(entry.command) → \(reply.ok ? "ok" : "error: " + reply.text)")
            if let line = entry.problem(ok: reply.ok, reply: reply.text) {
                if underNemesis { notes.refused.append(line) } else { failed.append(line) }
            }
        }
        func send(_ entry: TimelineEntry) throws {
            record(entry, try ctl(entry.node, entry.command, timeout: 30_000))
            try stepper?.quiet()
        }
        /// In wall time a request takes a millisecond or two to arrive — a second or more of
        /// emulated time at 600× — so each command goes as soon as the one before it is done, as
        /// `at MS COMMAND`, and waits at its node for its very instant (R: K9); one at the same
        /// instant on the other node goes out beside it. Stepped time stands still meanwhile.
        func beginAhead(_ group: [TimelineEntry]) -> (live: [TimelineEntry], pending: ControlClient.Pending) {
            let live = group.filter { processes[$0.node] != nil }
            for entry in group where processes[entry.node] == nil { postponed[entry.node]!.append(entry) }
            let requests = live.map { entry in
                (topology.nodes[entry.node]!.control, "at \(entry.at.milliseconds) \(entry.command)",
                 Int32(min(Double(Int32.max), clock.wallMilliseconds(until: entry.at) + 30_000)))
            }
            return (live, ControlClient.begin(requests, context: context))
        }
        func finishAhead(_ sent: (live: [TimelineEntry], pending: ControlClient.Pending)) throws {
            for (entry, reply) in zip(sent.live, sent.pending.replies()) { record(entry, try reply.get()) }
        }
        // The nemesis's entries after the scenario's own at the same instant (as simulate orders them).
        let timeline = (scenario.timeline.enumerated().map { ($0.element, 0, $0.offset) } + nemesisTimeline.enumerated().map { ($0.element, 1, $0.offset) })
            .sorted { ($0.0.at, $0.1, $0.2) < ($1.0.at, $1.1, $1.2) }.map(\.0)
        /// The node commands that go out together from `index` (in wall time): one, and another at
        /// the same instant on the other node; none when the entry is the launcher's (kill, restart).
        func group(at index: Int) -> [TimelineEntry] {
            guard stepper == nil, index < timeline.count, timeline[index].driverCommand == nil else { return [] }
            var group = [timeline[index]]
            if index + 1 < timeline.count, timeline[index + 1].at == timeline[index].at, timeline[index + 1].node != timeline[index].node,
               timeline[index + 1].driverCommand == nil {
                group.append(timeline[index + 1])
            }
            return group
        }
        var index = 0
        // Commands at time zero run while time still stands there; then wall time starts only once
        // the next commands wait at their nodes: however slow the machine, none arrives after its instant.
        if clock.epochFile != nil {
            while case let zero = group(at: index), !zero.isEmpty, zero.allSatisfy({ $0.at <= .zero }) {
                try finishAhead(beginAhead(zero))
                index += zero.count
            }
        }
        let first = group(at: index)
        let firstSent = first.isEmpty ? nil : beginAhead(first)
        index += first.count
        // A moment ahead, for the requests just sent to reach their nodes first (time stands at zero till then).
        clock.epochFile?.store(raw: Int64(EmulatedClock.wallMilliseconds().rounded(.up)) + Self.startMargin)
        pairReady()
        if let firstSent { try finishAhead(firstSent) }
        while index < timeline.count {
            let entry = timeline[index]
            let together = group(at: index)
            if !together.isEmpty {
                try finishAhead(beginAhead(together))
                index += together.count
                continue
            }
            index += 1
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
        try wait(until: .zero + scenario.duration + settle)
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
        return ScenarioOutcome(scenario: scenario.name, mode: underNemesis ? "run --nemesis" : "run", seed: topology.seed,
                               duration: scenario.duration + settle, events: events,
                               verdicts: ExpectationChecker.check((underNemesis ? [] : scenario.expectations) + scenario.invariants, events: events),
                               failedCommands: failed, charts: charts)
    }

    /// Wall milliseconds between writing the epoch and emulated time zero.
    static let startMargin: Int64 = 200

    /// What a stopped node left in its data directory (its database and turn journal).
    public static func savedState(directory: String) throws -> PersistedState {
        try JournaledStorage(directory: directory).load()
    }

    func sleepUntil(_ instant: EmulatedInstant, _ clock: EmulatedClock) {
        while clock.now() < instant {
            let wait = clock.wallMilliseconds(until: instant)
            usleep(UInt32(min(max(wait, 1), 200) * 1_000))
        }
    }
}
