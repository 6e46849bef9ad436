import Foundation

/// The `wc-…` commands both nodes take (docs/COMMANDS.md): what the app on that side would call,
/// typed by a person or a scenario. Replies and failures of what they send show as events.
extension WCSessionCore {
    public static let commands: [CommandSpec] = [
        CommandSpec("wc-send", "<json-object> [--no-reply] | <text> --data [--no-reply]",
                    "WCSession.sendMessage (sendMessageData with --data: the text's UTF-8 bytes): needs the counterpart reachable; refused with notReachable otherwise; the reply (or error) is a wc.replied / wc.failed event"),
        CommandSpec("wc-transfer", "<json-object>", "WCSession.transferUserInfo: queued (FIFO, kept across restarts) until the counterpart device has it"),
        CommandSpec("wc-file", "<name> [--size BYTES] [--metadata JSON]",
                    "WCSession.transferFile: a file of --size bytes (default 1000) travels at the topology's fileRate"),
        CommandSpec("wc-context", "<json-object>", "WCSession.updateApplicationContext: only the latest is kept and delivered"),
        CommandSpec("wc-cancel", "<transfer-id>", "cancel an outstanding transfer still waiting in the queue"),
        CommandSpec("wc-status", "[--json]", "activation, reachability, outstanding transfers, contexts, waiting deliveries, counters"),
    ]

    /// Largest payload `wc-…` and the app may send (bytes of its JSON): Apple documents no number
    /// for messages; PairSim keeps a message inside one wire envelope.
    public static let maxPayloadBytes = 65_536

    /// Deepest nesting a payload may have: the wire refuses JSON deeper than 32 levels, and the
    /// envelope and its body are two of them.
    public static let maxPayloadDepth = 30

    /// Room an envelope needs besides its payload (ids, stream, the body's other members).
    static let envelopeOverhead = 1_024

    /// Why `payload` cannot travel (too large for PairSim's limit or the topology's wire, or too
    /// deep), or nil.
    public static func payloadProblem(_ payload: JSONObject, wire: WireLimits) -> String? {
        func depth(_ value: JSON) -> Int {
            switch value {
            case .object(let object): 1 + (object.members.map { depth($0.value) }.max() ?? 0)
            case .array(let items): 1 + (items.map(depth).max() ?? 0)
            default: 0
            }
        }
        let bytes = JSONWriter.bytes(.object(payload)).count
        let limit = min(maxPayloadBytes, wire.maxEnvelopeBytes - envelopeOverhead)
        if bytes > limit { return "\(bytes) bytes; at most \(limit)" + (limit < maxPayloadBytes ? " (wire.maxEnvelopeBytes)" : "") }
        let levels = depth(.object(payload))
        if levels > maxPayloadDepth { return "nested \(levels) levels deep; at most \(maxPayloadDepth)" }
        return nil
    }

    /// Where `value` holds a JSON null (not a property-list type), as a path like `a.b[2]`, or nil.
    static func nullPath(_ value: JSON, at path: String = "") -> String? {
        switch value {
        case .null: return path.isEmpty ? "the top" : path
        case .object(let object):
            for member in object.members { if let found = nullPath(member.value, at: path.isEmpty ? member.key : path + "." + member.key) { return found } }
            return nil
        case .array(let items):
            for (index, item) in items.enumerated() { if let found = nullPath(item, at: path + "[\(index)]") { return found } }
            return nil
        default: return nil
        }
    }

    /// A JSON object argument, refused clearly when it is not one.
    static func payload(_ text: String, verb: String, what: String = "the payload", wire: WireLimits) throws(CommandError) -> JSONObject {
        let json: JSON
        do { json = try JSONParser().parse(text) } catch {
            throw CommandError("\(verb): \(what) must be a JSON object, e.g. '{\"event\":\"hello\"}' (\(error))")
        }
        guard let object = json.objectValue else {
            throw CommandError("\(verb): \(what) must be a JSON object, got \(json.kindName)")
        }
        if let problem = payloadProblem(object, wire: wire) { throw CommandError("\(verb): payloadTooLarge: \(what) is \(problem)") }
        if let path = nullPath(.object(object)) {
            throw CommandError("\(verb): payloadUnsupportedTypes: \(what) holds null at \(path); WatchConnectivity takes property-list types only "
                + "(strings, numbers, booleans, arrays, objects; a date as {\"$date\": seconds}, data as {\"$data\": base64})")
        }
        return object
    }

