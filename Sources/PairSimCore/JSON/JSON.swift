/// A JSON value. PairSim writes and reads its own JSON so that key order is fixed (byte-identical
/// logs for a seed), errors say exactly where a frame is wrong, and hostile input has hard limits.
public enum JSON: Hashable, Sendable {
    case null
    case bool(Bool)
    /// A number written without fraction or exponent that fits in 64 bits.
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object(JSONObject)

    /// The member `key` of an object, or nil.
    public subscript(key: String) -> JSON? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// A short name of the value's kind, for error messages.
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .int, .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

/// A JSON object that keeps its members in insertion order.
public struct JSONObject: Hashable, Sendable, ExpressibleByDictionaryLiteral {
    /// The members in order.
    public private(set) var members: [(key: String, value: JSON)] = []

    public init() {}
    public init(dictionaryLiteral elements: (String, JSON)...) {
        // Room for them all at once: most events' fields are a literal, and growing the members
        // one by one reallocated them two or three times (~1.5 % of a simulated week, perf).
        members.reserveCapacity(elements.count)
        for (key, value) in elements { self[key] = value }
    }

    /// Looks a member up (linear: objects here are small); setting nil removes it.
    public subscript(key: String) -> JSON? {
        get { members.first(where: { $0.key == key })?.value }
        set {
            if let index = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append((key, newValue))
            }
        }
    }

    /// Makes room for `count` members in all.
    public mutating func reserveCapacity(_ count: Int) { members.reserveCapacity(count) }

    /// Appends without looking for an existing key (the parser and hot paths use this).
    public mutating func append(_ key: String, _ value: JSON) {
        members.append((key, value))
    }

    public var count: Int { members.count }
    public var keys: [String] { members.map(\.key) }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count
            && zip(lhs.members, rhs.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for member in members {
            hasher.combine(member.key)
            hasher.combine(member.value)
        }
    }
}

extension JSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByFloatLiteral, ExpressibleByArrayLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }
}

extension JSON {
    /// `.string(value)` or `.null`.
    public static func optional(_ value: String?) -> JSON { value.map(JSON.string) ?? .null }

    /// The value as Int64 if it is an integer (or a double with no fraction).
    public var intValue: Int64? {
        switch self {
        case .int(let v): v
        case .double(let d) where d.rounded() == d && abs(d) < 9.0e18: Int64(d)
        default: nil
        }
    }

    /// The value as Int64 only if it was written as an integer (`1`, not `1.0` or `1e0`): what the
    /// wire's "integer" fields take.
    public var exactIntValue: Int64? { if case .int(let v) = self { v } else { nil } }

    /// The value as Double if it is a number.
    public var doubleValue: Double? {
        switch self {
        case .int(let v): Double(v)
        case .double(let d): d
        default: nil
        }
    }

    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var arrayValue: [JSON]? { if case .array(let a) = self { a } else { nil } }
    public var objectValue: JSONObject? { if case .object(let o) = self { o } else { nil } }
}
