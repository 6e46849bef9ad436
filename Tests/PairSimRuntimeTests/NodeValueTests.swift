import Foundation
import PairSimCore
import PairSimApps
import PairSimKit
import Testing
import TestSupport
@testable import PairSimRuntime

/// The models' small state crosses to storage as typed values (R: K7): each `NodeValue` carries
/// exactly what is kept, so the journal's spelling and the tables both give back an equal value.
@Suite("Typed small state")
struct NodeValueTests {
    /// Every value `values` holds reads back equal from its journal spelling, and from its tables
    /// after a commit of all of them (or reads back as nothing when it is empty).
    static func expectRoundTrips(_ values: NodeValues, _ storage: SQLiteStorage, _ context: String) throws {
        for value in values {
            try expectEqual(NodeValue(value.key, json: value.json), value, "\(context): \(value.key.name) from its journal spelling")
        }
        try storage.commit([], values: values)
        let read = try storage.queue.read { db in try StateTables.read(db) }
        for value in values {
            expect(read[value.key] == value || (read[value.key] == nil && value.isEmpty), "\(context): \(value.key.name) from its tables")
        }
        for value in read { expect(values[value.key] != nil, "\(context): \(value.key.name) read back but never written") }
    }

    @Test("random days of the watch and its reference app: every value it keeps reads back equal from the journal and from its tables")  // R: K7, A10
    func watchValuesRoundTrip() throws {
        let path = SQLiteStorageTests.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let storage = try SQLiteStorage(path: path)
        var random = SplitMix64(seed: 31)
        let commands = [
            "start-workout running", "start-workout strength", "pause", "resume", "finish-workout", "fail-finish",
            "crash", "recover", "recover --no-builder", "generate-workouts 2 --every 10m --duration 5m",
            "write-sample hr 80", "write-samples hr 30000", "foreground", "background", "out-of-range", "in-range", "offline", "online",
            "set-time +5m", "set-time-zone Europe/Berlin", #"wc-transfer '{"n":1}'"#, #"wc-context '{"tab":"x"}'"#, "wc-file a.gpx --size 10",
        ]
        // Record changes wait for the next export (`cloudkit.export`).
        var topology = SQLiteStorageTests.topology
        topology.channels[.cloudkit, default: ChannelConfig()].exportInterval = .minutes(20)
        // The watch with the reference watch app on it, whose actions drive its workouts (R: A10).
        var watch = WatchNode(topology: topology, boot: "b1", app: try AppCatalog.watchApp(for: topology))
        var now = EmulatedInstant.zero
        _ = watch.start(now: now)
        var seen = Set<NodeValue.Key>()
        // First the session's rarer states: crashed while paused, recovered without its builder.
        let script = ["start-workout running", "pause", "crash", "recover --no-builder", "finish-workout"]
        for step in 0..<(script.count + 150) {
            if step < script.count {
                expect(watch.handle(commandText: script[step], now: now).ok, "\(script[step])")
            } else if random.next() % 3 == 0 {
                now = now + .seconds(Int64(random.next() % 900))
                while let next = watch.nextDeadline, next <= now { _ = watch.advance(to: next) }
                _ = watch.advance(to: now)
            } else {
                _ = watch.handle(commandText: commands[Int(random.next() % UInt64(commands.count))], now: now)
            }
            let values = watch.persistentValues()
            try Self.expectRoundTrips(values, storage, "step \(step)")
            seen.formUnion(values.filter { !$0.isEmpty }.map(\.key))
        }
        // The days reached every value the reference watch keeps, each with something in it.
        let kept: Set<NodeValue.Key> = [.storeAnchor, .sync, .watchConnectivity, .cloudKitExport, .watchHostedWorkout, .watchHostedSessions,
                                        .watchAppDefaults, .watchRestingCount, .watchNextRestingAt, .watchFailNextFinish, .watchClock,
                                        .watchPartitions, .watchUUIDs, .watchPlan, .watchBulk]
        expect(kept.subtracting(seen).isEmpty, "never kept anything: \(kept.subtracting(seen).map(\.name).sorted())")
    }

