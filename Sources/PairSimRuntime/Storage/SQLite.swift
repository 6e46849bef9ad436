import CSQLite
import Foundation

// SQLite through its C API (Debian's libsqlite3, which the faulty disk already links), with the
// names of the part of GRDB's API the node database used: `DatabaseQueue`, `Database`, `Row`,
// `DatabaseValue`, `StatementArguments`, `DatabaseMigrator` (SQLite+Migrator.swift). Files
// written by GRDB open as before: the migrations are recorded in GRDB's own table,
// `grdb_migrations`, the way GRDB records them.
//
// Why not GRDB any more (measured on 2 cores, a fresh clone's CI build, stop 48): compiling GRDB
// took 43 s of the build's 372 s of compiler CPU, more than any module but PairSimCore, for the
// ~40 calls this storage makes. Nothing else in PairSim uses it.

/// An SQLite error: its extended result code, SQLite's message, and the statement.
struct DatabaseError: Error, CustomStringConvertible {
    var code: Int32
    var message: String
    var sql: String?

    var description: String { "SQLite error \(code): \(message)" + (sql.map { " - while executing `\($0)`" } ?? "") }
}

/// A prepared statement.
final class Statement {
    let handle: OpaquePointer
    let sql: String
    private unowned let database: Database

    fileprivate init(_ database: Database, sql: String) throws {
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v2(database.handle, sql, -1, &handle, nil)
        guard code == SQLITE_OK, let handle else { throw database.error(code, sql: sql) }
        self.handle = handle
        self.sql = sql
        self.database = database
    }

    fileprivate init(_ database: Database, handle: OpaquePointer, sql: String) {
        (self.database, self.handle, self.sql) = (database, handle, sql)
    }

    deinit { sqlite3_finalize(handle) }

    /// Runs the statement to its end with these arguments.
    func execute(arguments: StatementArguments = []) throws {
        try bind(arguments)
        defer { sqlite3_reset(handle) }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else { throw database.error(code, sql: sql) }
        }
    }

    fileprivate func bind(_ arguments: StatementArguments) throws {
        columns = nil
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        let count = Int(sqlite3_bind_parameter_count(handle))
        guard count == arguments.values.count else {
            throw DatabaseError(code: SQLITE_MISUSE, message: "\(arguments.values.count) arguments for \(count) parameters", sql: sql)
        }
        for (offset, value) in arguments.values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    /// SQLite copies what it is given (SQLITE_TRANSIENT).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private func bind(_ value: DatabaseValue, at index: Int32) throws {
        let code: Int32
        switch value {
        case .null: code = sqlite3_bind_null(handle, index)
        case .int64(let value): code = sqlite3_bind_int64(handle, index, value)
        case .double(let value): code = sqlite3_bind_double(handle, index, value)
        case .string(let text):
            code = text.withCString { sqlite3_bind_text(handle, index, $0, Int32(text.utf8.count), Self.transient) }
        case .blob(let data):
            code = data.isEmpty ? sqlite3_bind_zeroblob(handle, index, 0)
                : data.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), Self.transient) }
        }
        guard code == SQLITE_OK else { throw database.error(code, sql: sql) }
    }

    /// The next row, or nil at the end (the statement is then reset).
    fileprivate func step() throws -> Row? {
        let code = sqlite3_step(handle)
        if code == SQLITE_DONE {
            sqlite3_reset(handle)
            return nil
        }
        guard code == SQLITE_ROW else {
            sqlite3_reset(handle)
            throw database.error(code, sql: sql)
        }
        let count = sqlite3_column_count(handle)
        if columns == nil { columns = (0..<count).map { String(cString: sqlite3_column_name(handle, $0)) } }
        var values: [DatabaseValue] = []
        values.reserveCapacity(Int(count))
        for index in 0..<count { values.append(column(index)) }
        return Row(columns: columns!, values: values)
    }

    /// The result's column names, read at its first row and shared by every row of the run
    /// (a table's rows are read by the thousand when a node starts).
    private var columns: [String]?

    private func column(_ index: Int32) -> DatabaseValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .int64(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT: return .double(sqlite3_column_double(handle, index))
        case SQLITE_TEXT:
            let bytes = sqlite3_column_text(handle, index)
            let count = Int(sqlite3_column_bytes(handle, index))
            return .string(bytes.map { String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self) } ?? "")
        case SQLITE_BLOB:
            let bytes = sqlite3_column_blob(handle, index)
            let count = Int(sqlite3_column_bytes(handle, index))
            return .blob(bytes.map { Data(bytes: $0, count: count) } ?? Data())
        default: return .null
        }
    }
}

/// What a statement is kept under when its text is made (`Database.cachedStatement(_:sql:)`):
/// a type, and which of that type's statements.
struct StatementKey: Hashable {
    var type: ObjectIdentifier
    var variant: Int
}

/// Rows read one at a time (a big table is never held whole).
final class RowCursor {
    private let statement: Statement

    fileprivate init(_ statement: Statement) { self.statement = statement }

    func next() throws -> Row? { try statement.step() }
}

/// One connection to a database file.
final class Database {
    fileprivate let handle: OpaquePointer
    private var cached: [String: Statement] = [:]
    private var cachedByKey: [StatementKey: Statement] = [:]

