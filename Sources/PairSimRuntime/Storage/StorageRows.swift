import Foundation
import PairSimCore

// The node database's typed rows. Columns are snake_case; times are emulated milliseconds; UUIDs
// are their canonical text. Heart-rate and other samples are the exception:
// they are stored packed, many per row (`SampleCodec`), which is what makes a million samples a
// second durable.

/// A row kept in a table of its own: its columns in order, what it writes in them, and how it
/// reads back from a row that has them.
protocol TableRecord {
    static var databaseTableName: String { get }
    static var databaseColumns: [String] { get }
    var databaseValues: [(any DatabaseValueConvertible)?] { get }
    init(row: Row)
}

/// What an insert does with a row whose key is taken: fail, or replace it.
enum ConflictResolution: Int { case abort, replace }

extension TableRecord {
    /// Inserts the row with a statement kept per type: the outbox inserts one per message sent,
    /// so its text is made once, not for every insert.
    func insert(_ db: Database, onConflict: ConflictResolution = .abort) throws {
        try db.cachedStatement(StatementKey(type: ObjectIdentifier(Self.self), variant: onConflict.rawValue)) {
            let placeholders = Array(repeating: "?", count: Self.databaseColumns.count).joined(separator: ", ")
            return """
                INSERT\(onConflict == .replace ? " OR REPLACE" : "") INTO \(Self.databaseTableName) (\(Self.databaseColumns.joined(separator: ", "))) \
                VALUES (\(placeholders))
                """
        }.execute(arguments: StatementArguments(databaseValues.map { $0?.databaseValue ?? .null }))
    }

    /// The rows `sql` selects (all of this table's columns).
    static func fetchAll(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> [Self] {
        try Row.fetchAll(db, sql: sql, arguments: arguments).map(Self.init(row:))
    }
}

/// The columns of a workout, wherever it is kept.
protocol WorkoutColumns {
    var uuid: String { get }
    var activity: String { get }
    var startMs: Int64 { get }
    var endMs: Int64 { get }
    var activeDurationMs: Int64 { get }
    var activeEnergy: Double? { get }
    var source: String { get }
}

extension WorkoutColumns {
    func workout(_ table: String) throws -> Workout {
        guard let uuid = UUID(text: uuid) else { throw RuntimeError("\(table).uuid: invalid UUID \(uuid)") }
        return Workout(uuid: uuid, activity: activity, start: EmulatedInstant(milliseconds: startMs), end: EmulatedInstant(milliseconds: endMs),
                       activeDuration: .milliseconds(activeDurationMs), activeEnergy: activeEnergy, source: ObjectSource(name: source))
    }
}

/// A workout in the HealthKit store (`workouts`), with the store anchor it was saved at.
struct WorkoutRow: TableRecord, WorkoutColumns {
    static let databaseTableName = "workouts"
    var uuid: String
    var anchor: Int64
    var activity: String
    var startMs: Int64
    var endMs: Int64
    var activeDurationMs: Int64
    var activeEnergy: Double?
    var source: String

    init(_ workout: Workout, anchor: Int64) {
        (uuid, self.anchor, activity, startMs, endMs) = (workout.uuid.text, anchor, workout.activity, workout.start.milliseconds, workout.end.milliseconds)
        (activeDurationMs, activeEnergy, source) = (workout.activeDuration.milliseconds, workout.activeEnergy, workout.source.name)
    }

    static let databaseColumns = ["uuid", "anchor", "activity", "start_ms", "end_ms", "active_duration_ms", "active_energy", "source"]
    var databaseValues: [(any DatabaseValueConvertible)?] { [uuid, anchor, activity, startMs, endMs, activeDurationMs, activeEnergy, source] }

    init(row: Row) {
        (uuid, anchor, activity, startMs, endMs) = (row["uuid"], row["anchor"], row["activity"], row["start_ms"], row["end_ms"])
        (activeDurationMs, activeEnergy, source) = (row["active_duration_ms"], row["active_energy"], row["source"])
    }
}

/// A workout that reached a locked phone (`held_workouts`), in arrival order.
struct HeldWorkoutRow: TableRecord, WorkoutColumns {
    static let databaseTableName = "held_workouts"
    var seq: Int64?
    var uuid: String
    var activity: String
    var startMs: Int64
    var endMs: Int64
    var activeDurationMs: Int64
    var activeEnergy: Double?
    var source: String

