import PairSimCore
import Yams

/// Reads one YAML node with its key path, turning every problem into a `ConfigError`.
public struct YAMLReader {
    public let node: Node
    public let path: String
    public let file: String

    public init(node: Node, path: String, file: String) {
        self.node = node
        self.path = path
        self.file = file
    }

    /// Parses `text` and returns a reader for its root (an empty document is refused).
    public static func root(yaml text: String, file: String) throws(ConfigError) -> YAMLReader {
        let node: Node?
        do {
            node = try Yams.compose(yaml: text)
        } catch {
            throw ConfigError(file: file, line: Self.line(of: error), path: "", reason: "not valid YAML: \(Self.message(of: error))")
        }
        guard let node else { throw ConfigError(file: file, line: nil, path: "", reason: "the file is empty") }
        return YAMLReader(node: node, path: "", file: file)
    }

    static func line(of error: Error) -> Int? {
        if case YamlError.scanner(_, _, let mark, _) = error { return mark.line }
        if case YamlError.parser(_, _, let mark, _) = error { return mark.line }
        if case YamlError.composer(_, _, let mark, _) = error { return mark.line }
        return nil
    }

    static func message(of error: Error) -> String {
        switch error {
        case YamlError.scanner(_, let problem, _, _), YamlError.parser(_, let problem, _, _), YamlError.composer(_, let problem, _, _):
            return problem
        default:
            return "\(error)"
        }
    }

    /// A `ConfigError` at this node.
    public func error(_ reason: String) -> ConfigError {
        ConfigError(file: file, line: node.mark?.line, path: path, reason: reason)
    }

    func child(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    // MARK: Structure

    /// The mapping's entries; refuses keys not in `allowed` and missing `required` keys.
    public func mapping(allowed: [String], required: [String] = []) throws(ConfigError) -> [String: YAMLReader] {
        guard case .mapping(let mapping) = node else { throw error("expected a mapping (key: value), got \(kindName)") }
        var result: [String: YAMLReader] = [:]
        for (keyNode, value) in mapping {
            guard let key = keyNode.string else { throw error("keys must be strings") }
            let keyPath = child(key)
            guard allowed.contains(key) else {
                throw ConfigError(file: file, line: keyNode.mark?.line, path: keyPath,
                                  reason: "unknown key (allowed here: \(allowed.joined(separator: ", ")))")
            }
            guard result[key] == nil else {
                throw ConfigError(file: file, line: keyNode.mark?.line, path: keyPath, reason: "key appears twice")
            }
            result[key] = YAMLReader(node: value, path: keyPath, file: file)
        }
        for key in required where result[key] == nil {
            throw ConfigError(file: file, line: node.mark?.line, path: child(key), reason: "is required")
        }
        return result
    }

    /// A mapping of an app's own settings: any keys (at most 64, each at most 64 bytes), each a
    /// scalar — a whole number, a number, `true`/`false`, or text (quote it to keep it text).
    public func settings() throws(ConfigError) -> JSONObject {
        guard case .mapping(let mapping) = node else { throw error("expected a mapping (key: value), got \(kindName)") }
        guard mapping.count <= 64 else { throw error("at most 64 settings, got \(mapping.count)") }
        var result = JSONObject()
        for (keyNode, value) in mapping {
            guard let key = keyNode.string, !key.isEmpty, key.utf8.count <= 64 else { throw error("a setting's name is text of 1 to 64 bytes") }
            guard result[key] == nil else {
                throw ConfigError(file: file, line: keyNode.mark?.line, path: child(key), reason: "key appears twice")
            }
            guard case .scalar(let scalar) = value else {
                throw ConfigError(file: file, line: keyNode.mark?.line, path: child(key), reason: "a setting is a number, true/false or text")
            }
            let text = scalar.string
            if scalar.style == .singleQuoted || scalar.style == .doubleQuoted {
                result[key] = .string(text)
            } else if let number = Int64(text) {
                result[key] = .int(number)
            } else if let number = Double(text), number.isFinite {
                result[key] = .double(number)
            } else if text == "true" || text == "false" {
                result[key] = .bool(text == "true")
            } else {
                result[key] = .string(text)
            }
        }
        return result
    }

    /// The sequence's items.
    public func sequence() throws(ConfigError) -> [YAMLReader] {
        guard case .sequence(let sequence) = node else { throw error("expected a list, got \(kindName)") }
        return sequence.enumerated().map { YAMLReader(node: $1, path: "\(path)[\($0)]", file: file) }
    }

    public var isMapping: Bool { if case .mapping = node { true } else { false } }
    public var isSequence: Bool { if case .sequence = node { true } else { false } }

    var kindName: String {
        switch node {
        case .scalar(let scalar): "\"\(scalar.string)\""
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .alias: "an alias"
        }
    }

    // MARK: Scalars

    public func string() throws(ConfigError) -> String {
        guard case .scalar(let scalar) = node else { throw error("expected a text value, got \(kindName)") }
        return scalar.string
    }

    public func int(in range: ClosedRange<Int64>) throws(ConfigError) -> Int64 {
        let text = try string()
        guard let value = Int64(text) else { throw error("expected a whole number, got \"\(text)\"") }
        guard range.contains(value) else { throw error("must be between \(range.lowerBound) and \(range.upperBound), got \(value)") }
        return value
    }

    public func double(in range: ClosedRange<Double>) throws(ConfigError) -> Double {
        let text = try string()
        guard let value = Double(text), value.isFinite else { throw error("expected a number, got \"\(text)\"") }
        guard range.contains(value) else { throw error("must be between \(Self.show(range.lowerBound)) and \(Self.show(range.upperBound)), got \(text)") }
        return value
    }

    /// A probability in [0, 1].
    public func probability() throws(ConfigError) -> Double { try double(in: 0...1) }

    public func bool() throws(ConfigError) -> Bool {
        switch try string().lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        case let other: throw error("expected true or false, got \"\(other)\"")
        }
    }

    /// A duration: `250ms`, `5s`, `1.5m`, `2h`, `1d`, combinations like `1h30m`, or `0`.
    public func duration() throws(ConfigError) -> EmulatedDuration {
        let text = try string()
        guard let value = EmulatedDuration(parsing: text) else {
            throw error("bad duration \"\(text)\" (expected e.g. 250ms, 5s, 2m, 1h, 1d or 1h30m)")
        }
        return value
    }

    /// A duration, or nil for `off` / `none`.
    public func optionalDuration() throws(ConfigError) -> EmulatedDuration? {
        if let text = try? string(), ["off", "none", "never"].contains(text.lowercased()) { return nil }
        return try duration()
    }

    /// One of `choices`.
    public func choice(_ choices: [String]) throws(ConfigError) -> String {
        let text = try string()
        guard choices.contains(text) else { throw error("unknown value \"\(text)\" (expected one of: \(choices.joined(separator: ", ")))") }
        return text
    }

    static func show(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
