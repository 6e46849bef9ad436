import Foundation

/// What of a session survives its app's termination and a node restart (R: X1): outstanding
/// transfers, what waits for the app, the application context both ways, and the device flags.
/// Messages in flight do not: their reply handlers died with the process.
extension WCSessionCore {
    /// What a restart keeps of the session (R: X1, K7).
    public struct Snapshot: Hashable, Sendable {
        public var awaitingFirstUnlock = false
        public var foreground = false
        /// The faults' draws go on after a restart rather than starting over.
        public var random: UInt64 = 0
        public var contextPending: JSONObject?
        public var contextSeq: UInt64?
        public var contextSent: JSONObject?
        public var receivedContext: JSONObject?
        /// The sender's stream and sequence number of `receivedContext`.
        public var receivedContextStream: String?
        public var receivedContextSeq: UInt64?
        /// Outstanding transfers, oldest first, without the app's handles (they died with its process).
        public var outgoing: [WCTransfer] = []
        public var inbox: [WCReceived] = []

        public init() {}
    }

    public var snapshot: Snapshot {
        var snapshot = Snapshot()
        snapshot.awaitingFirstUnlock = awaitingFirstUnlock
        snapshot.foreground = foreground
        snapshot.random = random.state
        snapshot.contextPending = contextPending
        snapshot.contextSeq = contextSeq
        snapshot.contextSent = contextSent
        snapshot.receivedContext = receivedContext
        snapshot.receivedContextStream = receivedContextAt?.stream
        snapshot.receivedContextSeq = receivedContextAt?.seq
        snapshot.outgoing = outgoing.map { transfer in
            var kept = transfer
            kept.appID = nil
            return kept
        }
        snapshot.inbox = inbox
        return snapshot
    }

    /// Restores what `snapshot` kept.
    public mutating func restore(_ snapshot: Snapshot) {
        awaitingFirstUnlock = snapshot.awaitingFirstUnlock
        foreground = snapshot.foreground
        random.state = snapshot.random
        contextPending = snapshot.contextPending
        contextSeq = snapshot.contextSeq
        contextSent = snapshot.contextSent
        receivedContext = snapshot.receivedContext
        if let stream = snapshot.receivedContextStream, let seq = snapshot.receivedContextSeq { receivedContextAt = (stream, seq) }
        outgoing = snapshot.outgoing
        inbox = snapshot.inbox
    }
}

extension WCSessionCore.Snapshot {
    /// The turn journal's spelling (the runtime keeps it in the `wc_…` tables, schema v4).
    public var json: JSON {
        func optional(_ object: JSONObject?) -> JSON { object.map(JSON.object) ?? .null }
        var o: JSONObject = ["awaitingFirstUnlock": .bool(awaitingFirstUnlock), "foreground": .bool(foreground)]
        o.append("random", .int(Int64(bitPattern: random)))
        o.append("contextPending", optional(contextPending))
        o.append("contextSeq", contextSeq.map { .int(Int64($0)) } ?? .null)
        o.append("contextSent", optional(contextSent))
        o.append("receivedContext", optional(receivedContext))
        o.append("receivedContextStream", receivedContextStream.map(JSON.string) ?? .null)
        o.append("receivedContextSeq", receivedContextSeq.map { .int(Int64($0)) } ?? .null)
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

    public init(json value: JSON) throws(DecodeError) {
        guard let object = value.objectValue else { throw DecodeError(path: "wc", reason: "expected an object") }
        let reader = FieldReader(object, path: "wc")
        self.init()
        awaitingFirstUnlock = try reader.bool("awaitingFirstUnlock")
        foreground = try reader.bool("foreground")
        random = UInt64(bitPattern: try reader.int("random"))
        func optionalObject(_ key: String) throws(DecodeError) -> JSONObject? { reader.has(key) ? try reader.object(key) : nil }
        contextPending = try optionalObject("contextPending")
        contextSeq = reader.has("contextSeq") ? UInt64(try reader.int("contextSeq", min: 1)) : nil
        contextSent = try optionalObject("contextSent")
        receivedContext = try optionalObject("receivedContext")
        if reader.has("receivedContextStream") || reader.has("receivedContextSeq") {
            receivedContextStream = try reader.string("receivedContextStream")
            receivedContextSeq = UInt64(try reader.int("receivedContextSeq", min: 1))
        }
        outgoing = try reader.objects("outgoing", limit: .max) { (t: FieldReader) throws(DecodeError) -> WCTransfer in
            let kind = try WCSessionCore.kind(t, allowed: [.userinfo, .file])
            let file = try WCSessionCore.file(t)
            var transfer = WCTransfer(id: try t.string("id"), kind: kind, payload: try t.object("payload"), file: file,
                                      createdAt: try t.instant("createdAt"))
            if t.has("seq") {
                transfer.stage = .sending(seq: UInt64(try t.int("seq", min: 1)))
            } else if t.has("stalledUntil") {
                transfer.stage = .stalled(until: try WCSessionCore.stalledUntil(try t.int("stalledUntil", min: 0), path: "\(t.path).stalledUntil"))
            }
            return transfer
        }
        inbox = try reader.objects("inbox", limit: .max) { (r: FieldReader) throws(DecodeError) -> WCReceived in
            WCReceived(kind: try WCSessionCore.kind(r, allowed: [.message, .userinfo, .context, .file]), id: try r.string("id"),
                       payload: try r.object("payload"), file: try WCSessionCore.file(r), wantsReply: try r.bool("reply"),
                       sentAt: try r.instant("sentAt"), stream: try r.string("stream"), seq: UInt64(try r.int("seq", min: 1)),
                       isData: r.has("data") ? try r.bool("data") : false)
        }
    }
}

extension WCSessionCore {
    /// When a stalled queue lets its head go, checked. Stalled until the app nudges the queue
    /// (`userInfoStall.for: untilNudged`) is `distantFuture`, past the wire's bound for instants:
    /// a watch killed while a transfer waited so refused its own state at every restart (found by
    /// a swarm).
    public static func stalledUntil(_ milliseconds: Int64, path: String) throws(DecodeError) -> EmulatedInstant {
        guard milliseconds >= 0, milliseconds <= FieldReader.maxTime || milliseconds == EmulatedInstant.distantFuture.milliseconds else {
            throw DecodeError(path: path, reason: "must be ≤ \(FieldReader.maxTime) or stalled until nudged, got \(milliseconds)")
        }
        return EmulatedInstant(milliseconds: milliseconds)
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