    /// Runs a `wc-…` command. `newID` names what it sends.
    mutating func command(_ line: ParsedCommand, sync: inout SyncEngine, newID: String,
                          now: EmulatedInstant) throws(CommandError) -> CommandResult {
        let spec = try CommandGrammar.spec(for: line.verb, in: Self.commands, node: node)
        let args = ArgumentReader(line, spec)
        switch line.verb {
        case "wc-send":
            try args.expect(1...1, flags: ["no-reply", "data"])
            let isData = line.options["data"] != nil
            let payload: JSONObject
            if isData {
                let bytes = Data(line.arguments[0].utf8)
                guard bytes.count <= Self.maxPayloadBytes else {
                    throw CommandError("wc-send: \(bytes.count) bytes of data; at most \(Self.maxPayloadBytes)")
                }
                payload = ["data": .string(bytes.base64EncodedString())]
            } else {
                payload = try Self.payload(line.arguments[0], verb: line.verb, wire: sync.limits)
            }
            let id = newID
            let (error, actions) = sendMessage(payload, wantsReply: line.options["no-reply"] == nil, appID: nil, id: id, isData: isData, sync: &sync, now: now)
            if let error { return CommandResult(ok: false, reply: "wc-send: \(error.rawValue)\(error == .notReachable ? ": the counterpart app is not reachable" : "")", actions: actions) }
            return CommandResult(ok: true, reply: "sent message \(id)", actions: actions)
        case "wc-transfer", "wc-file":
            try requireActivated(line.verb)
            var transfer = WCTransfer(id: newID, kind: .userinfo, payload: [:], file: nil, createdAt: now)
            if line.verb == "wc-transfer" {
                try args.expect(1...1)
                transfer.payload = try Self.payload(line.arguments[0], verb: line.verb, wire: sync.limits)
            } else {
                try args.expect(1...1, options: ["size", "metadata"])
                let name = line.arguments[0]
                guard (1...WCBody.maxNameBytes).contains(name.utf8.count), !name.contains("/") else {
                    throw CommandError("wc-file: a file name is 1 to \(WCBody.maxNameBytes) bytes without '/', got \"\(name.prefix(40))\"")
                }
                var size = 1000
                if let text = line.options["size"] {
                    guard let value = Int(text), (0...WCFile.maxSize).contains(value) else {
                        throw CommandError("wc-file: --size must be a whole number of bytes in 0…\(WCFile.maxSize), got \"\(text)\"")
                    }
                    size = value
                }
                transfer.kind = .file
                transfer.file = WCFile(name: name, size: size)
                if let metadata = line.options["metadata"] { transfer.payload = try Self.payload(metadata, verb: line.verb, what: "--metadata", wire: sync.limits) }
            }
            let actions = self.transfer(transfer, sync: &sync, now: now)
            return CommandResult(ok: true, reply: "queued \(transfer.kind.rawValue) \(transfer.id) (\(outgoing.count) outstanding)", actions: actions)
        case "wc-context":
            try args.expect(1...1)
            try requireActivated(line.verb)
            let payload = try Self.payload(line.arguments[0], verb: line.verb, wire: sync.limits)
            return CommandResult(ok: true, reply: "application context updated (\(payload.count) keys)",
                                 actions: updateContext(payload, sync: &sync, now: now))
        case "wc-cancel":
            try args.expect(1...1)
            let (ok, reason, actions) = cancel(line.arguments[0], sync: &sync, now: now)
            return CommandResult(ok: ok, reply: "wc-cancel: \(reason)", actions: actions)
        case "wc-status":
            try args.expect(0...0, flags: ["json"])
            if line.options["json"] != nil { return CommandResult(ok: true, reply: JSONWriter.string(.object(statusJSON))) }
            return CommandResult(ok: true, reply: statusLines.joined(separator: "\n"))
        default:
            preconditionFailure("Invalid state: verb \(line.verb) in grammar but not handled")
        }
    }

    func requireActivated(_ verb: String) throws(CommandError) {
        guard activated else { throw CommandError("\(verb): sessionNotActivated: the \(node) app has not activated its WCSession") }
    }

    /// `wc-status --json` and `status --json`'s `watchConnectivity` (docs/COMMANDS.md).
    public var statusJSON: JSONObject {
        var o: JSONObject = ["activated": .bool(activated), "reachable": .bool(reachable), "peerLink": .bool(peerLink)]
        o.append("outstanding", .array(outgoing.map { transfer in
            var t: JSONObject = ["id": .string(transfer.id), "kind": .string(transfer.kind.rawValue), "sending": .bool(transfer.seq != nil)]
            if let until = transfer.stalledUntil { t.append("stalledUntil", .int(until.milliseconds)) }
            return .object(t)
        }))
        o.append("applicationContext", contextSent.map(JSON.object) ?? .null)
        o.append("receivedApplicationContext", receivedContext.map(JSON.object) ?? .null)
        o.append("waiting", .int(Int64(inbox.count)))
        o.append("awaitingFirstUnlock", .bool(awaitingFirstUnlock))
        o.append("counters", .object(counters.json))
        return o
    }

    var statusLines: [String] {
        var lines = ["watchconnectivity: \(activated ? "activated" : "not activated"), \(reachable ? "reachable" : "not reachable")"
            + (awaitingFirstUnlock ? " (rebooted, waiting for the first unlock)" : "")]
        lines.append("outstanding transfers: \(outgoing.isEmpty ? "none" : outgoing.map { "\($0.kind.rawValue) \($0.id)\($0.seq != nil ? " (sending)" : "")" }.joined(separator: ", "))")
        lines.append("waiting for the app: \(inbox.count)")
        lines.append("counters: " + counters.json.members.map { "\($0.key)=\(JSONWriter.string($0.value))" }.joined(separator: " "))
        return lines
    }
}
