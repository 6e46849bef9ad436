import Foundation

/// The Apple Watch's platform, under the watch app a driver hosts (the reference watch app unless
/// the topology names another): the app's workout session and live builder with the heart-rate
/// sensor, the HealthKit and SwiftData stores, WatchConnectivity, and the sync channels to the phone.
public struct WatchModel: NodeModel {
    public let node = NodeName.watch
    public let topology: Topology
    public let seed: UInt64
    public internal(set) var sync: SyncEngine
    public internal(set) var store = HealthStore()
    public internal(set) var records = RecordStore()
    var exporter: CloudKitExporter { didSet { touched.insert(.export) } }
    var uuids: UUIDGenerator { didSet { touched.insert(.uuids) } }
    let heartRate: HeartRateGenerator
    /// Resting samples written so far.
    var restingCount: Int64 = 0 { didSet { touched.insert(.counts) } }
    var nextRestingAt: EmulatedInstant? { didSet { touched.insert(.counts) } }
    /// `fail-finish`: the next finish fails to produce an HKWorkout.
    var failNextFinish = false { didSet { touched.insert(.counts) } }
    /// A `generate-workouts` stream in progress.
    var plan: WorkoutPlan? { didSet { touched.insert(.jobs) } }
    /// A `write-samples` bulk write in progress.
    var bulk: BulkWrite? { didSet { touched.insert(.jobs) } }
    /// An `import-health` in progress, and the file it reads (not persisted: reopened after a restart).
    var healthImport: HealthImportJob? { didSet { touched.insert(.jobs) } }
    var importReader: HealthImportReader?
    /// Opens Apple Health exports for `import-health`; the driver sets it (nil: the command is refused).
    public var exports: HealthExportOpener?
    /// The watch app's WCSession (R: X1).
    public internal(set) var wc: WCSessionCore
    /// When reachability was last worked out: a scheduled partition starting or ending after it
    /// changes it, so it is a deadline.
    var reachabilityCheckedAt = EmulatedInstant.zero
    public internal(set) var counters = WatchCounters()
    /// True when `restore` found earlier state (the node resumed rather than started fresh).
    public internal(set) var restored = false
    /// The watch's own clock: what the app's `Date()` reads and what the watch stamps (R: F5).
    public internal(set) var time: DeviceTime { didSet { touched.insert(.clock) } }
    // The watch app the driver hosts (R: A8, A10): `reference` (the seeds' app) unless the
    // topology names another.
    /// The hosted watch app's name.
    public let hostedApp: String
    /// Calls for the hosted app, in order; taken by the driver (`takeAppCalls`).
    var appCalls: [AppCall] = []
    /// Replies to user actions, by action id.
    var replies: [Int: (ok: Bool, text: String)] = [:]
    var nextToken = 0
    /// The app's clock timers: its id → when.
    var appTimers: [Int: EmulatedInstant] = [:]
    /// Reply handlers handed to the app for received messages: token → message id.
    var wcReplyTokens: [Int: (id: String, isData: Bool)] = [:]
    /// What the app stored with `AppDefaults` (kept across launches, restarts and kill -9).
    var appDefaults = JSONObject() { didSet { touched.insert(.appDefaults) } }
    /// The hosted app's process: on screen, running in the background, suspended, or not running.
    public internal(set) var appState = WatchAppState.notRunning
    /// The hosted app's process runs (possibly suspended).
    public var appRunning: Bool { appState != .notRunning }
    /// Calls held while the app is suspended: they reach it when it runs again.
    var heldCalls: [AppCall] = []
    /// Background refreshes the app scheduled: its id → the preferred date.
    var refreshes: [Int: EmulatedInstant] = [:]
    /// When refresh tasks ran in the last hour (the budget).
    var refreshRuns: [EmulatedInstant] = []
    /// Background tasks handed to the app and not completed yet: token → what and until when.
    var openTasks: [Int: (kind: BackgroundTask.Kind, deadline: EmulatedInstant)] = [:]
    /// The hosted app's workout session and its live builder (not kept across node restarts yet).
    public internal(set) var workout: HostedWorkout? { didSet { touched.insert(.session) } }
    /// Workout sessions the hosted app started so far.
    var hostedSessions: Int64 = 0 { didSet { touched.insert(.counts) } }
    /// The hosted app's own cost counters, and the rules it broke.
    public internal(set) var appCounters: [String: Int] = [:]
    public internal(set) var appMisbehaviours = 0