    init(_ workout: Workout) {
        (seq, uuid, activity, startMs, endMs) = (nil, workout.uuid.text, workout.activity, workout.start.milliseconds, workout.end.milliseconds)
        (activeDurationMs, activeEnergy, source) = (workout.activeDuration.milliseconds, workout.activeEnergy, workout.source.name)
    }

    static let databaseColumns = ["seq", "uuid", "activity", "start_ms", "end_ms", "active_duration_ms", "active_energy", "source"]
    var databaseValues: [(any DatabaseValueConvertible)?] { [seq, uuid, activity, startMs, endMs, activeDurationMs, activeEnergy, source] }

    init(row: Row) {
        (seq, uuid, activity, startMs, endMs) = (row["seq"], row["uuid"], row["activity"], row["start_ms"], row["end_ms"])
        (activeDurationMs, activeEnergy, source) = (row["active_duration_ms"], row["active_energy"], row["source"])
    }
}

/// The columns of an exercise record, wherever it is kept.
protocol RecordColumns {
    var id: String { get }
    var exercise: String { get }
    var startMs: Int64 { get }
    var durationMs: Int64 { get }
    var calories: Double? { get }
    var workoutId: String? { get }
    var source: String { get }
}

extension RecordColumns {
    func record(_ table: String) throws -> ExerciseRecord {
        guard let uuid = UUID(text: id) else { throw RuntimeError("\(table).id: invalid UUID \(id)") }
        var workout: UUID?
        if let workoutId {
            guard let parsed = UUID(text: workoutId) else { throw RuntimeError("\(table).workout_id: invalid UUID \(workoutId)") }
            workout = parsed
        }
        return ExerciseRecord(id: uuid, exercise: exercise, start: EmulatedInstant(milliseconds: startMs), duration: .milliseconds(durationMs),
                              calories: calories, healthKitWorkoutID: workout, source: ObjectSource(name: source))
    }
}

/// An exercise record in the app's store (`records`).
struct RecordRow: TableRecord, RecordColumns {
    static let databaseTableName = "records"
    var id: String
    var exercise: String
    var startMs: Int64
    var durationMs: Int64
    var calories: Double?
    var workoutId: String?
    var source: String

    init(_ record: ExerciseRecord) {
        (id, exercise, startMs, durationMs) = (record.id.text, record.exercise, record.start.milliseconds, record.duration.milliseconds)
        (calories, workoutId, source) = (record.calories, record.healthKitWorkoutID?.text, record.source.name)
    }

    static let databaseColumns = ["id", "exercise", "start_ms", "duration_ms", "calories", "workout_id", "source"]
    var databaseValues: [(any DatabaseValueConvertible)?] { [id, exercise, startMs, durationMs, calories, workoutId, source] }

    init(row: Row) {
        (id, exercise, startMs, durationMs) = (row["id"], row["exercise"], row["start_ms"], row["duration_ms"])
        (calories, workoutId, source) = (row["calories"], row["workout_id"], row["source"])
    }
}

/// A saved record queued on its way: waiting in the phone's CloudKit container until the app runs
/// (`container`), or waiting for the next export batch (`export`); in arrival order.
struct QueuedRecordRow: TableRecord, RecordColumns {
    enum Queue: String { case container, export }
    static let databaseTableName = "queued_records"
    var seq: Int64?
    var queue: Queue
    var id: String
    var exercise: String
    var startMs: Int64
    var durationMs: Int64
    var calories: Double?
    var workoutId: String?
    var source: String

    init(_ record: ExerciseRecord, queue: Queue) {
        (seq, self.queue, id, exercise, startMs) = (nil, queue, record.id.text, record.exercise, record.start.milliseconds)
        (durationMs, calories, workoutId, source) = (record.duration.milliseconds, record.calories, record.healthKitWorkoutID?.text, record.source.name)
    }

    static let databaseColumns = ["seq", "queue", "id", "exercise", "start_ms", "duration_ms", "calories", "workout_id", "source"]
    var databaseValues: [(any DatabaseValueConvertible)?] { [seq, queue.rawValue, id, exercise, startMs, durationMs, calories, workoutId, source] }

