import Foundation

/// The iPhone as Apple's OS makes it (R: A1): the HealthKit store and daemon (authorization as
/// Apple hides it, the lock, observer queries and their dispatch, background delivery), the app's
/// lifecycle and execution budgets, the CloudKit container and the app's synced records, the
/// notification centre — and no app decision. The app under test sits across `AppCall` /
/// `AppRequest`; `PairSimKit` drives it.
public struct PhonePlatform: NodeModel {
    /// Timers the platform sets.
    public enum Timer: Hashable, Sendable {
        /// The background execution budget ends: the app is suspended.
        case budgetEnd
        /// A background-delivery wake (or retry) for a type is due.
        case wake(ObjectType)
        /// Hourly check for expired deleted-object tombstones.
        case purge
        /// The phone's CloudKit export batch is due.
        case export
        /// A timer the app scheduled on its clock.
        case app(Int)
        /// An observer callback the app got on screen (not a wake) should have been completed by now (R: F8).
        case completionDue(Int)
        /// The app's UIKit background tasks are about to run out of time / have (R: F2).
        case uiTasksExpiring, uiTasksDeadline
        /// A `BGTaskScheduler` request may run now (R: F2).
        case bgTaskDue(String)
        /// A running BGTask is about to run out of time / has.
        case bgTaskExpiring(Int), bgTaskDeadline(Int)
        /// A new day's widget reload budget: reloads that waited for it happen.
        case widgetBudget
    }

    /// A `BGTaskScheduler` request waiting for the system to run it.
    public struct PendingBGTask: Hashable, Sendable {
        public var request: BGRequest
        /// When the system runs it (refresh), or from when it may (processing: when idle).
        public var dueAt: EmulatedInstant
    }

    /// A BGTask the app is running.
    public struct RunningBGTask: Hashable, Sendable {
        public var identifier: String
        public var processing: Bool
        public var deadline: EmulatedInstant
        var timers: [UInt64]
    }

    /// An observer query the running app executed.
    public struct ObserverQuery: Hashable, Sendable {
        public var id: Int
        public var type: ObjectType
    }

    public let node = NodeName.phone
    public let topology: Topology
    public let config: PhoneConfig
    public let seed: UInt64
    public internal(set) var sync: SyncEngine
    public internal(set) var store = HealthStore()
    /// The app's records (SwiftData with CloudKit sync): kept by the framework, read by the app.
    public internal(set) var records = RecordStore()

    // The app's process
    public internal(set) var app: AppState = .notRunning { didSet { touched.insert(.app) } }
    public internal(set) var locked = false { didSet { touched.insert(.app) } }
    /// The app was on screen when the device locked: unlocking brings it back (R: L1).
    public internal(set) var frontmostAtLock = false { didSet { touched.insert(.app) } }
    var budgetToken: UInt64?
    public internal(set) var budgetEndsAt: EmulatedInstant?
    /// When the app last left the screen.
    public internal(set) var backgroundSince: EmulatedInstant? { didSet { touched.insert(.app) } }
    public internal(set) var denied: Set<ObjectType> { didSet { touched.insert(.app) } }
    /// The app's user defaults (`UserDefaults`): kept across launches and node restarts.
    public internal(set) var defaults = JSONObject() { didSet { touched.insert(.defaults) } }

    // HealthKit daemon
    /// Observer queries the running app executed, in order.
    public internal(set) var observerQueries: [ObserverQuery] = []
    public internal(set) var delivery: BackgroundDelivery { didSet { touched.insert(.delivery) } }
    /// Completion handlers handed to the app and not called yet: the type, and whether the update was a wake.
    var openCompletions: [Int: (type: ObjectType, wake: Bool)] = [:]
    /// A background launch for this type: the execute callback of its observer is the wake's delivery.
    var wakeOnLaunch: ObjectType?
    /// Types that changed while the app was suspended with an observer query for them and no
    /// background delivery to wake it: those queries hear the change when the app runs again.
    /// Belongs to the app's process, like `observerQueries` (a launch starts without it).
    var changedWhileSuspended: [ObjectType] = []
    /// `miss-completion`: the app's next completion calls per type that PairSim swallows.
    public internal(set) var missCompletions: [ObjectType: Int] = [:] { didSet { touched.insert(.missCompletions) } }
    /// `fail-next-save`: HealthKit refuses this many of the app's next saves.
    public internal(set) var saveFailures = 0 { didSet { touched.insert(.saveFailures) } }
    /// Objects that arrived while locked, merged at unlock (R: H4).
    public internal(set) var lockBuffer = HealthObjectsBatch()
    /// Types whose wakes wait for unlock.
    var deferredUntilUnlock: [ObjectType] = [] { didSet { touched.insert(.deferred) } }

