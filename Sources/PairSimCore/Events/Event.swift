/// Something worth seeing happened: the unit of every log, report and expectation.
///
/// Core types return events as actions; only the runtime or simulator writes them out.
public struct Event: Hashable, Sendable {
    /// How loudly to show it.
    public enum Level: String, Hashable, Sendable {
        case info, warning, error
    }

    /// Emulated time of the event.
    public var at: EmulatedInstant
    /// The node it happened on.
    public var node: NodeName
    /// Stable dotted name, documented in docs/EVENTS.md (e.g. `hk.saved`).
    public var name: String
    /// Named values, in a fixed order.
    public var fields: JSONObject
    public var level: Level
    /// Logged by the app under test (through PairSimKit), not by the platform (R: A1).
    public var byApp: Bool

    /// Keys of a log line's own (`t`, `time`, `node`, `event`, `by`, `level`); no field may use them.
    public static let reservedKeys: Set<String> = ["t", "time", "node", "event", "by", "level"]

    public init(at: EmulatedInstant, node: NodeName, name: String, level: Level = .info, fields: JSONObject = [:], byApp: Bool = false) {
        self.at = at
        self.node = node
        self.name = byApp ? Self.bounded(name, Self.maxAppNameBytes) : name
        self.fields = byApp ? Self.appFields(fields) : fields
        self.level = level
        self.byApp = byApp
    }

    /// An app's fields made safe for a log line: a reserved key gets a leading `_` (`by` → `_by`),
    /// and of two fields with one name the later wins. Without this an app's `by` field made a line
    /// with two `by` keys, which readers refuse (duplicate keys) or misread.
    static func appFields(_ fields: JSONObject) -> JSONObject {
        // Cut so that the marker keeps the total at the limit: reading the line back cuts nothing.
        let cut = fields.count > maxAppFields
        var safe = JSONObject()
        for member in fields.members.prefix(cut ? maxAppFields - 1 : maxAppFields) {
            let key = bounded(member.key, maxAppNameBytes)
            safe[reservedKeys.contains(key) ? "_" + key : key] = bounded(member.value, depth: 0)
        }
        if cut { safe["_truncated"] = .string("\(fields.count - maxAppFields + 1) more field(s)") }
        return safe
    }

    /// What an app may put in one event; beyond it the line is cut, saying so, so that an app
    /// logging a megabyte cannot make an unbounded log line.
    public static let maxAppFields = 64
    public static let maxAppNameBytes = 128
    public static let maxAppStringBytes = 4_096
    public static let maxAppListItems = 256
    static let maxAppDepth = 4

    static func bounded(_ value: JSON, depth: Int) -> JSON {
        switch value {
        case .string(let text): return .string(bounded(text, maxAppStringBytes))
        case .array(let items):
            guard depth < maxAppDepth else { return .string("(nested deeper than \(maxAppDepth))") }
            guard items.count > maxAppListItems else { return .array(items.map { bounded($0, depth: depth + 1) }) }
            return .array(items.prefix(maxAppListItems - 1).map { bounded($0, depth: depth + 1) }
                          + [.string("… \(items.count - maxAppListItems + 1) more")])
        case .object(let object):
            guard depth < maxAppDepth else { return .string("(nested deeper than \(maxAppDepth))") }
            let cut = object.count > maxAppFields
            var kept = JSONObject()
            for member in object.members.prefix(cut ? maxAppFields - 1 : maxAppFields) {
                kept[bounded(member.key, maxAppNameBytes)] = bounded(member.value, depth: depth + 1)
            }
            if cut { kept["_truncated"] = .string("\(object.count - maxAppFields + 1) more field(s)") }
            return .object(kept)
        default: return value
        }
    }