    /// The persistent values whose properties were set since `changedValues()` last ran, marked
    /// in their `didSet`; `store`, `sync` and `wc` are always offered (as on the phone).
    var touched = WatchValues.all

    /// Creates the watch for `topology`; `boot` must be unique per process start without restored state.
    /// `exports` opens Apple Health exports for `import-health` (without it the command is refused).
    /// `app` names the watch app the driver hosts (its calls queue up until a driver delivers them).
    public init(topology: Topology, boot: String, exports: HealthExportOpener? = nil, app: String = "reference") {
        self.topology = topology
        hostedApp = app
        self.exports = exports
        seed = topology.seed(for: .watch)
        sync = SyncEngine(node: .watch, boot: boot, seed: seed, channels: topology.channels,
                          reliability: topology.reliability, limits: topology.wire)
        exporter = CloudKitExporter(interval: topology.channel(.cloudkit).exportInterval)
        uuids = UUIDGenerator(seed: seed, label: "watch.uuids")
        heartRate = HeartRateGenerator(restingHeartRate: topology.watch.restingHeartRate)
        // The app activates its own session.
        wc = WCSessionCore(node: .watch, config: topology.watchConnectivity, seed: seed, activated: false)
        time = DeviceTime(clock: topology.watch.clock.clock(seed: seed, node: .watch, since: .zero), now: .zero)
    }

    /// What the watch's clock reads at true instant `t`: the date it stamps on what it makes (R: F5).
    func stamp(_ t: EmulatedInstant) -> EmulatedInstant { time.clock.reading(at: t) }

    func event(_ name: EventName, _ now: EmulatedInstant, level: Event.Level = .info, _ fields: JSONObject = [:]) -> NodeAction {
        .emit(Event(at: now, node: .watch, name, level: level, fields: fields))
    }

    public var nextDeadline: EmulatedInstant? {
        // Work that needs room in an outbox waits for an acknowledgement, not a busy loop.
        let healthRoom = sync.hasRoom(.healthkit), cloudRoom = sync.hasRoom(.cloudkit)
        // Combined without an array: the loop reads this twice a turn.
        return sync.nextDeadline
            .earliest(cloudRoom ? exporter.nextExportAt : nil)
            .earliest(nextRestingAt)
            .earliest(healthRoom && cloudRoom ? planDeadline : nil)
            .earliest(healthRoom && bulk != nil ? EmulatedInstant.zero : nil)
            .earliest(healthImport.flatMap { $0.phase == .checking || healthRoom ? EmulatedInstant.zero : nil })
            .earliest(wc.nextDeadline)
            .earliest(sync.nextPartitionChange(.watchconnectivity, after: reachabilityCheckedAt))
            .earliest(hostedDeadline)
            .earliest(time.nextDeadline)
    }

    public mutating func start(now: EmulatedInstant) -> [NodeAction] {
        if nextRestingAt == nil, let interval = topology.watch.restingInterval { nextRestingAt = now + interval }
        if topology.watch.appStartsNotRunning, !(workout?.isRecoverable ?? false) { appState = .notRunning } else { launchApp(now: now) }
        return [event(.nodeStarted, now, [
            "seed": .int(Int64(seed)), "topology": .string(topology.name), "boot": .string(sync.boot),
            "timeScale": .double(topology.timeScale), "restored": .bool(restored),
            "session": .string(sessionStateName),
        ])] + time.startEvent(node: node, now: now) + refreshReachability(now: now)
    }

    public mutating func peerConnected(now: EmulatedInstant) -> [NodeAction] {
        sync.peerConnected(now: now) + wc.announceAgain(sync: sync, now: now)
    }

    public mutating func advance(to now: EmulatedInstant) -> [NodeAction] {
        var actions = sync.advance(to: now)
        actions += continueBulkWrite(now: now)
        actions += continueHealthImport(now: now)
        actions += advanceWatchConnectivity(now: now)
        if exporter.isDue(at: now) { actions += exportRecords(now: now) }
        actions += advanceHostedApp(now: now)
        // watchOS tells its apps of no significant time change: their Date() simply reads the new time.
        actions += time.advance(node: node, to: now).actions
        if let due = nextRestingAt, due <= now, let interval = topology.watch.restingInterval {
            // After a restart, missed resting samples are skipped rather than produced in a burst.
            nextRestingAt = due + interval > now ? due + interval : now + interval
            if !(workout?.isActive ?? false), sync.hasRoom(.healthkit) { actions += writeRestingSample(now: now) }
        }
        return actions
    }

