import Foundation
import PairSimApps
import PairSimCore
import PairSimKit
import Testing
import TestSupport
@testable import PairSimRuntime

@Suite("SQLite node storage")
struct SQLiteStorageTests {
    static let topology = Topology(name: "t", nodes: [
        .watch: NodeEndpoints(publish: "ipc://w", control: "ipc://wc", data: "w"),
        .phone: NodeEndpoints(publish: "ipc://p", control: "ipc://pc", data: "p"),
    ])

    static func temporaryPath() -> String {
        NSTemporaryDirectory() + "pairsim-storage-\(UInt32.random(in: 0...UInt32.max)).sqlite"
    }

    /// Removes a database with its WAL and shared-memory files (still there while a connection is open).
    static func removeDatabase(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// Runs commands on a watch, committing every turn like the node loop does.
    static func drive<Node: NodeModel>(_ watch: inout Node, _ storage: SQLiteStorage, _ commands: [(Int64, String)]) throws {
        var persisted = NodeValues()
        for (seconds, text) in commands {
            let result = watch.handle(commandText: text, now: .zero + .seconds(seconds))
            expect(result.ok, "\(text): \(result.reply)")
            let operations = result.actions.compactMap { if case .persist(let op) = $0 { op } else { nil } }
            let changed = NodeValues(watch.persistentValues().filter { persisted[$0.key] != $0 })
            try storage.commit(operations, values: changed)
            persisted.merge(changed)
        }
    }

    @Test("a restored watch has the same stores, outbox and state")  // R: S5
    func restoreWatch() throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let storage = try SQLiteStorage(path: path)
        // The reference watch app's workouts, the second paused when the watch stops (R: A10).
        let app = try AppCatalog.watchApp(for: Self.topology)
        var watch = WatchNode(topology: Self.topology, boot: "b1", app: app)
        _ = watch.start(now: .zero)
        try Self.drive(&watch, storage, [(0, "start-workout strength"), (1_200, "finish-workout"),
                                          (1_300, "write-sample hrv 51"), (1_400, "start-workout running"), (1_450, "pause")])
        var restored = WatchNode(topology: Self.topology, boot: "b2", app: app)
        try restored.restore(try SQLiteStorage(path: path).load(), now: .zero + .seconds(1_500))
        expectEqual(restored.store.workouts, watch.store.workouts)
        expectEqual(restored.store.samples(.heartRate), watch.store.samples(.heartRate))
        expectEqual(restored.store.sampleCount, watch.store.sampleCount)
        expectEqual(restored.records.records, watch.records.records)
        expectEqual(restored.persistentValues(), watch.persistentValues())
        expect(restored.platform.workout?.state == .paused && restored.platform.workout?.activity.name == "running")
        expectEqual(restored.sync.pending(.healthkit), watch.sync.pending(.healthkit))
        // The restored watch continues the same UUID sequence as one that never stopped.
        var a = watch, b = restored
        let next = [(1_500 as Int64, "write-sample rhr 50")]
        let reply = a.handle(commandText: next[0].1, now: .zero + .seconds(1_500)).reply
        expectEqual(b.handle(commandText: next[0].1, now: .zero + .seconds(1_500)).reply, reply)
    }

