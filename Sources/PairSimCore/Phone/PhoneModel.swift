import Foundation

/// The iPhone: its HealthKit store and daemon (authorization, lock, observers, background
/// delivery) and the app on top (lifecycle, refresh coordinator, snapshot cache, tabs, workout
/// list, detail and notification), fed by both channels from the watch.
public struct PhoneModel: NodeModel {
    /// Timers the phone sets.
    public enum Timer: Hashable, Sendable {
        /// The background execution budget ends: the app is suspended.
        case budgetEnd
        /// A background-delivery wake (or retry) for a type is due.
        case wake(ObjectType)
        /// The app's observer handler finishes and calls the completion handler.
        case completion(ObjectType, trigger: ObserverTrigger, execution: Int)
        /// A snapshot fetch's queries finish.
        case snapshot(id: Int, execution: Int)
        /// Hourly check for expired deleted-object tombstones.
        case purge
        /// The phone's CloudKit export batch is due.
        case export
    }

    public let node = NodeName.phone
    public let topology: Topology
    public let config: PhoneConfig
    public let seed: UInt64
    public internal(set) var sync: SyncEngine
    public internal(set) var store = HealthStore()
    public internal(set) var records = RecordStore()

    // The app and its process
    public internal(set) var app: AppState = .notRunning
    public internal(set) var locked = false
    /// The app was on screen when the device locked: unlocking brings it back (R: L1).
    public internal(set) var frontmostAtLock = false
    /// Increases whenever the app stops executing (suspend, terminate, force quit): work it had
    /// in progress (handlers, fetches) is dropped.
    public internal(set) var execution = 0
    var budgetToken: UInt64?
    public internal(set) var budgetEndsAt: EmulatedInstant?
    /// When the app last left the screen (for the foreground-return rule, R: C6).
    public internal(set) var backgroundSince: EmulatedInstant?
    /// The UI has appeared since launch (tabs exist).
    public internal(set) var uiLoaded = false
    public internal(set) var denied: Set<ObjectType>

    // HealthKit daemon
    public internal(set) var observers: [ObjectType] = []
    public internal(set) var delivery: BackgroundDelivery
    /// `miss-completion`: the app skips this many upcoming completion calls per type.
    public internal(set) var missCompletions: [ObjectType: Int] = [:]
    /// `fail-next-save`: HealthKit refuses this many of the app's next saves.
    public internal(set) var saveFailures = 0
    /// Objects that arrived while locked, merged at unlock (R: H4).
    public internal(set) var lockBuffer = HealthObjectsBatch()
    /// Types whose wakes wait for unlock (when `wakeWhileLocked` is off).
    var deferredUntilUnlock: [ObjectType] = []

    // The app's refresh machinery and workout features
    public internal(set) var coordinator: RefreshCoordinator
    public internal(set) var snapshots: SnapshotService
    public internal(set) var tabs = TabLoads()
    public internal(set) var notifier = WorkoutNotifier()
    /// Records waiting in the CloudKit container until the app runs (R: S4).
    public internal(set) var container = RecordsBatch()
    var exporter: CloudKitExporter
    var exportToken: UInt64?
    var uuids: UUIDGenerator

    var timers = TimerQueue<Timer>()
    public internal(set) var counters = PhoneCounters()
    public internal(set) var restored = false

    public init(topology: Topology, boot: String) {
        self.topology = topology
        config = topology.phone
        seed = topology.seed(for: .phone)
        sync = SyncEngine(node: .phone, boot: boot, seed: seed, channels: topology.channels,
                          reliability: topology.reliability, limits: topology.wire)
        denied = config.healthKit.denied
        delivery = BackgroundDelivery(config: config.backgroundDelivery)
        coordinator = RefreshCoordinator(config: config.refresh, launchedAt: .zero)
        snapshots = SnapshotService(config: config.refresh)
        exporter = CloudKitExporter(interval: topology.channel(.cloudkit).exportInterval)
        uuids = UUIDGenerator(seed: seed, label: "phone.uuids")
    }

    func event(_ name: EventName, _ now: EmulatedInstant, level: Event.Level = .info, _ fields: JSONObject = [:]) -> NodeAction {
        .emit(Event(at: now, node: .phone, name, level: level, fields: fields))
    }

    /// What HealthKit lets the app read now (a denied read looks like only the app's own data, R: H3).
    public var reads: HealthReads { HealthReads(store: store, denied: denied) }

    public var nextDeadline: EmulatedInstant? {
        [sync.nextDeadline, timers.peekDeadline].compactMap { $0 }.min()
    }

    public mutating func start(now: EmulatedInstant) -> [NodeAction] {
        var actions = [event(.nodeStarted, now, [
            "seed": .int(Int64(seed)), "topology": .string(topology.name), "boot": .string(sync.boot),
            "timeScale": .double(topology.timeScale), "restored": .bool(restored), "app": .string(app.rawValue),
        ])]
        timers.schedule(.purge, at: now + .hours(1))
        if restored {
            actions += resumeAfterRestart(now: now)
        } else if config.app.initialState == .foreground {
            actions += launch(now: now, reason: "initial")
        }
        return actions
    }

    public mutating func peerConnected(now: EmulatedInstant) -> [NodeAction] {
        [.publish(sync.helloFrame(now: now))] + sync.peerAppeared(now: now)
    }

    public mutating func advance(to now: EmulatedInstant) -> [NodeAction] {
        var actions = sync.advance(to: now)
        while let (timer, _) = timers.popDue(now) {
            actions += fire(timer, now: now)
        }
        return actions
    }

    public func stop(now: EmulatedInstant) -> [NodeAction] {
        [event(.nodeStopped, now, counters.json(sync: sync))]
    }

    mutating func fire(_ timer: Timer, now: EmulatedInstant) -> [NodeAction] {
        switch timer {
        case .budgetEnd:
            budgetToken = nil
            return budgetExpired(now: now)
        case .wake(let type):
            return wake(type, now: now)
        case .completion(let type, let trigger, let at):
            return at == execution ? completion(type, trigger: trigger, now: now) : []
        case .snapshot(let id, let at):
            return at == execution ? snapshotCompleted(id: id, now: now) : []
        case .purge:
            timers.schedule(.purge, at: now + .hours(1))
            return purgeTombstones(now: now)
        case .export:
            exportToken = nil
            return exportRecords(now: now)
        }
    }
}