    fileprivate init(path: String) throws {
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(handle)
            throw DatabaseError(code: code, message: message)
        }
        sqlite3_extended_result_codes(handle, 1)
        self.handle = handle
    }

    fileprivate func close() {
        cached.removeAll()
        cachedByKey.removeAll()
        sqlite3_close_v2(handle)
    }

    fileprivate func error(_ code: Int32, sql: String?) -> DatabaseError {
        DatabaseError(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }

    /// Runs every statement in `sql`, one after the other; `arguments` fill their `?`s in order.
    func execute(sql: String, arguments: StatementArguments = []) throws {
        var remaining = arguments.values[...]
        try sql.withCString { start in
            var next: UnsafePointer<CChar>? = start
            while let current = next, current.pointee != 0 {
                var handle: OpaquePointer?
                let code = sqlite3_prepare_v2(self.handle, current, -1, &handle, &next)
                guard code == SQLITE_OK else { throw error(code, sql: sql) }
                guard let handle else { continue }  // only blanks or a comment left
                let statement = Statement(self, handle: handle, sql: sql)
                let count = Int(sqlite3_bind_parameter_count(handle))
                guard count <= remaining.count else {
                    throw DatabaseError(code: SQLITE_MISUSE, message: "\(arguments.values.count) arguments are too few", sql: sql)
                }
                // The last statement (only blanks after it) takes every argument left, checked before it runs.
                var rest = next
                while let byte = rest?.pointee, byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D || byte == 0x3B { rest! += 1 }
                if rest?.pointee ?? 0 == 0, count != remaining.count {
                    throw DatabaseError(code: SQLITE_MISUSE, message: "\(arguments.values.count) arguments are too many", sql: sql)
                }
                try statement.execute(arguments: StatementArguments(remaining.prefix(count)))
                remaining = remaining.dropFirst(count)
            }
        }
        guard remaining.isEmpty else {
            throw DatabaseError(code: SQLITE_MISUSE, message: "\(arguments.values.count) arguments are too many", sql: sql)
        }
    }

    /// The statement prepared once for this connection and kept (for statements run every turn).
    func cachedStatement(sql: String) throws -> Statement {
        if let statement = cached[sql] { return statement }
        let statement = try Statement(self, sql: sql)
        cached[sql] = statement
        return statement
    }

    /// The statement kept under `key`, prepared from `sql()` the first time: a statement whose text
    /// is made from parts (a record type's insert) is looked up without making the text again.
    func cachedStatement(_ key: StatementKey, sql: () -> String) throws -> Statement {
        if let statement = cachedByKey[key] { return statement }
        let statement = try Statement(self, sql: sql())
        cachedByKey[key] = statement
        return statement
    }

    /// A statement's rows, one at a time.
    fileprivate func rows(_ sql: String, _ arguments: StatementArguments) throws -> RowCursor {
        let statement = try Statement(self, sql: sql)
        try statement.bind(arguments)
        return RowCursor(statement)
    }

    /// Rows inserted, updated or deleted since the connection opened.
    var totalChangesCount: Int { Int(sqlite3_total_changes64(handle)) }

    var isInsideTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    func tableExists(_ name: String) throws -> Bool {
        try Int64.fetchOne(self, sql: "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", arguments: [name]) != nil
    }

    /// Runs `body` in a transaction begun with `begin`: committed when it returns, rolled back when it throws.
    /// (The queue's transactions, and each migration's, SQLite+Migrator.swift.)
    func inTransaction<T>(_ begin: String, _ body: (Database) throws -> T) throws -> T {
        try execute(sql: begin)
        do {
            let result = try body(self)
            try execute(sql: "COMMIT")
            return result
        } catch {
            if isInsideTransaction { try? execute(sql: "ROLLBACK") }
            throw error
        }
    }
}

extension Row {
    static func fetchCursor(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> RowCursor {
        try db.rows(sql, arguments)
    }

    static func fetchAll(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> [Row] {
        let cursor = try db.rows(sql, arguments)
        var rows: [Row] = []
        while let row = try cursor.next() { rows.append(row) }
        return rows
    }

    static func fetchOne(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> Row? {
        try db.rows(sql, arguments).next()
    }
}

extension DatabaseValueConvertible {
    /// The first column of every row. A NULL, or a value of another kind, is an error.
    static func fetchAll(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> [Self] {
        try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
            guard let value = row.values.first.flatMap(Self.fromDatabaseValue) else {
                throw DatabaseError(code: SQLITE_MISMATCH, message: "\(row) is not a \(Self.self)", sql: sql)
            }
            return value
        }
    }

    static func fetchSet(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> Set<Self> where Self: Hashable {
        Set(try fetchAll(db, sql: sql, arguments: arguments))
    }

    /// The first column of the first row; nil when there is no row or it is NULL.
    static func fetchOne(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> Self? {
        guard let row = try Row.fetchOne(db, sql: sql, arguments: arguments), let stored = row.values.first, !stored.isNull else { return nil }
        guard let value = Self.fromDatabaseValue(stored) else {
            throw DatabaseError(code: SQLITE_MISMATCH, message: "\(row) is not a \(Self.self)", sql: sql)
        }
        return value
    }
}

/// A connection used by one caller at a time (a lock; calls must not nest).
final class DatabaseQueue: @unchecked Sendable {
    private let database: Database
    private let lock = NSLock()
    private var closed = false

    init(path: String) throws {
        database = try Database(path: path)
    }

    deinit { if !closed { database.close() } }

    func close() throws {
        lock.withLock {
            guard !closed else { return }
            closed = true
            database.close()
        }
    }

    /// `body` in a transaction that only reads (one consistent view of the file).
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try lock.withLock { try database.inTransaction("BEGIN DEFERRED", body) }
    }

    /// `body` in one transaction, begun at once (`IMMEDIATE`), committed when it returns.
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        try lock.withLock { try database.inTransaction("BEGIN IMMEDIATE", body) }
    }

    /// `body` with the connection as it is: each statement commits alone unless `body` begins a transaction.
    func writeWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        try lock.withLock { try body(database) }
    }
}
