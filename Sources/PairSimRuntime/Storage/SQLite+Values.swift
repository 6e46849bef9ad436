import Foundation

// The values the node database's SQLite layer (SQLite.swift) binds and reads: what SQLite stores,
// the Swift types that convert to and from it, statement arguments and rows.

/// A value as SQLite stores it.
enum DatabaseValue: Hashable, CustomStringConvertible {
    case null
    case int64(Int64)
    case double(Double)
    case string(String)
    case blob(Data)

    var isNull: Bool { self == .null }

    var description: String {
        switch self {
        case .null: "NULL"
        case .int64(let value): String(value)
        case .double(let value): "\(value)"
        case .string(let value): "\"\(value)\""
        case .blob(let data): "Data(\(data.count) bytes: \(data.map { String(format: "%02x", $0) }.joined()))"
        }
    }
}

/// A Swift value SQLite can store, and read back (nil: the stored value is not one).
protocol DatabaseValueConvertible {
    var databaseValue: DatabaseValue { get }
    static func fromDatabaseValue(_ value: DatabaseValue) -> Self?
}

extension DatabaseValue: DatabaseValueConvertible {
    var databaseValue: DatabaseValue { self }
    static func fromDatabaseValue(_ value: DatabaseValue) -> DatabaseValue? { value }
}

extension Int64: DatabaseValueConvertible {
    var databaseValue: DatabaseValue { .int64(self) }
    static func fromDatabaseValue(_ value: DatabaseValue) -> Int64? {
        switch value {
        case .int64(let value): value
        case .double(let value): Int64(exactly: value)
        default: nil
        }
    }
}

extension Int: DatabaseValueConvertible {
    var databaseValue: DatabaseValue { .int64(Int64(self)) }
    static func fromDatabaseValue(_ value: DatabaseValue) -> Int? { Int64.fromDatabaseValue(value).flatMap { Int(exactly: $0) } }
}

extension Bool: DatabaseValueConvertible {
    var databaseValue: DatabaseValue { .int64(self ? 1 : 0) }
    static func fromDatabaseValue(_ value: DatabaseValue) -> Bool? {
        switch value {
        case .int64(let value): value != 0
        case .double(let value): value != 0
        default: nil
        }
    }
}

extension Double: DatabaseValueConvertible {
    var databaseValue: DatabaseValue { .double(self) }
    static func fromDatabaseValue(_ value: DatabaseValue) -> Double? {
        switch value {
        case .int64(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }
}

extension String: DatabaseValueConvertible {
    var databaseValue: DatabaseValue { .string(self) }
    static func fromDatabaseValue(_ value: DatabaseValue) -> String? {
        switch value {
        case .string(let value): value
        case .blob(let data): String(data: data, encoding: .utf8)
        default: nil
        }
    }
}

extension Data: DatabaseValueConvertible {
    var databaseValue: DatabaseValue { .blob(self) }
    static func fromDatabaseValue(_ value: DatabaseValue) -> Data? {
        switch value {
        case .blob(let data): data
        case .string(let text): Data(text.utf8)
        default: nil
        }
    }
}

/// The values bound to a statement's `?`s, in order (nil: NULL).
struct StatementArguments: ExpressibleByArrayLiteral {
    var values: [DatabaseValue]

    init(arrayLiteral elements: (any DatabaseValueConvertible)?...) { values = elements.map { $0?.databaseValue ?? .null } }
    init(_ values: some Sequence<DatabaseValue>) { self.values = Array(values) }
}

/// One row of a query's result, its values by column name.
struct Row: CustomStringConvertible {
    let columns: [String]
    let values: [DatabaseValue]

    private func value(_ column: String) -> DatabaseValue? {
        columns.firstIndex(of: column).map { values[$0] }
    }

    /// The column's value. A column the query did not select, a NULL, or a value of another kind
    /// is a programming error here (as in GRDB): the schema says what each column holds.
    subscript<Value: DatabaseValueConvertible>(_ column: String) -> Value {
        guard let stored = value(column) else { fatalError("no column \(column) in row \(self)") }
        guard let value = Value.fromDatabaseValue(stored) else { fatalError("column \(column) holds \(stored), not a \(Value.self)") }
        return value
    }

    /// The column's value; nil when it is NULL or not selected.
    subscript<Value: DatabaseValueConvertible>(_ column: String) -> Value? {
        guard let stored = value(column), !stored.isNull else { return nil }
        guard let value = Value.fromDatabaseValue(stored) else { fatalError("column \(column) holds \(stored), not a \(Value.self)") }
        return value
    }

    var description: String {
        "[" + zip(columns, values).map { "\($0):\($1)" }.joined(separator: " ") + "]"
    }
}
