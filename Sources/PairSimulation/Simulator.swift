import DequeModule
import PairSimConfig
import PairSimCore
import PairSimHealthExport
import PairSimKit
import PairSimRuntime
import PairSimScenario

/// Plays a scenario in one process in virtual time over the same core models the real nodes run,
/// with in-memory channels (R: P6). Same scenario and seed ⇒ the same event log, byte for byte.
public struct Simulator {
    public let scenario: Scenario
    public let seed: UInt64
    public let duration: EmulatedDuration
    package internal(set) var watch: WatchNode
    package internal(set) var phone: PhoneNode
    /// The app under test.
    public let app: AppRegistration
    /// The watch app under test.
    public let watchApp: AppRegistration
    public private(set) var now = EmulatedInstant.zero
    public internal(set) var events: [Event] = []
    /// Frames in flight between the nodes at the current instant (the channel models have applied
    /// latency and faults already), delivered in order.
    /// A queue taken from the front, so a node killed while it is drained (mid-turn) drops only
    /// what is still on its way to it.
    var deliveries: Deque<(to: NodeName, frames: [[UInt8]])> = []
    var nextCommand = 0
    /// Timeline commands that failed, with why (and an app's trap, which ends the run).
    public internal(set) var failedCommands: [String] = []
    /// The app's trap, if it trapped.
    public private(set) var appCrash: Event?
    let topology: Topology
    /// The timeline played: the scenario's, with the nemesis's entries merged in (marked).
    public let timeline: [(entry: TimelineEntry, byNemesis: Bool)]
    /// What each node has committed: a kill leaves exactly this (R: V1).
    public var images: [NodeName: DurableImage] { durable.dictionary }
    var durable = PerNode(DurableImage())
    /// Boot and turn handling shared with the node loop, per node.
    var turns = PerNode(NodeTurns())
    /// Nodes whose process is killed and not yet restarted.
    public var down: Set<NodeName> { downNodes.set }
    var downNodes = NodeFlags()
    /// Nodes killed `--mid-turn` whose next turn has not come yet: they die in it.
    var dying = NodeFlags()
    /// Process kills so far, per node.
    public internal(set) var kills: [NodeName: Int] = [.watch: 0, .phone: 0]
    /// True when a nemesis plays along.
    public let hasNemesis: Bool
    /// Timeline commands refused during a run with the nemesis (notes, not failures).
    public private(set) var refusedUnderNemesis: [String] = []
    /// Nodes whose storage keeps nothing (a broken build's durability): for showing that the
    /// invariants catch it. Tests set it; nothing else does.
    var brokenStorage: Set<NodeName> = []
    /// The most messages each node's outboxes held after any turn.
    public var maxPending: [NodeName: Int] { mostPending.dictionary }
    private var mostPending = PerNode(0)
    /// Timeline commands for a node that was down when they came due, run when it is back.
    var postponed: [NodeName: [(entry: TimelineEntry, byNemesis: Bool)]] = [.watch: [], .phone: []]
    /// Each node's real storage (journal and SQLite) on a faulty disk, when this run plays it
    /// (R: K8, `Simulator+RealStorage.swift`); empty: the nodes commit to `images` only.
    var disks: [NodeName: SimulatedDiskStorage] = [:]
    /// Draws the storage faults, apart from the nemesis's draws (the timeline stays the same).
    var storageRandom: SplitMix64
    /// The turn a node's process died in while committing: durable or not, as its files say at restart.
    var inFlight: [NodeName: (operations: [PersistOp], values: NodeValues)] = [:]
    /// Where what the real storage restored differs from what the node committed.
    public internal(set) var storageFindings: [String] = []
    /// The storage faults played, in order.
    public internal(set) var storageFaults: [StorageFault] = []
    /// When the simulated kernel last wrote its cache back (every `writebackInterval`).
    var lastWriteback = EmulatedInstant.zero
    /// Every kill is a power loss, whatever the nodes promise: for showing what one takes from a
    /// node that does not promise to survive it. Tests set it (before `run`); nothing else does.
    var powerLossRegardless = false
    /// How often an idle node settles its journal on the real storage: half the time, or — on a
    /// quarter of the seeds — never (a node too busy ever to idle, settling at the journal's
    /// 256-turn limit only).
    var idleSettleChance = 0.5

    /// The scenario's length (`duration` adds `Nemesis.settle` when `settled`).
    public let scenarioLength: EmulatedDuration

