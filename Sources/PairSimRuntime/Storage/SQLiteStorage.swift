import Foundation
import PairSimCore

/// A node's durable state in one SQLite database (`<data>/state.sqlite`, WAL): HealthKit store,
/// records, outbox, a locked phone's held objects, its CloudKit container, and the model's small
/// values. Each turn writes what changed (`PersistOp`s), never the whole state.
final class SQLiteStorage: NodeStorage {
    let queue: DatabaseQueue
    let path: String
    /// The small values as this connection last committed them: a value is written as its
    /// difference from this (`StateTables.write`; unknown after a start: written whole once).
    private var committedValues = NodeValues()
    /// The rows those values were written as (`StateTables.write`), so each is made once.
    private var committedRows: [NodeValue.Key: [StateRows]] = [:]
    /// Rows inserted, updated or deleted by this connection's commits (`pairsim-bench rows`).
    private(set) var rowsWritten = 0

    /// Writes every changed value's tables whole, as before values were written as differences:
    /// the baseline `pairsim-bench rows` measures against. Never set in a node.
    nonisolated(unsafe) static var rewritesValuesWhole = false

    /// `inOneStep`: a new database is made at schema v12 at once (`createInOneStep`); false (tests
    /// only) runs every migration, as a database older than v12 does.
    init(path: String, inOneStep: Bool = true) throws {
        self.path = path
        do {
            queue = try DatabaseQueue(path: path)
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA journal_mode = WAL")
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
            }
            try queue.read { db in try Self.checkVersion(db, path: path) }
            if inOneStep { _ = try Self.createInOneStep(queue) }
            try Self.migrator.migrate(queue)
        } catch let error as RuntimeError {
            throw error
        } catch {
            throw RuntimeError("cannot open the node database \(path): \(error)")
        }
    }

    // MARK: Commit

    /// One transaction per turn, begun and committed with cached statements rather than `write`,
    /// which compiles `BEGIN`/`COMMIT` anew each time (with GRDB, whose `write` did the same,
    /// measured on the phone's single-sample turn: the transaction's own cost fell from ~45 µs to ~15 µs of CPU).
    func commit(_ operations: [PersistOp], values: NodeValues) throws {
        try commit(operations, values: values, throughTurn: nil)
    }

    /// Commits, and with `throughTurn` records that the turn journal's turns up to it are in the
    /// database now (`JournaledStorage`). `synced`: the WAL is synced before this returns
    /// (`synchronous = FULL` for this commit), so a power loss cannot undo it.
    /// `salt`: the turn journal starts again after this commit, its entries checksummed with this
    /// salt (recorded with `throughTurn`; only with `synced`).
    func commit(_ operations: [PersistOp], values: NodeValues, throughTurn: UInt64?, synced: Bool = false, salt: UInt64? = nil) throws {
        var rows = 0
        var written: [NodeValue.Key: [StateRows]] = [:]
        try queue.writeWithoutTransaction { db in
            let changesBefore = db.totalChangesCount
            if synced { try db.cachedStatement(sql: "PRAGMA synchronous = FULL").execute() }
            defer { if synced { try? db.cachedStatement(sql: "PRAGMA synchronous = NORMAL").execute() } }
            try db.cachedStatement(sql: "BEGIN IMMEDIATE").execute()
            do {
                for operation in operations { try Self.apply(operation, db) }
                for value in values {
                    let whole = Self.rewritesValuesWhole
                    written[value.key] = try StateTables.write(value, db, previous: whole ? nil : committedValues[value.key],
                                                               previousRows: whole ? nil : committedRows[value.key])
                }
                if let throughTurn {
                    try db.cachedStatement(sql: "UPDATE journal_mark SET turn = ? WHERE id = 1").execute(arguments: [Int64(bitPattern: throughTurn)])
                }
                if let salt {
                    try db.cachedStatement(sql: "UPDATE journal_mark SET salt = ? WHERE id = 1").execute(arguments: [Int64(bitPattern: salt)])
                }
                try db.cachedStatement(sql: "COMMIT").execute()
                rows = db.totalChangesCount - changesBefore
            } catch {
                // Rolled back: the database keeps the last commit, which `committedValues` still describes.
                if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") }
                throw error
            }
        }
        committedValues.merge(values)
        committedRows.merge(written) { $1 }
        rowsWritten += rows
    }

    /// The last journaled turn the database holds (0: none).
    func journaledThrough() throws -> UInt64 {
        UInt64(bitPattern: try queue.read { db in try Int64.fetchOne(db, sql: "SELECT turn FROM journal_mark WHERE id = 1") } ?? 0)
    }

    /// The salt the turn journal's current entries were checksummed with (schema v10; 0 before).
    func journalSalt() throws -> UInt64 {
        UInt64(bitPattern: try queue.read { db in try Int64.fetchOne(db, sql: "SELECT salt FROM journal_mark WHERE id = 1") } ?? 0)
    }

    static func apply(_ operation: PersistOp, _ db: Database) throws {
        switch operation {
        case .putSamples(let samples, let anchor):
            try db.cachedStatement(sql: "INSERT INTO sample_batches (anchor, data) VALUES (?, ?)")
                .execute(arguments: [anchor, Data(SampleCodec.pack(samples))])
        case .putWorkouts(let workouts, let anchor):
            for workout in workouts { try WorkoutRow(workout, anchor: anchor).insert(db, onConflict: .replace) }
        case .deleteObjects(let objects, let anchor, let at):
            let insert = try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO deleted_objects (uuid, type, anchor, deleted_at, purged) VALUES (?, ?, ?, ?, 0)
                """)
            let removeWorkout = try db.cachedStatement(sql: "DELETE FROM workouts WHERE uuid = ?")
            for object in objects {
                try insert.execute(arguments: [object.uuid.text, object.type.name, anchor, at.milliseconds])
                if object.type == .workout { try removeWorkout.execute(arguments: [object.uuid.text]) }
            }
        case .blockIDs(let ids):
            let statement = try db.cachedStatement(sql: """
                INSERT OR IGNORE INTO deleted_objects (uuid, type, anchor, deleted_at, purged) VALUES (?, 'unknown', 0, 0, 1)
                """)
            for id in ids { try statement.execute(arguments: [id.text]) }
        case .purgeTombstones(let anchor):
            try db.execute(sql: "UPDATE deleted_objects SET purged = 1 WHERE anchor <= ?", arguments: [anchor])
        case .putRecords(let records):
            for record in records { try RecordRow(record).insert(db, onConflict: .replace) }
        case .deleteRecords(let ids):
            for id in ids {
                try db.execute(sql: "DELETE FROM records WHERE id = ?", arguments: [id.text])
                try db.execute(sql: "INSERT OR IGNORE INTO deleted_records (id) VALUES (?)", arguments: [id.text])
            }
        case .outboxPut(let channel, let record):
            try OutboxRow(channel, record).insert(db, onConflict: .replace)
        case .outboxRemove(let channel, let seqs):
            let statement = try db.cachedStatement(sql: "DELETE FROM outbox WHERE channel = ? AND seq = ?")
            for seq in seqs { try statement.execute(arguments: [channel.rawValue, Int64(seq)]) }
        case .hold(let batch):
            for workout in batch.workouts { try HeldWorkoutRow(workout).insert(db) }
            if !batch.samples.isEmpty {
                try db.cachedStatement(sql: "INSERT INTO held_sample_batches (data) VALUES (?)").execute(arguments: [Data(SampleCodec.pack(batch.samples))])
            }
            let deletion = try db.cachedStatement(sql: "INSERT INTO held_deletions (uuid, type) VALUES (?, ?)")
            for object in batch.deleted { try deletion.execute(arguments: [object.uuid.text, object.type.name]) }
        case .releaseHeld:
            try db.execute(sql: "DELETE FROM held_workouts; DELETE FROM held_sample_batches; DELETE FROM held_deletions")
        case .containerAdd(let batch):
            // As the container does in memory: a deletion or a newer save replaces a waiting save.
            let remove = try db.cachedStatement(sql: "DELETE FROM queued_records WHERE queue = 'container' AND id = ?")
            for id in batch.deleted { try remove.execute(arguments: [id.text]) }
            for record in batch.saved { try remove.execute(arguments: [record.id.text]) }
            for record in batch.saved { try QueuedRecordRow(record, queue: .container).insert(db) }
            let deletion = try db.cachedStatement(sql: "INSERT OR IGNORE INTO waiting_deletions (id) VALUES (?)")
            for id in batch.deleted { try deletion.execute(arguments: [id.text]) }
        case .containerClear:
            try db.execute(sql: "DELETE FROM queued_records WHERE queue = 'container'; DELETE FROM waiting_deletions")
        }
    }
}