    // The boundary with the app
    /// Calls for the app, in order; taken by the driver (`takeAppCalls`).
    var appCalls: [AppCall] = []
    /// Calls held while the app is suspended: they reach it when it runs again.
    var heldCalls: [AppCall] = []

    // Background execution (R: F2)
    /// UIKit background tasks the app's process began and has not ended.
    public internal(set) var uiTasks: Set<Int> = []
    /// When the app's current stretch of running in the background began.
    var backgroundRunSince: EmulatedInstant?
    /// When the app's UIKit background tasks run out of time, and the timers for it.
    public internal(set) var uiTaskDeadline: EmulatedInstant?
    var uiTaskTimers: [UInt64] = []
    /// `BGTaskScheduler` requests waiting to run, by identifier (kept by the system across launches).
    public internal(set) var bgRequests: [String: PendingBGTask] = [:]
    var bgRequestTimers: [String: UInt64] = [:]
    /// BGTasks the app is running, by token.
    public internal(set) var runningBGTasks: [Int: RunningBGTask] = [:]
    /// The phone is on external power (`plug-in` / `unplug`): processing tasks that require it may run.
    public internal(set) var charging = false
    /// The last CloudKit silent notification that woke the app (they are throttled), and whether
    /// the app ever listened for its records' changes (its CloudKit subscription, which outlives
    /// the process).
    var lastSilentPushWake: EmulatedInstant?
    /// The budget was cut short because the app's background work was done (the suspension's reason).
    var budgetCutShort = false
    var recordsSubscribed = false
    /// Today's complication transfers and widget reloads, and the reloads waiting for the next
    /// day's budget (their kinds; "" is every kind) (R: F4).
    var complicationBudget = DailyBudget()
    var widgetBudget = DailyBudget()
    var widgetReloadsWaiting: [String] = []
    /// Replies to user actions, by action id.
    var replies: [Int: (ok: Bool, text: String)] = [:]
    var nextToken = 0
    /// The app's clock timers: its id → the platform's timer.
    var appTimers: [Int: UInt64] = [:]

    /// Records waiting in the CloudKit container until the app runs (R: S4).
    public internal(set) var container = RecordsBatch()
    var exporter: CloudKitExporter { didSet { touched.insert(.export) } }
    var exportToken: UInt64?
    var uuids: UUIDGenerator { didSet { touched.insert(.uuids) } }
    /// The app's WCSession (R: X1).
    public internal(set) var wc: WCSessionCore
    /// Reply handlers handed to the app for received messages: token → message id.
    var wcReplyTokens: [Int: (id: String, isData: Bool)] = [:]

    /// The persistent values (`persistentValues()`) whose properties were set since
    /// `changedValues()` last ran: every property a value is made from marks it in its `didSet`.
    /// Except `store`, `sync` and `wc`, which are passed `inout` together (an observed property
    /// cannot be) and are always offered: `sync` changes nearly every turn anyway.
    var touched = PhoneValues.all

    var timers = TimerQueue<Timer>()
    public internal(set) var counters = PhoneCounters()
    public internal(set) var restored = false
    /// The phone's own clock (R: F5).
    public internal(set) var time: DeviceTime { didSet { touched.insert(.clock) } }

