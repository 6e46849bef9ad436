import Foundation

/// What of a session survives its app's termination and a node restart (R: X1): outstanding
/// transfers, what waits for the app, the application context both ways, and the device flags.
/// Messages in flight do not: their reply handlers died with the process.
extension WCSessionCore {
    /// The `wc` persistent value (the runtime keeps it in the `wc_…` tables, schema v4).
    public var json: JSON {
        func optional(_ object: JSONObject?) -> JSON { object.map(JSON.object) ?? .null }
        var o: JSONObject = ["awaitingFirstUnlock": .bool(awaitingFirstUnlock), "foreground": .bool(foreground)]
        // The faults' draws go on after a restart rather than starting over.
        o.append("random", .int(Int64(bitPattern: random.state)))
        o.append("contextPending", optional(contextPending))
        o.append("contextSeq", contextSeq.map { .int(Int64($0)) } ?? .null)
        o.append("contextSent", optional(contextSent))
        o.append("receivedContext", optional(receivedContext))
        o.append("receivedContextStream", receivedContextAt.map { .string($0.stream) } ?? .null)
        o.append("receivedContextSeq", receivedContextAt.map { .int(Int64($0.seq)) } ?? .null)
        o.append("outgoing", .array(outgoing.map { transfer in
            var t: JSONObject = ["id": .string(transfer.id), "kind": .string(transfer.kind.rawValue), "payload": .object(transfer.payload)]
            t.append("name", transfer.file.map { .string($0.name) } ?? .null)
            t.append("size", transfer.file.map { .int(Int64($0.size)) } ?? .null)
            t.append("createdAt", .int(transfer.createdAt.milliseconds))
            t.append("seq", transfer.seq.map { .int(Int64($0)) } ?? .null)
            t.append("stalledUntil", transfer.stalledUntil.map { .int($0.milliseconds) } ?? .null)
            return .object(t)
        }))
        o.append("inbox", .array(inbox.map { item in
            var r: JSONObject = ["kind": .string(item.kind.rawValue), "id": .string(item.id), "payload": .object(item.payload)]
            r.append("name", item.file.map { .string($0.name) } ?? .null)
            r.append("size", item.file.map { .int(Int64($0.size)) } ?? .null)
            r.append("reply", .bool(item.wantsReply))
            r.append("sentAt", .int(item.sentAt.milliseconds))
            r.append("stream", .string(item.stream))
            r.append("seq", .int(Int64(item.seq)))
            if item.isData { r.append("data", .bool(true)) }
            return .object(r)
        }))
        return .object(o)
    }

    /// Restores what `json` kept.
    public mutating func restore(json value: JSON) throws(DecodeError) {
        guard let object = value.objectValue else { throw DecodeError(path: "wc", reason: "expected an object") }
        let reader = FieldReader(object, path: "wc")
        awaitingFirstUnlock = object["awaitingFirstUnlock"]?.boolValue ?? false
        foreground = object["foreground"]?.boolValue ?? false
        if let state = object["random"]?.intValue { random.state = UInt64(bitPattern: state) }
        contextPending = object["contextPending"]?.objectValue
        contextSeq = object["contextSeq"]?.intValue.map { UInt64($0) }
        contextSent = object["contextSent"]?.objectValue
        receivedContext = object["receivedContext"]?.objectValue
        if let stream = object["receivedContextStream"]?.stringValue, let seq = object["receivedContextSeq"]?.intValue {
            receivedContextAt = (stream, UInt64(seq))
        }
        outgoing = try reader.objects("outgoing", limit: .max) { (t: FieldReader) throws(DecodeError) -> WCTransfer in
            let kind = try Self.kind(t, allowed: [.userinfo, .file])
            let file = try Self.file(t)
            var transfer = WCTransfer(id: try t.string("id"), kind: kind, payload: try t.object("payload"), file: file,
                                      createdAt: try t.instant("createdAt"))
            if t.has("seq") {
                transfer.stage = .sending(seq: UInt64(try t.int("seq", min: 1)))
            } else if t.has("stalledUntil") {
                // Stalled until the app nudges the queue (`userInfoStall.for: untilNudged`) is
                // `distantFuture`, past the wire's bound for instants: a watch killed while a
                // transfer waited so refused its own state at every restart (found by a swarm).
                let until = try t.int("stalledUntil", min: 0, max: EmulatedInstant.distantFuture.milliseconds)
                guard until <= FieldReader.maxTime || until == EmulatedInstant.distantFuture.milliseconds else {
                    throw DecodeError(path: "\(t.path).stalledUntil", reason: "must be ≤ \(FieldReader.maxTime) or stalled until nudged, got \(until)")
                }
                transfer.stage = .stalled(until: EmulatedInstant(milliseconds: until))
            }
            return transfer
        }
        inbox = try reader.objects("inbox", limit: .max) { (r: FieldReader) throws(DecodeError) -> WCReceived in
            WCReceived(kind: try Self.kind(r, allowed: [.message, .userinfo, .context, .file]), id: try r.string("id"),
                       payload: try r.object("payload"), file: try Self.file(r), wantsReply: try r.bool("reply"),
                       sentAt: try r.instant("sentAt"), stream: try r.string("stream"), seq: UInt64(try r.int("seq", min: 1)),
                       isData: r.has("data") ? try r.bool("data") : false)
        }
    }

    static func kind(_ reader: FieldReader, allowed: [MessageKind]) throws(DecodeError) -> MessageKind {
        let text = try reader.string("kind")
        guard let kind = MessageKind(rawValue: text), allowed.contains(kind) else {
            throw DecodeError(path: reader.path + ".kind", reason: "unexpected kind \(text)")
        }
        return kind
    }

    static func file(_ reader: FieldReader) throws(DecodeError) -> WCFile? {
        guard reader.has("name") else { return nil }
        return WCFile(name: try reader.string("name"), size: Int(try reader.int("size", min: 0)))
    }
}
