import Foundation
import PairSimApps
@testable import PairSimCore
@testable import PairSimKit
import Testing
import TestSupport
@testable import PairSimRuntime

@Suite("Node database: typed tables, change-by-change writes, schema versions")
struct SchemaTests {
    /// A phone with the reference app whose every turn is committed like the node loop does.
    struct PersistedPhone {
        var node: PhoneNode
        let storage: SQLiteStorage
        var persisted = NodeValues()
        /// The simulator's storage, fed the same commits: it must read back the same (R: V1).
        var image = DurableImage()
        var now = EmulatedInstant.zero + .minutes(2)
        /// Bytes of the changed small values written by the last turn.
        var lastValueBytes = 0

        init(path: String, restoring: Bool = false) throws {
            storage = try SQLiteStorage(path: path)
            let topology = SQLiteStorageTests.topology
            node = PhoneNode(topology: topology, boot: "b", app: try AppCatalog.registration(named: "reference", topology: topology))
            if restoring {
                let state = try storage.load()
                try node.restore(state, now: now)
                persisted = state.values
            }
            try commit(node.start(now: now))
        }

        mutating func commit(_ actions: [NodeAction]) throws {
            let operations = actions.compactMap { if case .persist(let op) = $0 { op } else { nil } }
            let changed = NodeValues(node.persistentValues().filter { persisted[$0.key] != $0 })
            lastValueBytes = changed.reduce(0) { $0 + JSONWriter.string($1.json).utf8.count }
            try storage.commit(operations, values: changed)
            image.commit(operations, values: changed)
            persisted.merge(changed)
        }

        /// The SQLite storage and the simulator's in-memory image read back the same state.
        func expectSameAsImage() throws {
            let a = try storage.load(), b = image.load()
            expectEqual(a.samples.map { "\($0.0.uuid.text)@\($0.1)" }, b.samples.map { "\($0.0.uuid.text)@\($0.1)" })
            expectEqual(a.samples.map(\.0), b.samples.map(\.0))
            expect(a.workouts.map(\.0) == b.workouts.map(\.0) && a.workouts.map(\.1) == b.workouts.map(\.1))
            expect(a.tombstones == b.tombstones && a.deletedIDs == b.deletedIDs)
            expect(a.records == b.records && a.deletedRecords == b.deletedRecords)
            expectEqual(a.outbox, b.outbox)
            expect(a.held == b.held && a.waiting == b.waiting)
            // Values: the image keeps what was written; the tables what the model reads back.
            for value in a.values { expectEqual(b.values[value.key], value, "\(value.key.name)") }
        }

        mutating func run(_ command: String) throws {
            let result = node.handle(commandText: command, now: now)
            expect(result.ok, "\(command): \(result.reply)")
            try commit(result.actions)
        }

        mutating func arrive(_ batch: HealthObjectsBatch) throws {
            try commit(node.inject(now: now) { $0.ingest(batch, now: $1) })
        }

        mutating func arrive(_ batch: RecordsBatch) throws {
            try commit(node.inject(now: now) { $0.receiveRecords(batch, now: $1) })
        }
    }

    static func samples(_ count: Int, from first: Int, _ uuids: inout UUIDGenerator) -> [HealthSample] {
        (first..<first + count).map { i in
            let at = EmulatedInstant(milliseconds: Int64(i) * 5_000)
            return HealthSample(uuid: uuids.next(at: at), type: .heartRate, start: at, end: at, value: 60 + Double(i % 40), source: .watchApp)
        }
    }

    static func record(_ id: UUID, _ exercise: String) -> ExerciseRecord {
        ExerciseRecord(id: id, exercise: exercise, start: .zero + .minutes(1), duration: .minutes(20), calories: 120,
                       healthKitWorkoutID: nil, source: .watchApp)
    }