    public init(topology: Topology, boot: String) {
        self.topology = topology
        config = topology.phone
        seed = topology.seed(for: .phone)
        sync = SyncEngine(node: .phone, boot: boot, seed: seed, channels: topology.channels,
                          reliability: topology.reliability, limits: topology.wire)
        denied = config.healthKit.denied
        delivery = BackgroundDelivery(config: config.backgroundDelivery)
        exporter = CloudKitExporter(interval: topology.channel(.cloudkit).exportInterval)
        uuids = UUIDGenerator(seed: seed, label: "phone.uuids")
        wc = WCSessionCore(node: .phone, config: topology.watchConnectivity, seed: seed, activated: false)
        time = DeviceTime(clock: config.clock.clock(seed: seed, node: .phone, since: .zero), now: .zero)
    }

    /// The app hears of a time change (`applicationSignificantTimeChange`): once while it is
    /// suspended, however many happen ("queued until your app returns to the foreground").
    mutating func timeChanged(_ change: TimeChange) {
        if app == .suspended, heldCalls.contains(where: { if case .timeChanged = $0 { true } else { false } }) { return }
        call(.timeChanged(change))
    }

    func event(_ name: EventName, _ now: EmulatedInstant, level: Event.Level = .info, _ fields: JSONObject = [:]) -> NodeAction {
        .emit(Event(at: now, node: .phone, name, level: level, fields: fields))
    }

    /// What HealthKit lets the app read now (a denied read looks like only the app's own data, R: H3).
    public var reads: HealthReads { HealthReads(store: store, denied: denied) }

    public var nextDeadline: EmulatedInstant? {
        sync.nextDeadline.earliest(timers.peekDeadline).earliest(wc.nextDeadline).earliest(time.nextDeadline)
    }

    public mutating func start(now: EmulatedInstant) -> [NodeAction] {
        var actions = [event(.nodeStarted, now, [
            "seed": .int(Int64(seed)), "topology": .string(topology.name), "boot": .string(sync.boot),
            "timeScale": .double(topology.timeScale), "restored": .bool(restored), "app": .string(app.rawValue),
        ])]
        actions += time.startEvent(node: node, now: now)
        timers.schedule(.purge, at: now + .hours(1))
        if restored {
            actions += resumeAfterRestart(now: now)
        } else if config.app.initialState == .foreground {
            actions += launch(now: now, reason: "initial")
        }
        return actions + refreshReachability(now: now)
    }

    public mutating func peerConnected(now: EmulatedInstant) -> [NodeAction] {
        sync.peerConnected(now: now) + wc.announceAgain(sync: sync, now: now)
    }

    public mutating func advance(to now: EmulatedInstant) -> [NodeAction] {
        var actions = sync.advance(to: now)
        while let (timer, _) = timers.popDue(now) {
            actions += fire(timer, now: now)
        }
        let (clockActions, change) = time.advance(node: node, to: now)
        actions += clockActions
        if let change { timeChanged(change) }
        return actions + advanceWatchConnectivity(now: now)
    }

    public func stop(now: EmulatedInstant) -> [NodeAction] {
        var fields = counters.json(sync: sync)
        wc.counters.append(to: &fields)
        return [event(.nodeStopped, now, fields)]
    }

    mutating func fire(_ timer: Timer, now: EmulatedInstant) -> [NodeAction] {
        switch timer {
        case .budgetEnd:
            budgetToken = nil
            return budgetExpired(now: now)
        case .wake(let type):
            return wake(type, now: now)
        case .purge:
            timers.schedule(.purge, at: now + .hours(1))
            return purgeTombstones(now: now)
        case .export:
            exportToken = nil
            return exportRecords(now: now)
        case .app(let id):
            call(.timer(id: id))
            return []
        case .completionDue(let token):
            return completionOverdue(token, now: now)
        case .uiTasksExpiring:
            return uiTasksExpiring(now: now)
        case .uiTasksDeadline:
            return uiTasksDeadline(now: now)
        case .bgTaskDue(let identifier):
            bgRequestTimers[identifier] = nil
            return bgTaskDue(identifier, now: now)
        case .bgTaskExpiring(let token):
            return bgTaskExpiring(token, now: now)
        case .bgTaskDeadline(let token):
            return bgTaskDeadline(token, now: now)
        case .widgetBudget:
            return widgetBudgetRestored(now: now)
        }
    }

    /// A fresh token for a completion handler, a query or a timer the platform hands out.
    mutating func token() -> Int {
        nextToken += 1
        return nextToken
    }
}
