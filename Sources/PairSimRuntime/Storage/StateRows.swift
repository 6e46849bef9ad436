import Foundation
import PairSimCore

/// One table's rows for a small state value (`StateTables`), so that a change writes only the rows
/// that differ from the last commit's (R: K7): a row gone is deleted, a row changed is updated
/// where it is, a row new is added after the others. Before, each value's tables were emptied and
/// written whole at every change — the WatchConnectivity queues, the export queue, the app's
/// defaults, background-delivery state and the watch's session among them (`pairsim-bench rows`
/// counts the rows both ways).
struct StateRows: Equatable {
    /// The table, and the rows of it that belong to this value (`WHERE scope`), if not all.
    var table: String
    var scope: (column: String, value: String)?
    /// The columns that identify a row.
    var key: [String]
    /// The column that orders the rows: new rows get one past the largest. nil: the table's own
    /// order (an autoincremented key).
    var order: String?
    /// Every column written, the key's first, `order` never.
    var columns: [String]
    var rows: [[DatabaseValue]]
    /// False when the rows are read back sorted by their key: their order here does not matter.
    var ordered = true

    static func == (a: StateRows, b: StateRows) -> Bool {
        a.table == b.table && a.scope?.column == b.scope?.column && a.scope?.value == b.scope?.value && a.key == b.key
            && a.order == b.order && a.columns == b.columns && a.rows == b.rows && a.ordered == b.ordered
    }

    /// Rows of a table that holds one row (`id = 1`), or none when `values` is nil.
    static func single(_ table: String, _ columns: [String], _ values: [DatabaseValueConvertible?]?) -> StateRows {
        StateRows(table: table, key: ["id"], columns: ["id"] + columns, rows: values.map { [1.databaseValue] + $0.map { $0?.databaseValue ?? .null } }.map { [$0] } ?? [])
    }

    /// Rows in the order given, identified by `key` (the first columns).
    static func keyed(_ table: String, key: [String], order: String?, _ columns: [String], _ rows: [[DatabaseValueConvertible?]],
                      scope: (column: String, value: String)? = nil, ordered: Bool = true) -> StateRows {
        StateRows(table: table, scope: scope, key: key, order: order, columns: columns,
                  rows: rows.map { $0.map { $0?.databaseValue ?? .null } }, ordered: ordered)
    }

    /// A list kept by position (`position`, 0, 1, …): a change rewrites the positions that differ.
    static func positional(_ table: String, _ columns: [String], _ rows: [[DatabaseValueConvertible?]]) -> StateRows {
        keyed(table, key: ["position"], order: nil, ["position"] + columns, rows.enumerated().map { [$0.offset] + $0.element })
    }

    // MARK: Writing

    private var scopeSQL: String { scope.map { " AND \($0.column) = ?" } ?? "" }
    private var scopeArguments: [DatabaseValue] { scope.map { [$0.value.databaseValue] } ?? [] }
    private func keyOf(_ row: [DatabaseValue]) -> [DatabaseValue] { Array(row.prefix(key.count)) }

    /// Writes these rows over `previous` (what the last commit wrote for the same value; nil:
    /// unknown, so the table's rows are replaced whole).
    func write(over previous: StateRows?, _ db: Database) throws {
        guard let previous, previous.table == table, previous.columns == columns, keepsOrder(of: previous) else {
            return try writeWhole(db)
        }
        let old = Dictionary(previous.rows.map { (keyOf($0), $0) }) { first, _ in first }
        let new = Set(rows.map(keyOf))
        let keyMatch = key.map { "\($0) = ?" }.joined(separator: " AND ")
        for row in previous.rows where !new.contains(keyOf(row)) {
            try db.cachedStatement(sql: "DELETE FROM \(table) WHERE \(keyMatch)\(scopeSQL)")
                .execute(arguments: StatementArguments(keyOf(row) + scopeArguments))
        }
        for row in rows {
            if let before = old[keyOf(row)] {
                guard before != row else { continue }
                let changed = columns.indices.dropFirst(key.count).filter { before[$0] != row[$0] }
                try db.execute(sql: "UPDATE \(table) SET \(changed.map { "\(columns[$0]) = ?" }.joined(separator: ", ")) WHERE \(keyMatch)\(scopeSQL)",
                               arguments: StatementArguments(changed.map { row[$0] } + keyOf(row) + scopeArguments))
            } else {
                try insert(row, db)
            }
        }
    }

    /// True when writing only the differences reads back these rows in this order: keys unique,
    /// the rows kept in the same relative order, and new rows after them (they are added last).
    private func keepsOrder(of previous: StateRows) -> Bool {
        let newKeys = rows.map(keyOf), oldKeys = previous.rows.map(keyOf)
        let new = Set(newKeys), old = Set(oldKeys)
        guard new.count == newKeys.count, old.count == oldKeys.count else { return false }
        guard ordered, key != ["position"] else { return true }
        guard oldKeys.filter(new.contains) == newKeys.filter(old.contains) else { return false }
        guard let firstNew = newKeys.firstIndex(where: { !old.contains($0) }) else { return true }
        return !newKeys[firstNew...].contains(where: old.contains)
    }

    private func writeWhole(_ db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM \(table)" + (scope.map { " WHERE \($0.column) = ?" } ?? ""))
            .execute(arguments: StatementArguments(scopeArguments))
        for row in rows { try insert(row, db) }
    }

    private func insert(_ row: [DatabaseValue], _ db: Database) throws {
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        if let order {
            let scopeWhere = scope.map { " WHERE \($0.column) = ?" } ?? ""
            try db.cachedStatement(sql: """
                INSERT INTO \(table) (\(columns.joined(separator: ", ")), \(order))
                VALUES (\(placeholders), (SELECT COALESCE(MAX(\(order)), -1) + 1 FROM \(table)\(scopeWhere)))
                """).execute(arguments: StatementArguments(row + scopeArguments))
        } else {
            try db.cachedStatement(sql: "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(placeholders))")
                .execute(arguments: StatementArguments(row))
        }
    }
}