    @Test("a locked phone writes each arrival, not everything it holds, and a restart keeps what it held")  // R: K1, H4, S5
    func heldChangeByChange() throws {
        let path = SQLiteStorageTests.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var phone = try PersistedPhone(path: path)
        var uuids = UUIDGenerator(seed: 7, label: "held")
        try phone.run("lock")
        try phone.arrive(HealthObjectsBatch(samples: Self.samples(10, from: 0, &uuids)))
        let small = phone.lastValueBytes
        var held = 10
        for round in 0..<20 {
            try phone.arrive(HealthObjectsBatch(samples: Self.samples(1_000, from: held, &uuids)))
            held += 1_000
            expect(phone.lastValueBytes <= small + 64, "turn \(round) rewrote \(phone.lastValueBytes) bytes of values while holding \(held) samples")
        }
        let workout = Workout(uuid: uuids.next(at: phone.now), activity: "running", start: .zero, end: .zero + .minutes(30),
                              activeDuration: .minutes(30), activeEnergy: 250, source: .watchApp)
        try phone.arrive(HealthObjectsBatch(workouts: [workout], deleted: [DeletedObject(uuid: uuids.next(at: phone.now), type: .sample(.stepCount))]))
        expectEqual(phone.node.platform.lockBuffer.itemCount, held + 2)

        try phone.expectSameAsImage()
        var restarted = try PersistedPhone(path: path, restoring: true)
        expectEqual(restarted.node.platform.lockBuffer, phone.node.platform.lockBuffer)
        expectEqual(restarted.node.platform.store.sampleCount, 0)
        try restarted.run("unlock")
        expectEqual(restarted.node.platform.store.sampleCount, held)
        expectEqual(restarted.node.platform.store.workoutCount, 1)
        // The merge and the release of what was held are one commit: nothing is held twice.
        let afterUnlock = try restarted.storage.load()
        expect(afterUnlock.held.isEmpty)
        expect(afterUnlock.samples.count == held && afterUnlock.workouts.map(\.0) == [workout])
    }

    @Test("records waiting in the CloudKit container are written as they come and survive a restart")  // R: K1, S4, S5
    func waitingRecords() throws {
        let path = SQLiteStorageTests.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var phone = try PersistedPhone(path: path)
        try phone.run("force-quit")
        expect(!phone.node.platform.app.isRunning)
        var uuids = UUIDGenerator(seed: 8, label: "records")
        let (a, b, c) = (uuids.next(at: .zero), uuids.next(at: .zero), uuids.next(at: .zero))
        try phone.arrive(RecordsBatch(saved: [Self.record(a, "Running"), Self.record(b, "Squat")]))
        // A newer save of `a` replaces the waiting one; `b` is deleted before the app ever ran.
        try phone.arrive(RecordsBatch(saved: [Self.record(a, "Rowing"), Self.record(c, "Plank")], deleted: [b]))
        try phone.arrive(RecordsBatch(deleted: [b]))
        let waiting = phone.node.platform.container
        expect(waiting.saved.map(\.exercise) == ["Rowing", "Plank"] && waiting.deleted == [b])
        try phone.expectSameAsImage()

        var restarted = try PersistedPhone(path: path, restoring: true)
        expectEqual(restarted.node.platform.container, waiting)
        try restarted.run("launch")
        expect(restarted.node.platform.container.isEmpty)
        expectEqual(Set(restarted.node.platform.records.records.map(\.exercise)), ["Rowing", "Plank"])
        let state = try restarted.storage.load()
        expect(state.waiting.isEmpty)
        expectEqual(Set(state.records.map(\.exercise)), ["Rowing", "Plank"])
    }