    /// Prepares a run of `app`; `seed` and `duration` override the scenario's; with `nemesis`, node
    /// kills, partitions and fault bursts drawn from the seed join the run. `settled` (implied by
    /// `nemesis`; set it for the fault-free twin) adds `Nemesis.settle` of quiet time at the end.
    /// `watchApp` is the topology's `watch.app` (which the caller looked up: `AppCatalog.watchApp`).
    /// `realStorage`: run the real journal and SQLite on a faulty disk (nil: as the nemesis draws
    /// it for this seed, `NemesisSpec.realStorage`; never without the nemesis).
    public init(scenario: Scenario, app: AppRegistration, watchApp: AppRegistration, seed: UInt64? = nil, duration: EmulatedDuration? = nil,
                nemesis: NemesisSpec? = nil, settled: Bool = false, realStorage: Bool? = nil) {
        precondition(scenario.topology.watch.app == watchApp.name,
                     "Invalid state: the topology's watch app is \(scenario.topology.watch.app), the simulator was given \(watchApp.name)")
        AppRuntime.clearUserDefaults()
        self.scenario = scenario
        var topology = scenario.topology
        if let seed { topology.seed = seed }
        let length = duration ?? scenario.duration
        scenarioLength = length
        hasNemesis = nemesis != nil
        if let nemesis {
            for (channel, burst) in Nemesis.bursts(nemesis, seed: topology.seed, duration: length) {
                topology.channels[channel, default: ChannelConfig()].bursts.append(burst)
            }
        }
        self.topology = topology
        self.seed = topology.seed
        self.duration = nemesis != nil || settled ? length + Nemesis.settle : length
        watch = WatchNode(topology: topology, boot: "sim", exports: HealthExportReader.opener, app: watchApp)
        self.app = app
        self.watchApp = watchApp
        phone = PhoneNode(topology: topology, boot: "sim", app: app)
        storageRandom = SplitMix64(seed: topology.seed, label: "nemesis.storage.faults")
        let playsRealStorage = realStorage ?? Nemesis.drawsRealStorage(nemesis, seed: topology.seed)
        let drawn = nemesis.map { Nemesis.draw($0, seed: topology.seed, duration: length) } ?? []
        timeline = (scenario.timeline.map { ($0, false) } + drawn.map { ($0, true) })
            .enumerated().sorted { ($0.element.0.at, $0.offset) < ($1.element.0.at, $1.offset) }.map(\.element)
        if playsRealStorage { openDisks() }
    }

    /// Runs to the end; `progress` is called now and then with the emulated time reached.
    public mutating func run(progress: ((EmulatedInstant) -> Void)? = nil) {
        for node in [NodeName.watch, .phone] {
            if let state = committedState(node) { boot(node, from: state) } else { downNodes.insert(node) }
        }
        let end = EmulatedInstant.zero + duration
        var lastProgress = EmulatedInstant.zero
        var stalled = 0
        while appCrash == nil {
            drainDeliveries()
            let timer = (downNodes.contains(.watch) ? nil : WatchNode.nextDeadline(of: &watch))
                .earliest(downNodes.contains(.phone) ? nil : PhoneNode.nextDeadline(of: &phone))
            let command = nextCommand < timeline.count ? timeline[nextCommand].entry.at : nil
            guard let next = timer.earliest(command), next <= end else { break }
            if next <= now { stalled += 1 } else { stalled = 0; idle(until: next) }
            if stalled >= 100_000 {
                // A model that keeps asking for "now" without doing anything: report it, do not hang.
                failedCommands.append("\(now) the simulation made no progress (a timer due again and again); stopped")
                break
            }
            now = max(now, next)
            if let timer, timer <= now {
                advanceDue()
                drainDeliveries()
            }
            while nextCommand < timeline.count, timeline[nextCommand].entry.at <= now {
                runCommand(timeline[nextCommand])
                nextCommand += 1
                drainDeliveries()
                // Like the node loop: timers a command made due fire in the same turn.
                advanceDue()
                drainDeliveries()
            }
            if let progress, now - lastProgress >= .hours(6) {
                lastProgress = now
                progress(now)
            }
        }
        if let appCrash {
            // In simulation an app's trap ends the run: the log so far and the seed say where (R: A6).
            failedCommands.append("\(appCrash.at) the app trapped (\(appCrash["signal"]?.stringValue ?? "?") during "
                + "\(appCrash["during"]?.stringValue ?? "?")); the run stopped there")
            stopBoth()
            return
        }
        now = end
        advanceDue()
        drainDeliveries()
        stopBoth()
    }

    /// Advances each node whose own deadline has come, as the node loop advances its model only
    /// then: a node with nothing due is left alone.
    mutating func advanceDue() {
        if !downNodes.contains(.watch), let due = WatchNode.nextDeadline(of: &watch), due <= now {
            perform(watch.advance(to: now), from: .watch)
        }
        if !downNodes.contains(.phone), let due = PhoneNode.nextDeadline(of: &phone), due <= now {
            perform(phone.advance(to: now), from: .phone)
        }
    }

    /// As the node loop ends: what `stop` returns is a turn of its own (committed, published, logged).
    mutating func stopBoth() {
        if !downNodes.contains(.watch) { perform(watch.stop(now: now), from: .watch) }
        if !downNodes.contains(.phone) { perform(phone.stop(now: now), from: .phone) }
    }

