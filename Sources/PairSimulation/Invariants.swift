import Foundation
import PairSimConfig
import PairSimCore
import PairSimScenario

/// How a run ended, for the invariants: a simulation's, or real processes' read from their
/// databases and logs (`topology run --nemesis`, R: K9).
public struct RunEnd {
    public var watchStore: HealthStore
    public var watchRecords: RecordStore
    public var phoneStore: HealthStore
    public var phoneRecords: RecordStore
    /// What reached the phone but waits there (held while locked; records for the app to import).
    public var phoneWaiting: (held: HealthObjectsBatch, container: RecordsBatch)
    /// When the oldest message each node still waits to have acknowledged was made.
    public var oldestPending: [NodeName: EmulatedInstant?]
    /// The most messages each node held unacknowledged (nil: not measured — real processes).
    public var maxPending: [NodeName: Int]?
    public var kills: [NodeName: Int]
    public var down: Set<NodeName>
    public var events: [Event]
    public var scenarioLength: EmulatedDuration
    public var outboxLimit: Int
    /// Every instant is the topology's (simulation, stepped time): the stores can be compared
    /// with the fault-free run's object by object.
    public var exactTiming: Bool
    /// When the run played the real storage on a faulty disk (R: K8): the storage faults, and
    /// where what a node restarted from differed from what it committed.
    public var storage: (faults: [StorageFault], findings: [String])?

    public init(watchStore: HealthStore, watchRecords: RecordStore, phoneStore: HealthStore, phoneRecords: RecordStore,
                phoneWaiting: (held: HealthObjectsBatch, container: RecordsBatch), oldestPending: [NodeName: EmulatedInstant?],
                maxPending: [NodeName: Int]?, kills: [NodeName: Int], down: Set<NodeName>, events: [Event],
                scenarioLength: EmulatedDuration, outboxLimit: Int, exactTiming: Bool) {
        self.watchStore = watchStore
        self.watchRecords = watchRecords
        self.phoneStore = phoneStore
        self.phoneRecords = phoneRecords
        self.phoneWaiting = phoneWaiting
        self.oldestPending = oldestPending
        self.maxPending = maxPending
        self.kills = kills
        self.down = down
        self.events = events
        self.scenarioLength = scenarioLength
        self.outboxLimit = outboxLimit
        self.exactTiming = exactTiming
    }

    public init(_ sim: Simulator) {
        self.init(watchStore: sim.watchStore, watchRecords: sim.watch.records, phoneStore: sim.phoneStore, phoneRecords: sim.phoneRecords,
                  phoneWaiting: sim.phoneWaiting, oldestPending: [.watch: sim.oldestPending(.watch), .phone: sim.oldestPending(.phone)],
                  maxPending: sim.maxPending, kills: sim.kills, down: sim.down, events: sim.events, scenarioLength: sim.scenarioLength,
                  outboxLimit: sim.topology.reliability.outboxLimit, exactTiming: true)
        if sim.runsRealStorage { storage = (sim.storageFaults, sim.storageFindings) }
    }
}

/// What must hold in every run, faults or not (R: V3): checked on a run with the nemesis against
/// the fault-free run of the same scenario and seed. Each is a verdict labelled `invariant: …`.
public enum Invariants {
    /// What a node ended with: object and record ids.
    public struct Stores: Equatable, Sendable {
        public var workouts: Set<UUID> = []
        public var samples: Set<UUID> = []
        public var records: Set<UUID> = []
    }

    /// A node's objects (of `source`, made by `horizon`: later ones may still be on their way).
    static func stores(_ store: HealthStore, _ records: RecordStore, source: ObjectSource? = nil, horizon: EmulatedInstant = .distantFuture) -> Stores {
        var result = Stores()
        result.workouts = Set(store.workouts.filter { (source == nil || $0.source == source) && $0.end <= horizon }.map(\.uuid))
        for type in SampleType.allCases {
            result.samples.formUnion(store.samples(type).filter { (source == nil || $0.source == source) && $0.end <= horizon }.map(\.uuid))
        }
        result.records = Set(records.records.filter { (source == nil || $0.source == source) && $0.end <= horizon }.map(\.id))
        return result
    }

    /// The instant by which the nemesis is over (90% of the scenario's length): what was made
    /// before it must have reached the other side by the end, after the quiet `Nemesis.settle`.
    static func horizon(_ sim: RunEnd) -> EmulatedInstant { .zero + .milliseconds(sim.scenarioLength.milliseconds * 9 / 10) }