    public func stop(now: EmulatedInstant) -> [NodeAction] {
        var fields = counters.json(sync: sync)
        // The watch app: the rules it broke, and its own counters under its names.
        fields.append("misbehaviours", .int(Int64(appMisbehaviours)))
        for key in appCounters.keys.sorted() { fields.append("app.\(key)", .int(Int64(appCounters[key]!))) }
        wc.counters.append(to: &fields)
        return [event(.nodeStopped, now, fields)]
    }

    // MARK: Sync

    /// Samples per healthkit message the watch fills (bulk writes, imports, `sendObjects`): half the
    /// wire's limit, leaving room in a batch's first message for its workouts and deletions.
    var messageBatch: Int { max(1, topology.wire.maxItemsPerMessage / 2) }

    /// Sends HealthKit objects to the phone, split to fit the message limit.
    /// `savedAt`: the anchor under which the store just saved exactly `batch.samples` (and nothing
    /// else): a message that carries just them is marked so the outbox may keep a reference to the
    /// stored batch instead of a second copy of its bytes (`OutboxRecord.samplesAnchor`).
    mutating func sendObjects(_ batch: HealthObjectsBatch, now: EmulatedInstant, savedAt: Int64? = nil) -> [NodeAction] {
        var actions: [NodeAction] = []
        let chunk = messageBatch
        let oneStoredBatch = batch.workouts.isEmpty && batch.deleted.isEmpty && batch.samples.count <= chunk
        var samples = batch.samples[...]
        var first = true
        while first || !samples.isEmpty {
            let part = HealthObjectsBatch(workouts: first ? batch.workouts : [], samples: Array(samples.prefix(chunk)),
                                          deleted: first ? batch.deleted : [])
            samples = samples.dropFirst(chunk)
            first = false
            if part.isEmpty { break }
            actions += sync.send(.healthkit, kind: .objects, body: [:], summary: part.summary, now: now,
                                 samplesAnchor: oneStoredBatch ? savedAt : nil, objects: part)
        }
        return actions
    }

    /// Queues record changes for CloudKit export (now, or with the next batch).
    mutating func exportLater(saved: [ExerciseRecord] = [], deleted: [UUID] = [], now: EmulatedInstant) -> [NodeAction] {
        let immediate = exporter.add(saved: saved, deleted: deleted, now: now)
        return immediate ? exportRecords(now: now) : []
    }

    mutating func exportRecords(now: EmulatedInstant) -> [NodeAction] {
        guard sync.hasRoom(.cloudkit) else { return [sync.outboxFullEvent(.cloudkit, now: now)] }
        let batch = exporter.take()
        return [event(.ckExport, now, batch.summary)]
            + sync.send(.cloudkit, kind: .records, body: batch.body, summary: batch.summary, now: now)
    }

    mutating func writeRestingSample(now: EmulatedInstant) -> [NodeAction] {
        restingCount += 1
        let value = heartRate.restingValue(index: restingCount, seed: seed)
        let sample = HealthSample(uuid: uuids.next(at: now), type: .heartRate, start: stamp(now), end: stamp(now), value: value, source: .watchApp)
        let (saved, ops) = store.save(workouts: [], samples: [sample])
        counters.samplesWritten += saved.samples.count
        return ops.map(NodeAction.persist) + sendObjects(HealthObjectsBatch(samples: saved.samples), now: now)
    }
}

/// What the watch has done, for `status` and its stop event.
public struct WatchCounters: Hashable, Sendable {
    public var workoutsFinished = 0
    public var failedFinishes = 0
    public var samplesWritten = 0
    public var recordsSaved = 0
    /// Objects `import-health` saved (samples and workouts).
    public var samplesImported = 0

    func json(sync: SyncEngine) -> JSONObject {
        var o: JSONObject = [
            "workouts": .int(Int64(workoutsFinished)), "failedFinishes": .int(Int64(failedFinishes)),
            "samples": .int(Int64(samplesWritten)), "records": .int(Int64(recordsSaved)),
            "imported": .int(Int64(samplesImported)),
        ]
        for channel in Channel.allCases {
            let c = sync.counters(channel)
            o.append("\(channel).sent", .int(Int64(c.sentMessages)))
            o.append("\(channel).bytes", .int(Int64(c.sentBytes)))
            o.append("\(channel).retransmits", .int(Int64(c.retransmits)))
            o.append("\(channel).pending", .int(Int64(sync.pending(channel))))
        }
        return o
    }
}