    /// `text` cut to at most `limit` UTF-8 bytes (at a character boundary), marked when cut.
    static func bounded(_ text: String, _ limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var kept = "", bytes = 0
        for character in text {
            bytes += character.utf8.count
            if bytes > limit - 24 { break }
            kept.append(character)
        }
        return kept + "…(\(text.utf8.count) bytes)"
    }

    /// The field `key`, if present.
    public subscript(key: String) -> JSON? { fields[key] }
}

extension Event {
    /// One JSON line (no newline): `{"t":…,"time":"…","node":"phone","event":"hk.saved",…fields}`.
    public var jsonLine: [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(128)
        writeJSONLine(into: &line)
        return line
    }

    /// Appends `jsonLine` to `out`: the same bytes `JSONWriter` writes for the line's object,
    /// written straight into the log. (Building that object and a line of its own for every
    /// event was ~3 % of `pairsim-bench simulate`, which writes each simulated week's log; perf.)
    public func writeJSONLine(into out: inout [UInt8]) {
        JSONWriter.writeRaw(#"{"t":"#, into: &out)
        JSONWriter.writeInt(at.milliseconds, into: &out)
        JSONWriter.writeRaw(#","time":""#, into: &out)
        at.writeDescription(into: &out) // digits, ':', '.', 'd', ' ' and '-': nothing to escape
        out.append(UInt8(ascii: "\""))
        JSONWriter.writeRaw(#","node":"#, into: &out)
        JSONWriter.writeString(node.rawValue, into: &out)
        JSONWriter.writeRaw(#","event":"#, into: &out)
        JSONWriter.writeString(name, into: &out)
        if byApp { JSONWriter.writeRaw(#","by":"app""#, into: &out) }
        if level != .info {
            JSONWriter.writeRaw(#","level":"#, into: &out)
            JSONWriter.writeString(level.rawValue, into: &out)
        }
        for member in fields.members {
            out.append(UInt8(ascii: ","))
            JSONWriter.writeString(member.key, into: &out)
            out.append(UInt8(ascii: ":"))
            JSONWriter.write(member.value, into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Reads back a line written by `jsonLine`.
    public init(jsonLine: [UInt8]) throws(JSONError) {
        guard case .object(let object) = try JSONParser().parse(jsonLine),
              let t = object["t"]?.intValue,
              let nodeText = object["node"]?.stringValue, let node = NodeName(rawValue: nodeText),
              let name = object["event"]?.stringValue
        else { throw JSONError(offset: 0, reason: "not an event line (needs t, node, event)") }
        var fields = JSONObject()
        for member in object.members where !Event.reservedKeys.contains(member.key) {
            fields.append(member.key, member.value)
        }
        let level = object["level"]?.stringValue.flatMap(Level.init(rawValue:)) ?? .info
        self.init(at: EmulatedInstant(milliseconds: t), node: node, name: name, level: level, fields: fields,
                  byApp: object["by"]?.stringValue == "app")
    }

    /// The readable form: `00:02:03.450 hk.saved uuid=… kind=workout`; the app's own events read
    /// `00:02:03.450 app› coordinator.refresh source=foreground`.
    public var humanLine: String {
        var text = byApp ? "\(at) app› \(name)" : "\(at) \(name)"
        for member in fields.members {
            text += " \(member.key)=\(Event.humanValue(member.value))"
        }
        return text
    }

    public static func humanValue(_ value: JSON) -> String {
        switch value {
        case .string(let raw):
            // Control characters shown, never sent to the terminal (an escape sequence in an
            // imported name, a line feed splitting the line).
            let s = Event.visible(raw)
            return s.contains(" ") || s.isEmpty ? "\"\(s)\"" : s
        case .null: return "-"
        case .double(let d): return d.rounded() == d ? String(Int64(d)) : String(format1(d))
        default: return JSONWriter.string(value)
        }
    }

    /// `text` with control characters (below U+0020, and U+007F) written as `\u{1B}`.
    public static func visible(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func format1(_ value: Double) -> String {
        value.roundedToTenth.description
    }
}