    mutating func runCommand(_ item: (entry: TimelineEntry, byNemesis: Bool)) {
        let entry = item.entry
        switch entry.driverCommand {
        case .killNode:
            if entry.killsMidTurn { killDuringNextTurn(entry.node) } else { kill(entry.node) }
            return
        case .restartNode:
            // Killed mid-turn but no turn came during its downtime: it dies now, between turns.
            if dying.contains(entry.node) { kill(entry.node) }
            restart(entry.node)
            return
        case nil: break
        }
        // A device whose process is down takes the command when it is back.
        if downNodes.contains(entry.node) {
            postponed[entry.node]!.append(item)
            return
        }
        let result: CommandResult
        switch entry.node {
        case .watch: result = watch.handleLogged(commandText: entry.command, now: now)
        case .phone: result = phone.handleLogged(commandText: entry.command, now: now)
        }
        // Under the nemesis a refusal is a note, not a failure: faults move what a command finds
        // (`delete-workout latest` before the workout arrived), and its own partitions may meet
        // the scenario's. The invariants judge the run.
        if let line = entry.problem(ok: result.ok, reply: result.reply) {
            if hasNemesis { refusedUnderNemesis.append(line) } else { failedCommands.append(line) }
        }
        perform(result.actions, from: entry.node)
    }

    /// Performs a turn's actions in the drivers' order (`carryOut`): persist (committed to the
    /// node's image, as the node loop commits to SQLite; the small values at a kill, see
    /// `commitValues`), then publish and emit. A node killed `--mid-turn` commits its values with
    /// each turn, and dies right after the first commit or frame of this one.
    mutating func perform(_ actions: [NodeAction], from node: NodeName) {
        guard !actions.isEmpty else { return }
        let dies = dying.contains(node)
        // On the real storage every turn commits its changed values, as the node loop's do.
        let values = !disks.isEmpty ? (node == .watch ? watch.changedValues() : phone.changedValues())
            : dies ? (node == .watch ? watch.persistentValues() : phone.persistentValues()) : nil
        var dead = false
        // Taken out for the turn (the closures below reach into `self`), leaving the local copy unique.
        var nodeTurns = turns[node]
        turns[node] = NodeTurns()
        nodeTurns.carryOut(actions, values: values,
            commit: { operations, values in
                guard !dead else { return }
                if !disks.isEmpty, disks[node] != nil, !commitToDisk(node, operations, values, dying: dies) {
                    dead = true
                    return
                }
                if brokenStorage.isEmpty || !brokenStorage.contains(node) { durable[node].commit(operations, values: values) }
                dead = dies
            },
            publish: { frame in
                guard !dead else { return }
                deliveries.append((node.peer, [Array(frame.topic.utf8), frame.payload]))
                dead = dies
            },
            emit: { event in
                guard !dead else { return }
                events.append(event)
                if event.name == EventName.appCrashed.rawValue, appCrash == nil { appCrash = event }
            })
        turns[node] = nodeTurns
        if dead {
            kill(node, midTurn: true)
        } else {
            mostPending[node] = max(mostPending[node], node == .watch ? Self.pendingMessages(of: &watch) : Self.pendingMessages(of: &phone))
        }
    }

    /// A node's unacknowledged messages, read as `NodeModel.nextDeadline(of:)` reads its deadline,
    /// for the same reason: a plain read from this mutating code copied the whole node first.
    static func pendingMessages<Node: AppHostingNode>(of node: inout Node) -> Int { node.pendingMessages }

    /// The small values as the node loop would have committed them after the last turn. Kills
    /// fall between turns and every turn commits, so they are the model's values now: taking them
    /// here rather than after every turn gives the same image and keeps a week of simulation at a
    /// few tens of milliseconds (building them every turn made it 2.5× slower).
    mutating func commitValues(_ node: NodeName) {
        guard !brokenStorage.contains(node) else { return }
        let changed = turns[node].changed(node == .watch ? watch.persistentValues() : phone.persistentValues())
        // What the node loop commits is `changedValues()`: every value that changed since the last
        // commit must be among them, or a real node would lose it at a kill.
        let offered = node == .watch ? watch.changedValues() : phone.changedValues()
        let missed = changed.keys.filter { offered[$0] == nil }.map(\.name)
        precondition(missed.isEmpty, "Invalid state: \(node) changed \(missed.sorted()) without offering them in changedValues()")
        durable[node].commit([], values: changed)
        if !changed.isEmpty, disks[node] != nil { _ = commitToDisk(node, [], changed, dying: false) }
    }

    mutating func drainDeliveries() {
        while let (to, frames) = deliveries.popFirst() {
            guard !downNodes.contains(to) else { continue } // nobody is listening: PUB/SUB drops it
            switch to {
            case .watch: perform(watch.receive(frames: frames, now: now), from: .watch)
            case .phone: perform(phone.receive(frames: frames, now: now), from: .phone)
            }
        }
    }
}
