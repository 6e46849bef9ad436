import Foundation

/// A field that is missing or malformed, with its full path (`body.samples[3].uuid`).
public struct DecodeError: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
    public var description: String { "\(path): \(reason)" }
}

/// Reads typed fields from a JSON object, naming the path of anything wrong.
public struct FieldReader {
    public let object: JSONObject
    public let path: String

    public init(_ object: JSONObject, path: String) {
        self.object = object
        self.path = path
    }

    func at(_ key: String) -> String { "\(path).\(key)" }

    func required(_ key: String) throws(DecodeError) -> JSON {
        guard let value = object[key], value != .null else { throw DecodeError(path: at(key), reason: "is missing") }
        return value
    }

    /// Refuses any key but `known`: docs/PROTOCOL.md says every object's keys are the ones it
    /// lists, no other (R: K5). The key is quoted cut to 40 bytes.
    public func only(_ known: [String]) throws(DecodeError) {
        for member in object.members where !known.contains(member.key) {
            let shown = member.key.utf8.count > 40 ? String(decoding: member.key.utf8.prefix(40), as: UTF8.self) + "…" : member.key
            throw DecodeError(path: path, reason: "unknown key \"\(shown)\" (it takes \(known.joined(separator: ", ")))")
        }
    }

    public func has(_ key: String) -> Bool { object[key].map { $0 != .null } ?? false }

    public func string(_ key: String) throws(DecodeError) -> String {
        let value = try required(key)
        guard let text = value.stringValue else { throw DecodeError(path: at(key), reason: "expected a string, got \(value.kindName)") }
        return text
    }

    public func bool(_ key: String) throws(DecodeError) -> Bool {
        let value = try required(key)
        guard let flag = value.boolValue else { throw DecodeError(path: at(key), reason: "expected true or false, got \(value.kindName)") }
        return flag
    }

    public func optionalString(_ key: String) throws(DecodeError) -> String? {
        guard has(key) else { return nil }
        return try string(key)
    }

    public func int(_ key: String, min: Int64 = .min, max: Int64 = .max) throws(DecodeError) -> Int64 {
        let value = try required(key)
        guard let number = value.exactIntValue else {
            if case .double = value {
                throw DecodeError(path: at(key), reason: "expected an integer written without fraction or exponent, got a number written with one")
            }
            throw DecodeError(path: at(key), reason: "expected an integer, got \(JSONWriter.string(value).prefix(40))")
        }
        guard number >= min else { throw DecodeError(path: at(key), reason: "must be ≥ \(min), got \(number)") }
        guard number <= max else { throw DecodeError(path: at(key), reason: "must be ≤ \(max), got \(number)") }
        return number
    }

    public func double(_ key: String, min: Double = -.greatestFiniteMagnitude, max: Double = .greatestFiniteMagnitude) throws(DecodeError) -> Double {
        let value = try required(key)
        guard let number = value.doubleValue else { throw DecodeError(path: at(key), reason: "expected a number, got \(value.kindName)") }
        guard number >= min, number <= max else { throw DecodeError(path: at(key), reason: "must be within \(min)…\(max), got \(number)") }
        return number
    }

    public func optionalDouble(_ key: String, min: Double = -.greatestFiniteMagnitude, max: Double = .greatestFiniteMagnitude) throws(DecodeError) -> Double? {
        guard has(key) else { return nil }
        return try double(key, min: min, max: max)
    }

    /// The latest time the wire accepts (2^50 ms, about 35,700 years): far beyond any run, small
    /// enough that adding durations never overflows.
    public static let maxTime: Int64 = 1 << 50

    public func instant(_ key: String) throws(DecodeError) -> EmulatedInstant {
        EmulatedInstant(milliseconds: try int(key, min: 0, max: Self.maxTime))
    }

    /// A string of at most `maxBytes` UTF-8 bytes (and at least `minBytes`).
    public func string(_ key: String, minBytes: Int = 0, maxBytes: Int) throws(DecodeError) -> String {
        let text = try string(key)
        guard (minBytes...maxBytes).contains(text.utf8.count) else {
            throw DecodeError(path: at(key), reason: "must be \(minBytes) to \(maxBytes) bytes, got \(text.utf8.count)")
        }
        return text
    }

    public func uuid(_ key: String) throws(DecodeError) -> UUID {
        let text = try string(key)
        guard let uuid = UUID(text: text) else { throw DecodeError(path: at(key), reason: "invalid UUID \"\(text.prefix(40))\"") }
        return uuid
    }

    public func optionalUUID(_ key: String) throws(DecodeError) -> UUID? {
        guard has(key) else { return nil }
        return try uuid(key)
    }

    /// A source app name (1 to 24 bytes).
    public func source(_ key: String) throws(DecodeError) -> ObjectSource {
        let text = try string(key)
        guard let source = ObjectSource.parse(text) else {
            throw DecodeError(path: at(key), reason: "source name must be 1 to \(ObjectSource.maxNameBytes) bytes")
        }
        return source
    }

    public func object(_ key: String) throws(DecodeError) -> JSONObject {
        let value = try required(key)
        guard let object = value.objectValue else { throw DecodeError(path: at(key), reason: "expected an object, got \(value.kindName)") }
        return object
    }

    public func reader(_ key: String) throws(DecodeError) -> FieldReader {
        FieldReader(try object(key), path: at(key))
    }

    /// The array `key` (absent = empty), refusing more than `limit` items.
    public func array(_ key: String, limit: Int) throws(DecodeError) -> [JSON] {
        guard has(key) else { return [] }
        let value = try required(key)
        guard let items = value.arrayValue else { throw DecodeError(path: at(key), reason: "expected an array, got \(value.kindName)") }
        guard items.count <= limit else { throw DecodeError(path: at(key), reason: "\(items.count) items exceed the limit of \(limit)") }
        return items
    }

    /// Reads each element of array `key` as an object.
    public func objects<T>(_ key: String, limit: Int, _ read: (FieldReader) throws(DecodeError) -> T) throws(DecodeError) -> [T] {
        var result: [T] = []
        for (index, item) in try array(key, limit: limit).enumerated() {
            let itemPath = "\(at(key))[\(index)]"
            guard let object = item.objectValue else { throw DecodeError(path: itemPath, reason: "expected an object, got \(item.kindName)") }
            result.append(try read(FieldReader(object, path: itemPath)))
        }
        return result
    }
}

/// The keys docs/PROTOCOL.md lists for each object on the wire (R: K5): constants, so checking a
/// frame allocates nothing (a literal per call cost an allocation per acknowledgement).
public enum WireKeys {
    public static let message = ["id", "payload", "data", "reply", "settled"]
    public static let userinfo = ["id", "payload", "settled"]
    public static let context = ["payload", "settled"]
    public static let file = ["id", "name", "size", "metadata", "settled"]
    public static let reply = ["id", "payload", "data", "error", "settled"]
    public static let link = ["reachable", "stream", "settled"]
    public static let ack = ["upTo", "selective"]
    public static let envelope = ["v", "from", "stream", "seq", "sentAt", "channel", "kind", "body"]
    public static let series = ["type", "source", "uuids", "start", "end", "value"]
    public static let sample = ["uuid", "type", "start", "end", "value", "source"]
    public static let workout = ["uuid", "activity", "start", "end", "activeDuration", "activeEnergy", "source"]
    public static let record = ["id", "exercise", "start", "duration", "calories", "healthKitWorkoutID", "source"]
    public static let deleted = ["uuid", "type"]
    public static let objects = ["workouts", "samples", "series", "deleted"]
    public static let records = ["saved", "deleted"]
}
