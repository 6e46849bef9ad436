import Foundation
import Testing
import TestSupport
@testable import PairSimRuntime

/// The node database's own layer over SQLite's C API (Storage/SQLite.swift): what the storage
/// relies on it for, beyond what the storage tests reach.
@Suite("SQLite layer")
struct SQLiteTests {
    static func open() throws -> (DatabaseQueue, String) {
        let path = SQLiteStorageTests.temporaryPath()
        return (try DatabaseQueue(path: path), path)
    }

    @Test("values go in and come back as they were: NULL, integers at their edges, doubles, text, empty and binary blobs")  // R: K1
    func valuesRoundTrip() throws {
        let (queue, path) = try Self.open()
        defer { SQLiteStorageTests.removeDatabase(path) }
        let values: [DatabaseValue] = [
            .null, .int64(.min), .int64(-1), .int64(0), .int64(.max), .double(-0.5), .double(1e300), .double(72.0),
            .string(""), .string("héllo \u{0} wörld"), .blob(Data()), .blob(Data([0, 255, 0, 1])),
        ]
        let read = try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (position INTEGER PRIMARY KEY, value)")
            for (position, value) in values.enumerated() {
                try db.cachedStatement(sql: "INSERT INTO t (position, value) VALUES (?, ?)").execute(arguments: [position, value])
            }
            return try Row.fetchAll(db, sql: "SELECT value FROM t ORDER BY position").map { $0.values[0] }
        }
        expectEqual(read, values)
    }

    @Test("a row's columns by name; an optional read of NULL is nil; one-column fetches")  // R: K1
    func rowsAndFetches() throws {
        let (queue, path) = try Self.open()
        defer { SQLiteStorageTests.removeDatabase(path) }
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE t (a INTEGER, b TEXT, c REAL, d BOOLEAN);
                INSERT INTO t VALUES (1, 'x', 2.5, 1);
                INSERT INTO t VALUES (2, NULL, 3, 0);
                """)
        }
        try queue.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM t ORDER BY a")
            expectEqual(rows.count, 2)
            expectEqual(rows[0]["a"] as Int64, 1)
            expectEqual(rows[0]["b"] as String, "x")
            expectEqual(rows[0]["c"] as Double, 2.5)
            expectEqual(rows[0]["d"] as Bool, true)
            expectEqual(rows[1]["b"] as String?, nil)
            expectEqual(rows[1]["c"] as Double, 3)
            expectEqual(rows[1]["d"] as Bool, false)
            expectEqual(rows[1]["missing"] as Int64?, nil)
            expectEqual(try Int64.fetchAll(db, sql: "SELECT a FROM t ORDER BY a DESC"), [2, 1])
            expectEqual(try String.fetchOne(db, sql: "SELECT b FROM t WHERE a = ?", arguments: [2]), nil)
            expectEqual(try Int64.fetchOne(db, sql: "SELECT MAX(a) FROM t WHERE a > 5"), nil)
            expectEqual(try String.fetchSet(db, sql: "SELECT 'y' UNION ALL SELECT 'y'"), ["y"])
            // A NULL where a value must be is an error, not a made-up value.
            expect((try? String.fetchAll(db, sql: "SELECT b FROM t ORDER BY a")) == nil)
            let cursor = try Row.fetchCursor(db, sql: "SELECT a FROM t ORDER BY a")
            var seen: [Int64] = []
            while let row = try cursor.next() { seen.append(row["a"]) }
            expectEqual(seen, [1, 2])
        }
    }

    @Test("several statements in one execute take their arguments in order; too few or too many is an error naming the SQL")  // R: K1
    func statementsAndArguments() throws {
        let (queue, path) = try Self.open()
        defer { SQLiteStorageTests.removeDatabase(path) }
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (?); INSERT INTO t VALUES (?), (?); -- done",
                           arguments: [1, 2, 3])
            expectEqual(try Int64.fetchAll(db, sql: "SELECT a FROM t ORDER BY a"), [1, 2, 3])
            for arguments: StatementArguments in [[], [1, 2]] {
                do {
                    try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: arguments)
                    Issue.record("\(arguments.values.count) arguments for one parameter were taken")
                } catch let error as DatabaseError {
                    expect(error.description.contains("INSERT INTO t VALUES (?)"), "\(error)")
                }
            }
            expectEqual(try Int64.fetchOne(db, sql: "SELECT count(*) FROM t"), 3)
            expect(!db.isInsideTransaction)
        }
    }

    @Test("a write that throws leaves nothing of itself; one that returns is committed")  // R: K1
    func transactions() throws {
        let (queue, path) = try Self.open()
        defer { SQLiteStorageTests.removeDatabase(path) }
        try queue.write { db in try db.execute(sql: "CREATE TABLE t (a INTEGER PRIMARY KEY)") }
        struct Stop: Error {}
        let stopped: Void? = try? queue.write { db in
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            throw Stop()
        }
        let refused: Void? = try? queue.write { db in
            try db.execute(sql: "INSERT INTO t VALUES (2)")
            try db.execute(sql: "INSERT INTO t VALUES (2)")  // the key is taken: SQLite's error
        }
        expect(stopped == nil && refused == nil)
        try queue.write { db in try db.execute(sql: "INSERT INTO t VALUES (3)") }
        let reopened = try DatabaseQueue(path: path)
        expectEqual(try reopened.read { db in try Int64.fetchAll(db, sql: "SELECT a FROM t") }, [3])
    }

    @Test("migrations run once each, in order, recorded where GRDB records them; a failed one is not recorded")  // R: K7
    func migrations() throws {
        let (queue, path) = try Self.open()
        defer { SQLiteStorageTests.removeDatabase(path) }
        var runs: [String] = []
        func migrator(failing: String? = nil) -> DatabaseMigrator {
            var migrator = DatabaseMigrator()
            for identifier in ["a", "b", "c"] {
                migrator.registerMigration(identifier) { db in
                    runs.append(identifier)
                    try db.execute(sql: "CREATE TABLE \(identifier) (x)")
                    if identifier == failing { try db.execute(sql: "not sql") }
                }
            }
            return migrator
        }
        try migrator().migrate(queue, upTo: "a")
        let failed: Void? = try? migrator(failing: "c").migrate(queue)
        expect(failed == nil)
        expectEqual(try queue.read { db in try migrator().appliedIdentifiers(db) }, ["a", "b"])
        expectEqual(try queue.read { db in try db.tableExists("c") }, false)
        try migrator().migrate(queue)
        try migrator().migrate(queue)
        expectEqual(runs, ["a", "b", "c", "c"])
        expectEqual(try queue.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier") }, ["a", "b", "c"])
    }
}