    /// One way between the nodes: where objects come from (made there by `source`) and go to.
    /// `toPhone`: the phone may hold what arrived, waiting for unlock or for the app to run.
    struct Direction {
        var name: String
        var fromStore: HealthStore, fromRecords: RecordStore, source: ObjectSource
        var toStore: HealthStore, toRecords: RecordStore
        var toPhone: Bool
    }

    static func directions(_ sim: RunEnd) -> [Direction] {
        [Direction(name: "watch → phone", fromStore: sim.watchStore, fromRecords: sim.watchRecords, source: .watchApp,
                   toStore: sim.phoneStore, toRecords: sim.phoneRecords, toPhone: true),
         Direction(name: "phone → watch", fromStore: sim.phoneStore, fromRecords: sim.phoneRecords, source: .phoneApp,
                   toStore: sim.watchStore, toRecords: sim.watchRecords, toPhone: false)]
    }

    /// What each side made before the horizon and the other side lacks (and did not delete).
    static func converged(_ sim: RunEnd) -> [String] {
        var missing: [String] = []
        for way in directions(sim) {
            let (direction, toStore, toRecords) = (way.name, way.toStore, way.toRecords)
            let own = stores(way.fromStore, way.fromRecords, source: way.source, horizon: horizon(sim))
            // The other side's samples are asked of its store by id: copying its thousands of ids
            // into a set, for both ways, was ~3 % of a week-long nemesis seed (perf, `topology swarm`).
            var there = Stores(workouts: Set(toStore.workouts.map(\.uuid)), records: Set(toRecords.records.map(\.id)))
            if way.toPhone {
                // Arrived at the phone, waiting for unlock or for the app to run: not lost.
                let (held, container) = sim.phoneWaiting
                there.workouts.formUnion(held.workouts.map(\.uuid))
                there.samples.formUnion(held.samples.map(\.uuid))
                there.records.formUnion(container.saved.map(\.id) + container.deleted)
            }
            let workouts = own.workouts.filter { !there.workouts.contains($0) && !toStore.isDeleted($0) }
            let samples = own.samples.filter { !toStore.holdsSample($0) && !there.samples.contains($0) && !toStore.isDeleted($0) }
            let records = own.records.filter { !there.records.contains($0) && !toRecords.isDeleted($0) }
            if !(workouts.isEmpty && samples.isEmpty && records.isEmpty) {
                missing.append("\(direction): \(workouts.count) workout(s), \(samples.count) sample(s), \(records.count) record(s) never arrived"
                               + (workouts.first.map { " (e.g. workout \($0.text))" } ?? samples.first.map { " (e.g. sample \($0.text))" } ?? ""))
            }
        }
        return missing
    }

    /// Objects saved again on a node after that node deleted them, at any moment of the run — a
    /// late copy that resurrects an object for a while is caught even if it is deleted again
    /// before the end (the end-of-run check sees only the stores as they end).
    static func resurrections(in events: [Event]) -> [String] {
        var deleted: [NodeName: Set<String>] = [:]
        var found: [String] = []
        for event in events {
            let id: String?
            switch event.name {
            case EventName.hkDeleted.rawValue, EventName.hkSaved.rawValue: id = event["uuid"]?.stringValue
            case EventName.recordDeleted.rawValue, EventName.recordSaved.rawValue: id = event["id"]?.stringValue
            default: continue
            }
            guard let id else { continue }
            if event.name == EventName.hkDeleted.rawValue || event.name == EventName.recordDeleted.rawValue {
                deleted[event.node, default: []].insert(id)
            } else if deleted[event.node]?.contains(id) == true {
                found.append("\(event.node): \(id) deleted, then saved again at \(event.at)")
            }
        }
        return found
    }

    /// WatchConnectivity messages and transfers reach the other app at most once each, in the
    /// order they were sent (R: X1). What was never delivered (a message that expired or found the
    /// watch app not running, a cancelled transfer) is left out of the comparison.
    static func deliveredInOrder(in events: [Event]) -> [String] {
        var sent: [NodeName: [String]] = [:], delivered: [NodeName: [String]] = [:]
        for event in events {
            guard let id = event["id"]?.stringValue, let kind = event["kind"]?.stringValue,
                  kind == "message" || kind == "userinfo" || kind == "file" else { continue }
            switch event.name {
            case EventName.syncSent.rawValue: sent[event.node, default: []].append(id)
            case EventName.wcDelivered.rawValue: delivered[event.node, default: []].append(id)
            default: break
            }
        }
        var problems: [String] = []
        for node in NodeName.allCases {
            let got = delivered[node] ?? []
            var seen = Set<String>()
            if let twice = got.first(where: { !seen.insert($0).inserted }) { problems.append("\(node): \(twice) delivered twice") }
            // A node killed inside a turn may have committed a send without logging it: the order
            // is compared over what both logs name.
            let logged = Set(sent[node.peer] ?? [])
            let sentOrder = (sent[node.peer] ?? []).filter { seen.contains($0) }
            var once = Set<String>()
            let deliveredOrder = got.filter { logged.contains($0) && once.insert($0).inserted }
            if sentOrder != deliveredOrder { problems.append("\(node.peer) → \(node): delivered out of the order sent") }
        }
        return problems
    }

