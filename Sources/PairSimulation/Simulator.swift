import PairSimConfig
import PairSimCore
import PairSimKit

/// Plays a scenario in one process in virtual time over the same core models the real nodes run,
/// with in-memory channels (R: P6). Same scenario and seed ⇒ the same event log, byte for byte.
public struct Simulator {
    public let scenario: Scenario
    public let seed: UInt64
    public let duration: EmulatedDuration
    public private(set) var watch: WatchModel
    package private(set) var phone: PhoneNode
    /// The app under test.
    public let app: AppRegistration
    public private(set) var now = EmulatedInstant.zero
    public private(set) var events: [Event] = []
    /// Frames in flight between the nodes at the current instant (the channel models have applied
    /// latency and faults already), delivered in order.
    var deliveries: [(to: NodeName, frames: [[UInt8]])] = []
    var nextCommand = 0
    /// Timeline commands that failed, with why (and an app's trap, which ends the run).
    public private(set) var failedCommands: [String] = []
    /// The app's trap, if it trapped.
    public private(set) var appCrash: Event?

    /// Prepares a run of `app`; `seed` and `duration` override the scenario's.
    public init(scenario: Scenario, app: AppRegistration, seed: UInt64? = nil, duration: EmulatedDuration? = nil) {
        self.scenario = scenario
        var topology = scenario.topology
        if let seed { topology.seed = seed }
        self.seed = topology.seed
        self.duration = duration ?? scenario.duration
        watch = WatchModel(topology: topology, boot: "sim")
        self.app = app
        phone = PhoneNode(topology: topology, boot: "sim", app: app)
    }

    /// Runs to the end; `progress` is called now and then with the emulated time reached.
    public mutating func run(progress: ((EmulatedInstant) -> Void)? = nil) {
        perform(watch.start(now: now), from: .watch)
        perform(phone.start(now: now), from: .phone)
        let end = EmulatedInstant.zero + duration
        var lastProgress = EmulatedInstant.zero
        var stalled = 0
        while appCrash == nil {
            drainDeliveries()
            let timer = [watch.nextDeadline, phone.nextDeadline].compactMap { $0 }.min()
            let command = nextCommand < scenario.timeline.count ? scenario.timeline[nextCommand].at : nil
            guard let next = [timer, command].compactMap({ $0 }).min(), next <= end else { break }
            if next <= now { stalled += 1 } else { stalled = 0 }
            if stalled >= 100_000 {
                // A model that keeps asking for "now" without doing anything: report it, do not hang.
                failedCommands.append("\(now) the simulation made no progress (a timer due again and again); stopped")
                break
            }
            now = max(now, next)
            if let timer, timer <= now {
                perform(watch.advance(to: now), from: .watch)
                perform(phone.advance(to: now), from: .phone)
                drainDeliveries()
            }
            while nextCommand < scenario.timeline.count, scenario.timeline[nextCommand].at <= now {
                runCommand(scenario.timeline[nextCommand])
                nextCommand += 1
                drainDeliveries()
                // Like the node loop: timers a command made due fire in the same turn.
                perform(watch.advance(to: now), from: .watch)
                perform(phone.advance(to: now), from: .phone)
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
            events += watch.stop(now: now).events
            events += phone.stop(now: now).events
            return
        }
        now = end
        perform(watch.advance(to: now), from: .watch)
        perform(phone.advance(to: now), from: .phone)
        drainDeliveries()
        events += watch.stop(now: now).events
        events += phone.stop(now: now).events
    }

    mutating func runCommand(_ entry: TimelineEntry) {
        let result: CommandResult
        switch entry.node {
        case .watch: result = watch.handleLogged(commandText: entry.command, now: now)
        case .phone: result = phone.handleLogged(commandText: entry.command, now: now)
        }
        if !result.ok { failedCommands.append("\(entry.at) \(entry.node) \(entry.command): \(result.reply)") }
        perform(result.actions, from: entry.node)
    }

    mutating func perform(_ actions: [NodeAction], from node: NodeName) {
        for action in actions {
            switch action {
            case .emit(let event):
                events.append(event)
                if event.name == EventName.appCrashed.rawValue, appCrash == nil { appCrash = event }
            case .publish(let frame): deliveries.append((node.peer, [Array(frame.topic.utf8), frame.payload]))
            case .persist: break // state lives in the models; nothing to make durable in one process
            }
        }
    }

    mutating func drainDeliveries() {
        var index = 0
        while index < deliveries.count {
            let (to, frames) = deliveries[index]
            index += 1
            switch to {
            case .watch: perform(watch.receive(frames: frames, now: now), from: .watch)
            case .phone: perform(phone.receive(frames: frames, now: now), from: .phone)
            }
        }
        deliveries.removeAll(keepingCapacity: true)
    }

    /// The phone's HealthKit store at the end (for the report's charts).
    public var phoneStore: HealthStore { phone.platform.store }

    /// The event log as JSON lines: identical bytes for the same scenario and seed.
    public var eventLog: [UInt8] {
        var bytes: [UInt8] = []
        for event in events {
            bytes += event.jsonLine
            bytes.append(0x0A)
        }
        return bytes
    }
}