    init(row: Row) {
        let queue: String = row["queue"]
        guard let kept = Queue(rawValue: queue) else { fatalError("queued_records.queue: unknown queue \(queue)") }
        (seq, self.queue, id, exercise, startMs) = (row["seq"], kept, row["id"], row["exercise"], row["start_ms"])
        (durationMs, calories, workoutId, source) = (row["duration_ms"], row["calories"], row["workout_id"], row["source"])
    }
}

/// A message kept until its receiver acknowledges it (`outbox`): the frame as sent (or, for one
/// stored sample batch, its head and the batch's anchor), and the counts events about it show
/// (`workouts=1 samples=360`).
struct OutboxRow: TableRecord {
    static let databaseTableName = "outbox"
    var channel: String
    var seq: Int64
    var kind: String
    var topic: String
    var payload: Data
    var createdAt: Int64
    var workouts: Int64?
    /// The workout's UUID when the message carries exactly one.
    var workout: String?
    var samples: Int64?
    var saved: Int64?
    var deleted: Int64?
    /// A WatchConnectivity message's or transfer's id (schema v4).
    var wcId: String?
    /// When set (schema v5), `payload` is the frame up to and including `"body":`, and the body is
    /// `HealthObjectsBatch(samples:)` of the sample batch stored with this anchor (see `restoreBody`).
    var samplesAnchor: Int64?

    init(_ channel: Channel, _ record: OutboxRecord) throws {
        (self.channel, seq, kind, topic) = (channel.rawValue, Int64(record.seq), record.kind.rawValue, record.frame.topic)
        (payload, createdAt) = (Data(record.frame.payload), record.createdAt.milliseconds)
        if let anchor = record.samplesAnchor, let head = WireCodec.head(ofPayload: record.frame.payload) {
            (payload, samplesAnchor) = (Data(head), anchor)
        }
        for (key, value) in record.summary.members {
            switch (key, value) {
            case ("workouts", .int(let count)): workouts = count
            case ("workout", .string(let uuid)): workout = uuid
            case ("samples", .int(let count)): samples = count
            case ("saved", .int(let count)): saved = count
            case ("deleted", .int(let count)): deleted = count
            case ("id", .string(let id)): wcId = id
            default: throw RuntimeError("outbox summary field \(key) has no column in schema \(SQLiteStorage.schemaVersion)")
            }
        }
    }

    static let databaseColumns = ["channel", "seq", "kind", "topic", "payload", "created_at", "workouts", "workout", "samples", "saved", "deleted",
                                  "wc_id", "samples_anchor"]
    var databaseValues: [(any DatabaseValueConvertible)?] {
        [channel, seq, kind, topic, payload, createdAt, workouts, workout, samples, saved, deleted, wcId, samplesAnchor]
    }

    init(row: Row) {
        (channel, seq, kind, topic, payload, createdAt) = (row["channel"], row["seq"], row["kind"], row["topic"], row["payload"], row["created_at"])
        (workouts, workout, samples, saved, deleted) = (row["workouts"], row["workout"], row["samples"], row["saved"], row["deleted"])
        (wcId, samplesAnchor) = (row["wc_id"], row["samples_anchor"])
    }

    func record() throws -> (Channel, OutboxRecord) {
        guard let channel = Channel(rawValue: channel), let kind = MessageKind(rawValue: kind) else {
            throw RuntimeError("outbox row \(self.channel)/\(seq): unknown channel or kind \(kind)")
        }
        var summary = JSONObject()
        if let workouts { summary.append("workouts", .int(workouts)) }
        if let workout { summary.append("workout", .string(workout)) }
        if let samples { summary.append("samples", .int(samples)) }
        if let saved { summary.append("saved", .int(saved)) }
        if let deleted { summary.append("deleted", .int(deleted)) }
        if let wcId { summary.append("id", .string(wcId)) }
        return (channel, OutboxRecord(seq: UInt64(seq), kind: kind, frame: WireFrame(topic: topic, payload: Array(payload)),
                                      createdAt: EmulatedInstant(milliseconds: createdAt), summary: summary,
                                      samplesAnchor: samplesAnchor))
    }

    /// The whole frame again: the stored head, then the body rebuilt from the batch's samples.
    mutating func restoreBody(samples: [HealthSample]) {
        payload = Data(WireCodec.payload(head: payload, body: HealthObjectsBatch(samples: samples).bodyBytes))
    }
}