    @Test("workouts and records are typed columns")  // R: K1
    func typedColumns() throws {
        let path = SQLiteStorageTests.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let storage = try SQLiteStorage(path: path)
        var uuids = UUIDGenerator(seed: 9, label: "typed")
        let workout = Workout(uuid: uuids.next(at: .zero), activity: "cycling", start: .zero + .seconds(10), end: .zero + .seconds(610),
                              activeDuration: .seconds(550), activeEnergy: nil, source: .other("strava"))
        var record = Self.record(uuids.next(at: .zero), "Cycling")
        record.healthKitWorkoutID = workout.uuid
        try storage.commit([.putWorkouts([workout], anchor: 3), .putRecords([record])], values: [])
        let row = try storage.queue.read { db in
            try Row.fetchOne(db, sql: "SELECT activity, start_ms, end_ms, active_duration_ms, active_energy, source FROM workouts")!
        }
        expect(row["activity"] as String == "cycling" && row["start_ms"] as Int64 == 10_000 && row["end_ms"] as Int64 == 610_000)
        expect(row["active_duration_ms"] as Int64 == 550_000 && row["active_energy"] as Double? == nil && row["source"] as String == "strava")
        let workoutID = try storage.queue.read { db in try String.fetchOne(db, sql: "SELECT workout_id FROM records") }
        expectEqual(workoutID, workout.uuid.text)
        let state = try storage.load()
        expect(state.workouts.map(\.0) == [workout] && state.workouts.map(\.1) == [3])
        expectEqual(state.records, [record])
    }