    /// Objects one side deleted that the other side still holds at the end (a deletion waiting
    /// on a locked phone or in its CloudKit container for the app counts as arrived).
    static func unpropagated(_ sim: RunEnd) -> [String] {
        var left: [String] = []
        let (held, container) = sim.phoneWaiting
        let waiting = Set(held.deleted.map(\.uuid)).union(container.deleted)
        for way in directions(sim) {
            let deleted = { way.fromStore.isDeleted($0) }
            var objects = way.toStore.workouts.map(\.uuid).filter(deleted)
            for type in SampleType.allCases { objects += way.toStore.samples(type).map(\.uuid).filter(deleted) }
            var records = way.toRecords.records.map(\.id).filter { way.fromRecords.isDeleted($0) }
            if way.toPhone {
                objects.removeAll { waiting.contains($0) }
                records.removeAll { waiting.contains($0) }
            }
            if !(objects.isEmpty && records.isEmpty) {
                left.append("\(way.name): \(objects.count) object(s), \(records.count) record(s) deleted on one side are still on the other"
                            + ((objects.first ?? records.first).map { " (e.g. \($0.text))" } ?? ""))
            }
        }
        return left
    }

    /// The verdicts for `run` (with the nemesis), given `calm`, the fault-free run.
    public static func check(_ run: RunEnd, calm: RunEnd) -> [Verdict] { check(run, calm: { calm }) }