    @Test("an unacknowledged sample batch is stored once: the outbox keeps its anchor, and a restart rebuilds the same frames")  // R: S5, E4
    func outboxRefersToSampleBatches() throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let storage = try SQLiteStorage(path: path)
        var watch = WatchModel(topology: Self.topology, boot: "b1")
        _ = watch.start(now: .zero)
        try Self.drive(&watch, storage, [(600, "write-samples hr 25000"), (601, "write-sample hrv 51")])
        var persisted = watch.persistentValues()
        while case .watchBulk(let job)? = watch.persistentValues()[.watchBulk], job != nil {
            let actions = watch.advance(to: .zero + .seconds(602))
            let changed = NodeValues(watch.persistentValues().filter { persisted[$0.key] != $0 })
            try storage.commit(actions.compactMap { if case .persist(let op) = $0 { op } else { nil } }, values: changed)
            persisted.merge(changed)
        }
        let outbox = SchemaTests.outbox(watch.sync, .healthkit)
        expectEqual(outbox.filter { $0.samplesAnchor != nil }.count, 3, "three bulk batches refer to their stored samples")
        expect(outbox.contains { $0.samplesAnchor == nil }, "a message not made of one saved batch keeps its bytes")
        let rows = try storage.queue.read { db in
            try Row.fetchAll(db, sql: "SELECT samples_anchor, length(payload) AS bytes FROM outbox WHERE channel = 'healthkit' ORDER BY seq")
        }
        for row in rows where (row["samples_anchor"] as Int64?) != nil {
            expect((row["bytes"] as Int) < 300, "the stored head has no samples: \(row)")
        }
        // A sample of a pending batch deleted afterwards: the frame already sent still carries it.
        var store = watch.store
        let victim = store.samples(.heartRate)[3]
        let (_, deletion) = store.delete([DeletedObject(uuid: victim.uuid, type: .sample(.heartRate))], now: .zero + .seconds(602))
        try storage.commit(deletion, values: [])
        var restored = WatchModel(topology: Self.topology, boot: "b2")
        try restored.restore(try SQLiteStorage(path: path).load(), now: .zero + .seconds(603))
        expectEqual(SchemaTests.outbox(restored.sync, .healthkit), outbox, "byte-identical frames, same anchors")
        expectEqual(restored.store.sampleCount, watch.store.sampleCount - 1)
    }

    @Test("sync state written turn by turn as only what changed reads back as written, whatever changes")  // R: K1
    func syncStateChangesOnlyWhatDiffers() throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let storage = try SQLiteStorage(path: path)
        var random = SplitMix64(seed: 5)
        func window(_ stream: String) -> InboundWindow {
            let cumulative = UInt64(random.next() % 50)
            let above = Set((0..<Int(random.next() % 3)).map { _ in cumulative + 2 + random.next() % 5 })
            return InboundWindow(stream: stream, cumulative: cumulative, above: above)
        }
        typealias State = SyncEngine.Snapshot.ChannelState
        var channels: [Channel: State] = [:]
        var names: [Channel] = [.healthkit, .cloudkit]
        for name in names { channels[name] = State(channel: name, stream: "s1", nextSeq: 1, inbound: [window("p1")]) }
        for step in 0..<300 {
            let name = names[Int(random.next() % UInt64(names.count))]
            var entry = channels[name]!
            switch random.next() % 6 {
            case 0: entry.nextSeq += 1
            case 1: entry.stream = "s\(step)"
            case 2 where !entry.inbound.isEmpty: entry.inbound[Int(random.next() % UInt64(entry.inbound.count))].cumulative += 1
            case 3: entry.inbound.append(window("p\(step)"))
            case 4 where !entry.inbound.isEmpty: entry.inbound.removeFirst()
            default:
                if names.count < 3 { names.append(.watchconnectivity); channels[.watchconnectivity] = State(channel: .watchconnectivity, stream: "w", nextSeq: 1, inbound: []) }
                entry.inbound = entry.inbound.indices.map { window("q\(step)-\($0)") } // one window per sender stream, as the engine keeps them
            }
            channels[name] = entry
            let value = SyncEngine.Snapshot(channels: names.map { channels[$0]! })
            try storage.commit([], values: [.sync(value)])
            let read = try storage.queue.read { db in try StateTables.readSync(db) }
            expectEqual(read, value, "step \(step)")
        }
    }

    @Test("an outbox message whose sample batch is missing or not the one sent is refused at start, naming both")  // R: K1
    func missingReferencedBatch() throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let storage = try SQLiteStorage(path: path)
        var watch = WatchModel(topology: Self.topology, boot: "b1")
        _ = watch.start(now: .zero)
        try Self.drive(&watch, storage, [(600, "write-samples hr 100")])
        // A second row under the same anchor: the rebuilt message would not be the one sent.
        try storage.queue.write { db in try db.execute(sql: "INSERT INTO sample_batches (anchor, data) SELECT anchor, data FROM sample_batches") }
        let doubled = #expect(throws: RuntimeError.self) { try SQLiteStorage(path: path).load() }
        expectEqual(doubled?.message.contains("carried 100 samples but the sample batch with anchor"), true, "\(doubled?.message ?? "")")
        try storage.queue.write { db in try db.execute(sql: "DELETE FROM sample_batches") }
        let error = #expect(throws: RuntimeError.self) { try SQLiteStorage(path: path).load() }
        expectEqual(error?.message.contains("refers to the sample batch with anchor"), true, "\(error?.message ?? "")")
    }

    @Test("a WatchConnectivity session survives a restart: queue, waiting deliveries, contexts")  // R: X1
    func restoreWatchConnectivity() throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let storage = try SQLiteStorage(path: path)
        var watch = WatchModel(topology: Self.topology, boot: "b1")
        _ = watch.start(now: .zero)
        // The watch app activates its session (no app runs here: what arrives for it waits).
        _ = watch.handle([.wcActivate], answering: .terminated, now: .zero)
        try Self.drive(&watch, storage, [(1, "out-of-range"), (2, #"wc-transfer '{"n":1,"list":[1,2.5,"x",false,{"deep":true}]}'"#),
                                          (3, "wc-file route.gpx --size 5000 --metadata '{\"kind\":\"gpx\"}'"),
                                          (4, #"wc-context '{"tab":"train"}'"#), (5, "in-range"), (5, "foreground")])
        // A context and a user info from the phone wait for the watch app (it left the screen).
        _ = watch.handle(commandText: "background", now: .zero + .seconds(6))
        for (seq, kind, body) in [(UInt64(1), MessageKind.context, ["payload": JSON.object(["n": 7])] as JSONObject),
                                  (2, .userinfo, ["id": "p-1", "payload": .object(["from": "phone"])])] {
            let frame = WireCodec.encode(Envelope(from: .phone, stream: "p.wc", seq: seq, sentAt: .zero, channel: .watchconnectivity, kind: kind, body: body))
            let actions = watch.receive(frames: [Array(frame.topic.utf8), frame.payload], now: .zero + .seconds(7))
            try storage.commit(actions.compactMap { if case .persist(let op) = $0 { op } else { nil } }, values: watch.persistentValues())
        }
        expect(watch.wc.outgoing.count == 2 && watch.wc.inbox.count == 2 && watch.wc.contextSent != nil)
        var restored = WatchModel(topology: Self.topology, boot: "b2")
        try restored.restore(try SQLiteStorage(path: path).load(), now: .zero + .seconds(8))
        expectEqual(restored.persistentValues()[.watchConnectivity], watch.persistentValues()[.watchConnectivity])
        expectEqual(restored.wc.outgoing, watch.wc.outgoing.map { var t = $0; t.appID = nil; return t })
        expectEqual(restored.wc.inbox, watch.wc.inbox)
        expectEqual(restored.wc.receivedContext?["n"], .int(7))
    }

    @Test("deletions and tombstones survive a restart")  // R: S5, H2
    func deletions() throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let storage = try SQLiteStorage(path: path)
        var store = HealthStore()
        let samples = (0..<3).map { i in
            HealthSample(uuid: UUID(), type: .stepCount, start: .zero, end: .zero, value: Double(i), source: .watchApp)
        }
        let (_, saveOps) = store.save(workouts: [], samples: samples)
        let (_, deleteOps) = store.delete([DeletedObject(uuid: samples[1].uuid, type: .sample(.stepCount))], now: .zero + .seconds(9))
        try storage.commit(saveOps + deleteOps, values: [])
        let state = try storage.load()
        expectEqual(state.samples.map(\.0.uuid), [samples[0].uuid, samples[2].uuid])
        expectEqual(state.tombstones.map(\.object.uuid), [samples[1].uuid])
        expectEqual(state.tombstones.first?.deletedAt, .zero + .seconds(9))
        try storage.commit([.purgeTombstones(throughAnchor: 10)], values: [])
        let purged = try storage.load()
        expect(purged.tombstones.isEmpty)
        expectEqual(purged.deletedIDs, [samples[1].uuid])
    }

    @Test("packed samples round-trip exactly")
    func packedSamples() throws {
        var samples: [HealthSample] = []
        for i in 0..<500 {
            let start = EmulatedInstant(milliseconds: Int64(i) * 5_000)
            let type: SampleType = i % 2 == 0 ? .heartRate : .sleepAnalysis
            let source: ObjectSource = i % 3 == 0 ? .watchApp : .other("strava")
            samples.append(HealthSample(uuid: UUID(), type: type, start: start, end: start + .milliseconds(1),
                                        value: Double(i) / 7, source: source))
        }
        try expectEqual(SampleCodec.unpack(SampleCodec.pack(samples)), samples)
        #expect(throws: DecodeError.self) { try SampleCodec.unpack(Array(SampleCodec.pack(samples).dropLast(3))) }
    }
}