    @Test("a restored phone has the same small state, in typed tables")  // R: K1, S5
    func restorePhone() throws {
        let path = SQLiteStorageTests.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var phone = try PersistedPhone(path: path)
        var uuids = UUIDGenerator(seed: 11, label: "phone")
        try phone.arrive(HealthObjectsBatch(samples: Self.samples(5, from: 0, &uuids)))
        try phone.run("log-workout rowing --duration 20m")
        try phone.run("authorize hrv deny")
        try phone.run("miss-completion hrv 2")
        phone.now = phone.now + .minutes(3)
        try phone.run("force-quit")
        try phone.run("lock")
        try phone.arrive(HealthObjectsBatch(samples: Self.samples(2, from: 5, &uuids)))
        try phone.expectSameAsImage()
        let restarted = try PersistedPhone(path: path, restoring: true)
        expectEqual(restarted.node.persistentValues(), phone.node.persistentValues())
        expect(restarted.node.platform.locked && restarted.node.platform.lockBuffer.samples.count == 2)
        let tables = try restarted.storage.queue.read { db in try String.fetchSet(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") }
        expect(!tables.contains("kv"), "no table of JSON values is left: \(tables.sorted())")
    }

    static func outbox(_ sync: SyncEngine, _ channel: Channel) -> [OutboxRecord] {
        sync.outbound[channel].entries.values.map(\.record).sorted { $0.seq < $1.seq }
    }

    /// A wave-1 (schema v1) database holding `values` and `outbox` as wave 1 wrote them.
    /// Values as wave 1 kept them: JSON documents by name.
    static func legacy(_ values: NodeValues) -> [String: JSON] {
        Dictionary(uniqueKeysWithValues: values.map { ($0.key.name, $0.json) })
    }

    static func writeV1(_ path: String, values: [String: JSON], outbox: [Channel: [OutboxRecord]], workouts: [(Workout, Int64)] = [],
                        records: [ExerciseRecord] = []) throws {
        let queue = try DatabaseQueue(path: path)
        try SQLiteStorage.migrator.migrate(queue, upTo: "v1")
        try queue.write { db in
            for (key, value) in values {
                try db.execute(sql: "INSERT INTO kv (key, value) VALUES (?, ?)", arguments: [key, JSONWriter.string(value)])
            }
            for (channel, messages) in outbox {
                for message in messages {
                    try db.execute(sql: """
                        INSERT INTO outbox (channel, seq, kind, topic, payload, created_at, summary) VALUES (?, ?, ?, ?, ?, ?, ?)
                        """, arguments: [channel.rawValue, Int64(message.seq), message.kind.rawValue, message.frame.topic,
                                         Data(message.frame.payload), message.createdAt.milliseconds, JSONWriter.string(.object(message.summary))])
                }
            }
            for (workout, anchor) in workouts {
                try db.execute(sql: "INSERT INTO workouts (uuid, anchor, json) VALUES (?, ?, ?)", arguments: [workout.uuid.text, anchor, JSONWriter.string(workout.json)])
            }
            for record in records {
                try db.execute(sql: "INSERT INTO records (id, json) VALUES (?, ?)", arguments: [record.id.text, JSONWriter.string(record.json)])
            }
        }
    }

    @Test("a watch database written by wave 1 (schema v1) is migrated: the restored watch is the one that stopped, less the built-in app's session")  // R: K1, S5, A10
    func migratesWatchV1() throws {
        let path = SQLiteStorageTests.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var watch = WatchNode(topology: SQLiteStorageTests.topology, boot: "b1", app: try AppCatalog.watchApp(for: SQLiteStorageTests.topology))
        _ = watch.start(now: .zero)
        for (seconds, command) in [(0, "start-workout strength squat plank"), (1_200, "finish-workout"),
                                   (1_300, "generate-workouts 3 --every 1h --duration 20m"), (1_400, "write-sample hrv 51")] as [(Int64, String)] {
            expect(watch.handle(commandText: command, now: .zero + .seconds(seconds)).ok, "\(command)")
        }
        var outbox: [Channel: [OutboxRecord]] = [:]
        for channel in Channel.allCases { outbox[channel] = Self.outbox(watch.sync, channel) }
        expect(!(outbox[.healthkit] ?? []).isEmpty)
        // Wave 1 kept a "lockBuffer"/"container" only on phones, and keys since retired: dropped.
        // Its watch ran PairSim's built-in app, whose paused session v12 drops (R: A10); the
        // hosted app's values came with v7, so a wave-1 database has none.
        let hosted: Set<NodeValue.Key> = [.watchHostedWorkout, .watchHostedSessions]
        let kept = NodeValues(watch.persistentValues().filter { !hosted.contains($0.key) })
        var values = Self.legacy(kept)
        values["watch.retired"] = .int(1)
        values["watch.session"] = .object(["state": "paused", "live": .object([
            "activity": "running", "exercises": .array(["Running"]), "start": .int(1_400_000), "segments": .array([.array([.int(1_400_000), .int(1_500_000)])]),
            "number": .int(2), "recovered": .bool(false), "hasBuilder": .bool(true),
        ])])
        values["watch.sessionCount"] = .int(2)
        try Self.writeV1(path, values: values, outbox: outbox, workouts: watch.store.workouts.map { ($0, 1) },
                         records: watch.records.records)
        var restored = WatchModel(topology: SQLiteStorageTests.topology, boot: "b2")
        let state = try SQLiteStorage(path: path).load()
        try restored.restore(state, now: .zero + .seconds(1_600))
        expectEqual(NodeValues(restored.persistentValues().filter { !hosted.contains($0.key) }), kept)
        expectEqual(restored.workout, nil, "the built-in app's session is not carried over")
        expectEqual(restored.store.workouts, watch.store.workouts)
        expectEqual(restored.records.records, watch.records.records)
        for channel in Channel.allCases {
            expectEqual(Self.outbox(restored.sync, channel), outbox[channel]!, "\(channel) outbox")
        }
    }

    @Test("v1's small values are moved by frozen SQL: sync windows, defaults of every JSON kind, queues, reading back as written")  // R: K7, K1
    func migratesV1ValuesBySQL() throws {
        let path = SQLiteStorageTests.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let window: JSON = .object(["stream": .string("w.hk"), "cumulative": .int(2), "above": .array([.int(4), .int(6)])])
        func channel(_ stream: String, _ inbound: [JSON]) -> JSON {
            .object(["stream": .string(stream), "nextSeq": .int(3), "inbound": .array(inbound)])
        }
        let sync: JSON = .object(["healthkit": channel("p.hk", [window]), "cloudkit": channel("p.ck", []), "watchconnectivity": channel("p.wc", [])])
        let defaults: JSON = .object(["name": .string("say \"hi\"\n"), "count": .int(3), "ratio": .double(0.1 + 0.2), "on": .bool(true),
                                      "none": .null, "list": .array([.int(1), .string("two")]), "nested": .object(["a": .object(["b": .bool(false)])])])
        let export: JSON = .object(["saved": .array([Self.record(UUID(text: "00000000-0000-4000-8000-00000000000a")!, "Squat").json]),
                                    "deleted": .array([.string(UUID(text: "00000000-0000-4000-8000-00000000000b")!.text)]), "nextExportAt": .int(90_000)])
        try Self.writeV1(path, values: ["sync": sync, "watch.appDefaults": defaults, "cloudkit.export": export, "store.anchor": .int(7),
                                        "watch.failNextFinish": .bool(true), "watch.retired": .int(1)], outbox: [:])
        let read = try SQLiteStorage(path: path).queue.read { db in try StateTables.read(db) }
        expectEqual(read[.sync]?.json, sync)
        expectEqual(read[.watchAppDefaults]?.json, defaults)
        expectEqual(read[.cloudKitExport]?.json, export)
        expect(read[.storeAnchor] == .storeAnchor(7) && read[.watchFailNextFinish] == .watchFailNextFinish(true))
    }

    @Test("a watch app's workout session, builder and AppDefaults round-trip through the watch's tables (schema v7, v12)")  // R: A9, K1
    func hostedWatchState() throws {
        let path = SQLiteStorageTests.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var watch = WatchModel(topology: SQLiteStorageTests.topology, boot: "b1", app: "some-watch-app")
        _ = watch.start(now: .zero)
        _ = watch.handle([.setDefault(key: "unit", value: .string("km")), .workout(session: 1, .startActivity(activity: "running", at: .zero)),
                          .workout(session: 1, .beginCollection(id: 2, at: .zero, types: [.heartRate, .activeEnergyBurned]))],
                         answering: .terminated, now: .zero)
        _ = watch.advance(to: .zero + .minutes(3))
        _ = watch.handle([.workout(session: 1, .pause)], answering: .terminated, now: .zero + .minutes(3))
        let storage = try SQLiteStorage(path: path)
        try storage.commit([], values: watch.persistentValues())
        var restored = WatchModel(topology: SQLiteStorageTests.topology, boot: "b2", app: "some-watch-app")
        try restored.restore(try SQLiteStorage(path: path).load(), now: .zero + .minutes(4))
        expectEqual(restored.persistentValues(), watch.persistentValues())
        expect(restored.workout?.state == .paused && restored.workout?.readings == 37 && restored.workout?.session == 0)
    }

    @Test("a phone database written by wave 1 is migrated, held objects and waiting records included")  // R: K1, S5
    func migratesPhoneV1() throws {
        let path = SQLiteStorageTests.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var uuids = UUIDGenerator(seed: 10, label: "v1")
        let original = SQLiteStorageTests.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: original) }
        var phone = try PersistedPhone(path: original)
        try phone.run("force-quit")
        try phone.run("lock")
        let workout = Workout(uuid: uuids.next(at: .zero), activity: "running", start: .zero, end: .zero + .minutes(30),
                              activeDuration: .minutes(29), activeEnergy: 300.5, source: .watchApp)
        let held = HealthObjectsBatch(workouts: [workout], samples: Self.samples(3, from: 0, &uuids),
                                      deleted: [DeletedObject(uuid: uuids.next(at: .zero), type: .workout)])
        let waiting = RecordsBatch(saved: [Self.record(uuids.next(at: .zero), "Squat")], deleted: [uuids.next(at: .zero)])
        try phone.arrive(held)
        try phone.arrive(waiting)
        var values = Self.legacy(phone.node.persistentValues())
        values["phone.lockBuffer"] = .object(held.body)
        values["phone.container"] = .object(waiting.body)
        try Self.writeV1(path, values: values, outbox: [:])
        let storage = try SQLiteStorage(path: path)
        let state = try storage.load()
        expectEqual(state.held, held)
        expectEqual(state.waiting, waiting)
        var restored = try PersistedPhone(path: path, restoring: true)
        expectEqual(restored.node.persistentValues(), phone.node.persistentValues())
        expect(restored.node.platform.lockBuffer == held && restored.node.platform.container == waiting)
        try restored.run("unlock")
        expect(restored.node.platform.store.sampleCount == 3 && restored.node.platform.store.workoutCount == 1)
        let applied = try storage.queue.read { db in try SQLiteStorage.migrator.appliedIdentifiers(db) }
        expectEqual(applied.sorted(), ["v1", "v10", "v11", "v12", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9"])
    }

    @Test("a database written by a newer PairSim is refused, naming its schema version, and left untouched")  // R: K1
    func refusesNewer() throws {
        let path = SQLiteStorageTests.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try SQLiteStorage(path: path)
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v13')") }
        let error = #expect(throws: RuntimeError.self) { try SQLiteStorage(path: path) }
        expectEqual(error?.message.contains("written by a newer PairSim (schema v13)"), true, "\(error?.message ?? "")")
        expectEqual(error?.message.contains(path), true)
        let applied = try queue.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier") }
        expectEqual(applied, ["v1", "v10", "v11", "v12", "v13", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9"])
    }

    @Test("a new database is made at v12 in one step exactly as migrations v1…v12 make it: schema, rows and the migrations applied")  // R: K7
    func freshInOneStep() throws {
        let oneStep = SQLiteStorageTests.temporaryPath(), migrated = SQLiteStorageTests.temporaryPath()
        defer { [oneStep, migrated].forEach(SQLiteStorageTests.removeDatabase) }
        // The step itself, on a new file: it runs once, and not on a database with anything in it.
        let queue = try DatabaseQueue(path: oneStep)
        expect(try SQLiteStorage.createInOneStep(queue), "a new file is made in one step")
        expect(!(try SQLiteStorage.createInOneStep(queue)), "a database with tables is left alone")
        try queue.close()
        _ = try SQLiteStorage(path: oneStep)
        _ = try SQLiteStorage(path: migrated, inOneStep: false)
        let made = try Self.everything(oneStep), wanted = try Self.everything(migrated)
        expectEqual(made.schema, wanted.schema)
        expectEqual(made.rows, wanted.rows)
        expectEqual(made.rows["grdb_migrations"]?.count, SQLiteStorage.migrator.migrations.count)
        // A node's new database takes the step: its objects sit where the step puts them, which the
        // migrations' dropped and rebuilt tables do not leave.
        let opened = SQLiteStorageTests.temporaryPath()
        defer { SQLiteStorageTests.removeDatabase(opened) }
        _ = try SQLiteStorage(path: opened)
        expectEqual(try Self.placement(opened), try Self.placement(oneStep))
        expect(try Self.placement(migrated) != Self.placement(oneStep), "the migrations place them differently, so the check above can fail")
    }

    /// Each object of the database with the page its b-tree starts at (none for a view or trigger).
    static func placement(_ path: String) throws -> [String] {
        try DatabaseQueue(path: path).read { db in
            try Row.fetchAll(db, sql: "SELECT name, rootpage FROM sqlite_master ORDER BY name").map { "\($0["name"] as String) \($0["rootpage"] as Int? ?? 0)" }
        }
    }

    /// A database's schema (each object's type, table and statement, by name; not where SQLite
    /// keeps it) and every table's rows, as text.
    static func everything(_ path: String) throws -> (schema: [String: String], rows: [String: [String]]) {
        try DatabaseQueue(path: path).read { db in
            var schema: [String: String] = [:], rows: [String: [String]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master") {
                schema[row["name"]] = "\(row["type"] as String) on \(row["tbl_name"] as String): \(row["sql"] as String? ?? "(automatic)")"
            }
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") {
                rows[table] = try Row.fetchAll(db, sql: "SELECT * FROM \"\(table)\"").map(\.description).sorted()
            }
            return (schema, rows)
        }
    }
}