    @Test("a developer's watch app's session, builder and defaults read back equal, and so does a phone's every value")  // R: K7, A9
    func hostedWatchAndPhoneValuesRoundTrip() throws {
        let watchPath = SQLiteStorageTests.temporaryPath(), phonePath = SQLiteStorageTests.temporaryPath()
        defer { for path in [watchPath, phonePath] { try? FileManager.default.removeItem(atPath: path) } }
        var watch = WatchModel(topology: SQLiteStorageTests.topology, boot: "b1", app: "some-watch-app")
        _ = watch.start(now: .zero)
        let storage = try SQLiteStorage(path: watchPath)
        _ = watch.handle([.setDefault(key: "unit", value: .string("km")), .workout(session: 1, .startActivity(activity: "running", at: .zero)),
                          .workout(session: 1, .beginCollection(id: 2, at: .zero, types: [.heartRate, .activeEnergyBurned]))],
                         answering: .terminated, now: .zero)
        try Self.expectRoundTrips(watch.persistentValues(), storage, "collecting")
        _ = watch.advance(to: .zero + .minutes(3))
        _ = watch.handle([.workout(session: 1, .pause)], answering: .terminated, now: .zero + .minutes(3))
        let paused = watch.persistentValues()
        guard case .watchHostedWorkout(let workout?)? = paused[.watchHostedWorkout] else {
            Issue.record("no hosted workout among \(paused.keys.map(\.name))")
            return
        }
        // A reading at 0 and one every 5 s to the pause at 3m, that one included.
        expect(workout.state == .paused && workout.readings == 37 && workout.collecting == [.heartRate, .activeEnergyBurned])
        try Self.expectRoundTrips(paused, storage, "paused")
        // `crash` and `recover --no-builder` (R: A10): the crash waiting for recovery, then the lost builder.
        expect(watch.handle(command: ParsedCommand(verb: "crash"), now: .zero + .minutes(4)).ok)
        guard case .watchHostedWorkout(let crashed?)? = watch.persistentValues()[.watchHostedWorkout] else { return }
        expect(crashed.crashed && !crashed.builderLost)
        try Self.expectRoundTrips(watch.persistentValues(), storage, "crashed")
        expect(watch.handle(command: ParsedCommand(verb: "recover", options: ["no-builder": "true"]), now: .zero + .minutes(5)).ok)
        guard case .watchHostedWorkout(let recovered?)? = watch.persistentValues()[.watchHostedWorkout] else { return }
        expect(!recovered.crashed && recovered.builderLost && recovered.wasRecovered)
        try Self.expectRoundTrips(watch.persistentValues(), storage, "recovered without its builder")
        // A `generate-workouts` stream whose workout started in the app.
        var streaming = WatchModel(topology: SQLiteStorageTests.topology, boot: "b1", app: "some-watch-app")
        _ = streaming.start(now: .zero)
        expect(streaming.handle(command: try ParsedCommand(parsing: "generate-workouts 2 --every 10m --duration 5m"), now: .zero).ok)
        _ = streaming.advance(to: .zero + .minutes(5))
        expectEqual(streaming.takePlannedActions(now: .zero + .minutes(5)).map(\.verb), ["start-workout"])
        guard case .watchPlan(let plan?)? = streaming.persistentValues()[.watchPlan] else { return }
        expect(plan.started)
        try Self.expectRoundTrips(streaming.persistentValues(), storage, "a stream's workout started")

        var phone = try SchemaTests.PersistedPhone(path: phonePath)
        let phoneStorage = try SQLiteStorage(path: phonePath + "-values")
        // Removed while its connection is still open: its WAL and shared memory go too.
        defer { SQLiteStorageTests.removeDatabase(phonePath + "-values") }
        for command in ["launch", "authorize heartRate deny", "miss-completion heartRate 1", "fail-next-save", "background", "lock",
                        "set-time -1h30m", #"wc-transfer '{"n":1}'"#, "unlock", "force-quit"] {
            _ = phone.node.handle(commandText: command, now: phone.now)
            phone.now = phone.now + .minutes(7)
            _ = phone.node.advance(to: phone.now)
            try Self.expectRoundTrips(phone.node.persistentValues(), phoneStorage, "phone after \(command)")
        }
        guard case .phoneApp(let app)? = phone.node.persistentValues()[.phoneApp] else {
            Issue.record("the phone keeps no app state")
            return
        }
        expect(app.state == .forceQuit && app.denied == [.sample(.heartRate)])
    }

