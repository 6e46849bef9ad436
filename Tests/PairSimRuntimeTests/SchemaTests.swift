import Foundation
import GRDB
import PairSimApps
@testable import PairSimCore
@testable import PairSimKit
import Testing
@testable import PairSimRuntime

@Suite("Node database: typed tables, change-by-change writes, schema versions")
struct SchemaTests {
    /// A phone with the reference app whose every turn is committed like the node loop does.
    struct PersistedPhone {
        var node: PhoneNode
        let storage: SQLiteStorage
        var persisted: [String: JSON] = [:]
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
            let changed = node.persistentValues().filter { persisted[$0.key] != $0.value }
            lastValueBytes = changed.values.reduce(0) { $0 + JSONWriter.string($1).utf8.count }
            try storage.commit(operations, values: changed)
            persisted.merge(changed) { $1 }
        }

        mutating func run(_ command: String) throws {
            let result = node.handle(commandText: command, now: now)
            #expect(result.ok, "\(command): \(result.reply)")
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
            #expect(phone.lastValueBytes <= small + 64, "turn \(round) rewrote \(phone.lastValueBytes) bytes of values while holding \(held) samples")
        }
        let workout = Workout(uuid: uuids.next(at: phone.now), activity: "running", start: .zero, end: .zero + .minutes(30),
                              activeDuration: .minutes(30), activeEnergy: 250, source: .watchApp)
        try phone.arrive(HealthObjectsBatch(workouts: [workout], deleted: [DeletedObject(uuid: uuids.next(at: phone.now), type: .sample(.stepCount))]))
        #expect(phone.node.platform.lockBuffer.itemCount == held + 2)

        var restarted = try PersistedPhone(path: path, restoring: true)
        #expect(restarted.node.platform.lockBuffer == phone.node.platform.lockBuffer)
        #expect(restarted.node.platform.store.sampleCount == 0)
        try restarted.run("unlock")
        #expect(restarted.node.platform.store.sampleCount == held)
        #expect(restarted.node.platform.store.workoutCount == 1)
        // The merge and the release of what was held are one commit: nothing is held twice.
        let afterUnlock = try restarted.storage.load()
        #expect(afterUnlock.held.isEmpty)
        #expect(afterUnlock.samples.count == held && afterUnlock.workouts.map(\.0) == [workout])
    }

    @Test("records waiting in the CloudKit container are written as they come and survive a restart")  // R: K1, S4, S5
    func waitingRecords() throws {
        let path = SQLiteStorageTests.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var phone = try PersistedPhone(path: path)
        try phone.run("force-quit")
        #expect(!phone.node.platform.app.isRunning)
        var uuids = UUIDGenerator(seed: 8, label: "records")
        let (a, b, c) = (uuids.next(at: .zero), uuids.next(at: .zero), uuids.next(at: .zero))
        try phone.arrive(RecordsBatch(saved: [Self.record(a, "Running"), Self.record(b, "Squat")]))
        // A newer save of `a` replaces the waiting one; `b` is deleted before the app ever ran.
        try phone.arrive(RecordsBatch(saved: [Self.record(a, "Rowing"), Self.record(c, "Plank")], deleted: [b]))
        try phone.arrive(RecordsBatch(deleted: [b]))
        let waiting = phone.node.platform.container
        #expect(waiting.saved.map(\.exercise) == ["Rowing", "Plank"] && waiting.deleted == [b])

        var restarted = try PersistedPhone(path: path, restoring: true)
        #expect(restarted.node.platform.container == waiting)
        try restarted.run("launch")
        #expect(restarted.node.platform.container.isEmpty)
        #expect(Set(restarted.node.platform.records.records.map(\.exercise)) == ["Rowing", "Plank"])
        let state = try restarted.storage.load()
        #expect(state.waiting.isEmpty)
        #expect(Set(state.records.map(\.exercise)) == ["Rowing", "Plank"])
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
        try storage.commit([.putWorkouts([workout], anchor: 3), .putRecords([record])], values: [:])
        let row = try storage.queue.read { db in
            try Row.fetchOne(db, sql: "SELECT activity, start_ms, end_ms, active_duration_ms, active_energy, source FROM workouts")!
        }
        #expect(row["activity"] as String == "cycling" && row["start_ms"] as Int64 == 10_000 && row["end_ms"] as Int64 == 610_000)
        #expect(row["active_duration_ms"] as Int64 == 550_000 && row["active_energy"] as Double? == nil && row["source"] as String == "strava")
        let workoutID = try storage.queue.read { db in try String.fetchOne(db, sql: "SELECT workout_id FROM records") }
        #expect(workoutID == workout.uuid.text)
        let state = try storage.load()
        #expect(state.workouts.map(\.0) == [workout] && state.workouts.map(\.1) == [3])
        #expect(state.records == [record])
    }

    @Test("a database written by wave 1 (schema v1) is migrated, JSON rows and values into typed tables")  // R: K1
    func migratesV1() throws {
        let path = SQLiteStorageTests.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var uuids = UUIDGenerator(seed: 10, label: "v1")
        let workout = Workout(uuid: uuids.next(at: .zero), activity: "running", start: .zero, end: .zero + .minutes(30),
                              activeDuration: .minutes(29), activeEnergy: 300.5, source: .watchApp)
        let record = Self.record(uuids.next(at: .zero), "Running")
        let held = HealthObjectsBatch(workouts: [workout], samples: Self.samples(3, from: 0, &uuids),
                                      deleted: [DeletedObject(uuid: uuids.next(at: .zero), type: .workout)])
        let waiting = RecordsBatch(saved: [Self.record(uuids.next(at: .zero), "Squat")], deleted: [uuids.next(at: .zero)])
        do {
            let queue = try DatabaseQueue(path: path)
            try SQLiteStorage.migrator.migrate(queue, upTo: "v1")
            try queue.write { db in
                try db.execute(sql: "INSERT INTO workouts (uuid, anchor, json) VALUES (?, 4, ?)", arguments: [workout.uuid.text, JSONWriter.string(workout.json)])
                try db.execute(sql: "INSERT INTO records (id, json) VALUES (?, ?)", arguments: [record.id.text, JSONWriter.string(record.json)])
                try db.execute(sql: "INSERT INTO kv (key, value) VALUES ('phone.lockBuffer', ?), ('phone.container', ?), ('store.anchor', '4')",
                               arguments: [JSONWriter.string(.object(held.body)), JSONWriter.string(.object(waiting.body))])
            }
        }
        let storage = try SQLiteStorage(path: path)
        let state = try storage.load()
        #expect(state.workouts.map(\.0) == [workout] && state.workouts.map(\.1) == [4])
        #expect(state.records == [record])
        #expect(state.held == held)
        #expect(state.waiting == waiting)
        #expect(state.values.keys.sorted() == ["store.anchor"])
        let applied = try storage.queue.read { db in try SQLiteStorage.migrator.appliedIdentifiers(db) }
        #expect(applied == ["v1", SQLiteStorage.schemaVersion])
    }

    @Test("a database written by a newer PairSim is refused, naming its schema version, and left untouched")  // R: K1
    func refusesNewer() throws {
        let path = SQLiteStorageTests.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try SQLiteStorage(path: path)
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v9')") }
        let error = #expect(throws: RuntimeError.self) { try SQLiteStorage(path: path) }
        #expect(error?.message.contains("written by a newer PairSim (schema v9)") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains(path) == true)
        let applied = try queue.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier") }
        #expect(applied == ["v1", "v2", "v9"])
    }
}