    /// The verdicts for `run` (with the nemesis), asking for `calm`, the fault-free run, only
    /// where a verdict depends on it: to excuse a failure the fault-free run has too, and to
    /// compare stores when no watch was killed. A run that holds every invariant by itself (all
    /// but about 1 in 64 nemesis seeds, which kill no watch) never plays its twin: measured on a
    /// week-long swarm, that twin was half of each seed's time.
    public static func check(_ run: RunEnd, calm twin: () -> RunEnd) -> [Verdict] {
        var played: RunEnd?
        func calm() -> RunEnd {
            if let played { return played }
            let end = twin()
            played = end
            return end
        }
        var verdicts: [Verdict] = []
        func verdict(_ label: String, _ problems: [String], _ fine: String) {
            verdicts.append(Verdict(passed: problems.isEmpty, label: "invariant: " + label,
                                    detail: problems.isEmpty ? fine : problems.prefix(3).joined(separator: "; ")))
        }
        let kills = run.kills[.watch]! + run.kills[.phone]!
        verdict("every node is up at the end", run.down.map { "\($0) is still down" }, "\(kills) kill(s), all restarted")
        if let storage = run.storage {
            verdict("the real storage restores what was committed", storage.findings,
                    "journal and SQLite on a faulty disk, \(storage.faults.count) storage fault(s)"
                        + (storage.faults.isEmpty ? "" : " (" + Set(storage.faults.map(\.kind)).sorted().joined(separator: ", ") + ")"))
        }

        // Deletes never resurrect; nothing is stored twice.
        var resurrected: [String] = []
        for (node, store) in [("watch", run.watchStore), ("phone", run.phoneStore)] {
            for workout in store.workouts where store.isDeleted(workout.uuid) { resurrected.append("\(node): workout \(workout.uuid.text)") }
            for type in SampleType.allCases {
                let samples = store.samples(type)
                for sample in samples where store.isDeleted(sample.uuid) { resurrected.append("\(node): \(type.rawValue) \(sample.uuid.text)") }
                // The stores' own UUID set: Swift's Set of UUIDs here was 1.5 % of a nemesis swarm (perf).
                var seen = UUIDSet()
                if seen.insertMany(samples.map { UUIDKey($0.uuid) }).contains(false) { resurrected.append("\(node): a \(type.rawValue) sample stored twice") }
            }
        }
        resurrected += resurrections(in: run.events)
        verdict("deleted objects never come back; nothing is stored twice", resurrected, "none")

        // What the run must reach unless the fault-free run does not reach it either: checked on
        // the run, and a failure is excused (passed, "not checked") when the twin fails it too.
        func unlessCalmFails(_ label: String, _ problems: [String], _ fine: String, _ calmProblems: (RunEnd) -> [String],
                             _ excuse: ([String]) -> String) {
            let excused = problems.isEmpty ? [] : calmProblems(calm())
            verdict(label, excused.isEmpty ? problems : [], excused.isEmpty ? fine : excuse(excused))
        }
        // Nothing lost: what each side made reaches the other, if the fault-free run got there too.
        unlessCalmFails("nothing lost: what each side made before the nemesis ended reached the other", converged(run), "converged", converged) {
            "the fault-free run does not converge by the end either (\($0.joined(separator: "; "))); not checked"
        }
        // Deletes propagate: what one side deleted is gone from the other by the end.
        unlessCalmFails("deletes propagate: what one side deleted is gone from the other", unpropagated(run), "yes", unpropagated) {
            "the fault-free run leaves deleted objects on the other side too (\($0.joined(separator: "; "))); not checked"
        }
        // Messages made before the horizon are acknowledged by the end (later ones may be in flight).
        let stale = { (sim: RunEnd) in NodeName.allCases.compactMap { node in sim.oldestPending[node]!.flatMap { $0 < horizon(sim) ? (node, $0) : nil } } }
        unlessCalmFails("every message made before the nemesis ended is acknowledged",
                        stale(run).map { "\($0.0) still waits for an ack of a message made at \($0.1)" }, "yes",
                        { stale($0).map { "\($0.0)" } }) { _ in "the fault-free run leaves old messages unacknowledged too; not checked" }
        let limit = run.outboxLimit
        if let maxPending = run.maxPending {
            verdict("outboxes stay bounded", NodeName.allCases.compactMap { node in
                maxPending[node]! > limit ? "\(node) held \(maxPending[node]!) messages (limit \(limit))" : nil
            }, "at most \(maxPending[.watch]!) (watch), \(maxPending[.phone]!) (phone)")
        }

        // The seed's notification rule: at most one "Workout completed" per workout (seed 004).
        var notified: [String: Int] = [:]
        for event in run.events where event.node == .phone && event.name == EventName.notificationPosted.rawValue
            && event["title"]?.stringValue == "Workout completed" {
            notified[event["uuid"]?.stringValue ?? "?", default: 0] += 1
        }
        verdict("at most one \"Workout completed\" per workout", notified.filter { $0.value > 1 }.map { "\($0.key) notified \($0.value)×" },
                "\(notified.count) workout(s) notified once each")

        // A force-quit app is never woken (it stays quit until the user launches it).
        var state = "", wokenQuit: [String] = []
        for event in run.events where event.node == .phone {
            if event.name == EventName.appState.rawValue, let to = event["to"]?.stringValue { state = to }
            if event.name == EventName.bgdeliveryWake.rawValue, state == "forceQuit" { wokenQuit.append("woken at \(event.at)") }
        }
        verdict("no wake for a force-quit app", wokenQuit, "none")
        verdict("WatchConnectivity deliveries: once each, in the order sent", deliveredInOrder(in: run.events), "yes")

        // Without watch kills the watch makes the same data, so both stores equal the fault-free run's.
        if run.kills[.watch]! == 0, run.exactTiming {
            var differ: [String] = []
            let calm = calm()
            for (node, a, b) in [("watch", stores(run.watchStore, run.watchRecords), stores(calm.watchStore, calm.watchRecords)),
                                 ("phone", stores(run.phoneStore, run.phoneRecords), stores(calm.phoneStore, calm.phoneRecords))] where a != b {
                differ.append("\(node): \(a.workouts.count)/\(a.samples.count)/\(a.records.count) workouts/samples/records vs "
                              + "\(b.workouts.count)/\(b.samples.count)/\(b.records.count) fault-free")
            }
            verdict("stores equal the fault-free run", differ, "equal")
        }
        return verdicts
    }
}

extension Simulator {
    /// A finished run's verdicts: the scenario's expectations, or — with the nemesis — PairSim's
    /// invariants against its fault-free twin (same scenario, app, seed and length), run here
    /// when a verdict needs it; then the scenario's own invariants, always.
    public func verdicts() -> [Verdict] {
        let own = ExpectationChecker.check(scenario.invariants, events: events)
        guard hasNemesis else { return ExpectationChecker.check(scenario.expectations, events: events) + own }
        return Invariants.check(RunEnd(self), calm: {
            var calm = Simulator(scenario: scenario, app: app, watchApp: watchApp, seed: seed, duration: scenarioLength, settled: true)
            calm.run()
            return RunEnd(calm)
        }) + own
    }
}