    @Test("a value that is not the device's, or spelled wrong in the journal, is refused naming the value and the member")  // R: K7
    func refusesWhatIsNotKept() throws {
        var state = PersistedState()
        state.values = [.storeAnchor(3), .phoneSaveFailures(2)]
        var watch = WatchModel(topology: SQLiteStorageTests.topology, boot: "b1")
        let wrongDevice = #expect(throws: DecodeError.self) { try watch.restore(state, now: .zero) }
        expectEqual(wrongDevice?.path, "phone.saveFailures", "\(String(describing: wrongDevice))")

        let partition = #expect(throws: DecodeError.self) { try NodeValue(.watchPartitions, json: .array([.string("on-the-moon")])) }
        expect(partition?.path == "watch.partitions" && partition?.reason.contains("on-the-moon") == true)
        let anchor = #expect(throws: DecodeError.self) { try NodeValue(.storeAnchor, json: .string("7")) }
        expectEqual(anchor?.path, "store.anchor")
        let app = #expect(throws: DecodeError.self) {
            try NodeValue(.phoneApp, json: .object(["state": "dancing", "locked": false, "frontmostAtLock": false, "denied": []]))
        }
        expect(app?.path == "phone.app.state" && app?.reason.contains("dancing") == true)
        // A member missing is an error, not a default.
        let wc = #expect(throws: DecodeError.self) { try NodeValue(.watchConnectivity, json: .object(["foreground": true])) }
        expectEqual(wc?.path.hasPrefix("wc."), true, "\(String(describing: wc))")
        let bulk = #expect(throws: DecodeError.self) {
            try NodeValue(.watchBulk, json: .object(["type": "heartRate", "total": 10, "first": 0, "span": 60_000, "random": 3]))
        }
        expectEqual(bulk?.path, "watch.bulk.done", "\(String(describing: bulk))")
        let job = #expect(throws: DecodeError.self) {
            try NodeValue(.watchImport, json: .object(["request": .object(["path": "e.xml", "types": ["heartRate", "unicorns"], "skipInvalid": false]),
                                                       "phase": "checking", "done": 0, "total": 0, "fingerprint": "f", "saved": 0, "ignored": 0,
                                                       "stops": 0, "stoppedAt": -1]))
        }
        expect(job?.path == "watch.import.request.types" && job?.reason.contains("unicorns") == true, "\(String(describing: job))")
    }

    @Test("whatever the commands and the app can write reads back: far-off plans and dates, and a message sent as data (schema v11)")  // R: K7, X1
    func extremesRoundTrip() throws {
        let path = SQLiteStorageTests.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let storage = try SQLiteStorage(path: path)
        // `generate-workouts 1 --every 20000000d --first 14000000d`: durations parse up to ~9e15 ms.
        var watch = WatchModel(topology: SQLiteStorageTests.topology, boot: "b1")
        _ = watch.start(now: .zero)
        expect(watch.handle(commandText: "generate-workouts 1 --every 20000000d --duration 1h --first 14000000d", now: .zero).ok)
        guard case .watchPlan(let plan?)? = watch.persistentValues()[.watchPlan] else {
            Issue.record("no plan kept")
            return
        }
        expectEqual(plan.every, .milliseconds(20_000_000 * 86_400_000))
        // An app's session dated far ahead and before the emulation's zero.
        let hosted = HostedWorkout.Snapshot(number: 1, activity: "running", state: .running, collecting: [.heartRate], collectionStart: EmulatedInstant(milliseconds: -5_000),
                                            collectionEnd: nil, active: .zero, activeSince: EmulatedInstant(milliseconds: 2_000_000_000_000_000),
                                            readings: 0, samples: 0, energy: 0, finished: false, startDate: EmulatedInstant(milliseconds: 2_000_000_000_000_000),
                                            random: 9, steady: 120, noise: 0)
        // A `sendMessageData` message waiting for the watch app.
        var session = WCSessionCore.Snapshot()
        session.inbox = [WCReceived(kind: .message, id: "m-1", payload: ["data": "AAEC"], file: nil, wantsReply: false, sentAt: .zero + .seconds(3),
                                    stream: "p.wc", seq: 1, isData: true)]
        try Self.expectRoundTrips([.watchPlan(plan), .watchHostedWorkout(hosted), .watchConnectivity(session)], storage, "extremes")
    }
}
