import Foundation

/// WatchConnectivity settings (topology `channels.watchconnectivity`, docs/TOPOLOGY.md): the
/// faults seen in the field (R: X3) and PairSim's choices where Apple documents no number.
public struct WCConfig: Hashable, Sendable {
    /// `sendMessage` fails with `deliveryFailed` with this probability although the counterpart is reachable.
    public var messageFailure: Double = 0
    /// A userInfo transfer reaching the head of its queue stalls with this probability…
    public var stallChance: Double = 0
    /// …for this long before it goes; nil (`for: untilNudged`): the field's stall, until the app
    /// queues another transfer or its session is activated again (a relaunch, a reboot) (R: F6).
    public var stallFor: EmulatedDuration? = .minutes(10)
    /// A `sendMessage` not answered (or, without a reply handler, not acknowledged) within this
    /// fails with `messageReplyTimedOut`; a message older than this is not delivered.
    public var messageTimeout: EmulatedDuration = .seconds(30)
    /// How fast `transferFile` moves a file's bytes (bytes per emulated second).
    public var fileRate = 2_000_000
    /// A message from the watch launches an iOS app the user force-quit, as Apple documents
    /// (`sendMessage`: "calling this method from your WatchKit extension while it is active and
    /// running wakes up the corresponding iOS app in the background"; no exception). `false`: the
    /// field reading — the message waits for the user to open the app, then expires (R: F6).
    public var launchesForceQuitApp = true

    public init() {}
}

/// A WatchConnectivity error, named as `WCError.Code` names it.
public enum WCErrorCode: String, Hashable, Sendable {
    case notReachable, deliveryFailed, messageReplyTimedOut, sessionNotActivated, payloadTooLarge, transferCancelled
}

/// A file `transferFile` sends: PairSim moves its name, size and metadata, not its bytes.
public struct WCFile: Hashable, Sendable {
    public var name: String
    public var size: Int
    public init(name: String, size: Int) {
        self.name = name
        self.size = size
    }

    /// Largest file size accepted (1 GiB).
    public static let maxSize = 1 << 30
}

/// An outstanding `transferUserInfo` or `transferFile`, oldest first in its queue (FIFO).
public struct WCTransfer: Hashable, Sendable {
    public var id: String
    /// `.userinfo` or `.file`.
    public var kind: MessageKind
    /// The user info, or the file's metadata.
    public var payload: JSONObject
    public var file: WCFile?
    public var createdAt: EmulatedInstant
    public var stage = Stage.queued
    /// The app's handle for it (this process only; not kept across a restart).
    public var appID: Int? = nil

    package init(id: String, kind: MessageKind, payload: JSONObject, file: WCFile?, createdAt: EmulatedInstant, stage: Stage = .queued,
                 appID: Int? = nil) {
        self.id = id
        self.kind = kind
        self.payload = payload
        self.file = file
        self.createdAt = createdAt
        self.stage = stage
        self.appID = appID
    }

    /// Where a transfer is: only the queue's head leaves the queue, stalled first or not.
    public enum Stage: Hashable, Sendable {
        /// In the queue (a head in this stage has not yet drawn for a stall).
        case queued
        /// The head, held by a stalled queue until `until` (R: X3); it then goes without drawing again.
        case stalled(until: EmulatedInstant)
        /// On its way as channel message `seq`, until the counterpart device acknowledges it.
        case sending(seq: UInt64)
    }

    /// The channel sequence number it travels as, once it is on its way.
    public var seq: UInt64? { if case .sending(let seq) = stage { seq } else { nil } }
    /// When a stalled queue lets it go.
    public var stalledUntil: EmulatedInstant? { if case .stalled(let until) = stage { until } else { nil } }
}

/// An outstanding transfer as the app is told of it at activation (one an earlier process queued).
public struct WCOutstanding: Hashable, Sendable {
    public var id: Int
    public var payload: JSONObject
    public var file: WCFile?
    public init(id: Int, payload: JSONObject, file: WCFile?) {
        self.id = id
        self.payload = payload
        self.file = file
    }
}

/// Something that arrived for this side's app and waits until the app can take it.
public struct WCReceived: Hashable, Sendable {
    /// `.message`, `.userinfo`, `.context` or `.file`.
    public var kind: MessageKind
    public var id: String
    public var payload: JSONObject
    public var file: WCFile?
    /// A `message` whose sender waits for a reply.
    public var wantsReply: Bool
    public var sentAt: EmulatedInstant
    /// The sender's stream and sequence number: deliveries follow the sender's order.
    public var stream: String
    public var seq: UInt64
    /// A `sendMessageData` message: `payload` is `{"data": base64}`.
    public var isData = false

    package init(kind: MessageKind, id: String, payload: JSONObject, file: WCFile?, wantsReply: Bool, sentAt: EmulatedInstant, stream: String,
                 seq: UInt64, isData: Bool = false) {
        self.kind = kind
        self.id = id
        self.payload = payload
        self.file = file
        self.wantsReply = wantsReply
        self.sentAt = sentAt
        self.stream = stream
        self.seq = seq
        self.isData = isData
    }
}

/// A `sendMessage` waiting for its reply (or acknowledgement).
struct WCPendingMessage: Hashable, Sendable {
    var id: String
    var seq: UInt64
    var deadline: EmulatedInstant
    var wantsReply: Bool
    var appID: Int?
}

/// What a session did, for `status`, `wc-status` and node.stopped (summary.json).
public struct WCCounters: Hashable, Sendable {
    public var messagesSent = 0, messagesReceived = 0, replies = 0, refused = 0, failed = 0
    public var userInfoSent = 0, userInfoReceived = 0, contextsSent = 0, contextsReceived = 0
    public var filesSent = 0, filesReceived = 0, cancelled = 0, stalls = 0, delivered = 0, expired = 0

    /// Appends the counters under `wc.` keys (`node.stopped`'s fields).
    public func append(to fields: inout JSONObject) {
        for member in json.members { fields.append("wc.\(member.key)", member.value) }
    }

    public var json: JSONObject {
        var o = JSONObject()
        for (key, value) in [("messagesSent", messagesSent), ("messagesReceived", messagesReceived), ("replies", replies),
                             ("refused", refused), ("failed", failed), ("userInfoSent", userInfoSent),
                             ("userInfoReceived", userInfoReceived), ("contextsSent", contextsSent),
                             ("contextsReceived", contextsReceived), ("filesSent", filesSent), ("filesReceived", filesReceived),
                             ("cancelled", cancelled), ("stalls", stalls), ("delivered", delivered), ("expired", expired)] {
            o.append(key, .int(Int64(value)))
        }
        return o
    }
}

/// The bodies of `wc.…` messages (docs/PROTOCOL.md).
enum WCBody {
    /// Most bytes an id may have.
    static let maxIDBytes = 64
    /// Most bytes of a file name.
    static let maxNameBytes = 255

    /// A message's body: `payload` for a dictionary; `data` (base64) for `sendMessageData`, whose
    /// payload here is `{"data": base64}`.
    static func message(id: String, payload: JSONObject, wantsReply: Bool, isData: Bool = false) -> JSONObject {
        if isData { return ["id": .string(id), "data": payload["data"] ?? .string(""), "reply": .bool(wantsReply)] }
        return ["id": .string(id), "payload": .object(payload), "reply": .bool(wantsReply)]
    }

    static func reply(id: String, payload: JSONObject?, error: WCErrorCode?, isData: Bool = false) -> JSONObject {
        var body: JSONObject = ["id": .string(id)]
        if let payload { body.append(isData ? "data" : "payload", isData ? payload["data"] ?? .string("") : .object(payload)) }
        if let error { body.append("error", .string(error.rawValue)) }
        return body
    }

    /// A `data` field: base64 of at most the wire's payload bytes, as `{"data": base64}`.
    static func data(_ reader: FieldReader) throws(DecodeError) -> JSONObject {
        let text = try reader.string("data", minBytes: 0, maxBytes: 4 * (WCSessionCore.maxPayloadBytes / 3 + 1))
        guard Data(base64Encoded: text) != nil else { throw DecodeError(path: "body.data", reason: "not base64") }
        return ["data": .string(text)]
    }

    static func transfer(_ transfer: WCTransfer) -> JSONObject {
        var body: JSONObject = ["id": .string(transfer.id)]
        if let file = transfer.file {
            body.append("name", .string(file.name))
            body.append("size", .int(Int64(file.size)))
            body.append("metadata", .object(transfer.payload))
        } else {
            body.append("payload", .object(transfer.payload))
        }
        return body
    }

    /// Reads a received body of `kind` (not `reply`), refusing anything malformed with its path.
    static func received(_ envelope: Envelope) throws(DecodeError) -> WCReceived {
        let reader = FieldReader(envelope.body, path: "body")
        var received = WCReceived(kind: envelope.kind, id: "", payload: [:], file: nil, wantsReply: false,
                                  sentAt: envelope.sentAt, stream: envelope.stream, seq: envelope.seq)
        switch envelope.kind {
        case .message: try reader.only(WireKeys.message)
        case .userinfo: try reader.only(WireKeys.userinfo)
        case .context: try reader.only(WireKeys.context)
        case .file: try reader.only(WireKeys.file)
        default: break
        }
        switch envelope.kind {
        case .message:
            if reader.has("data"), reader.has("payload") { throw DecodeError(path: "body", reason: "exactly one of payload and data") }
            received.id = try reader.string("id", minBytes: 1, maxBytes: maxIDBytes)
            if reader.has("data") {
                received.payload = try data(reader)
                received.isData = true
            } else {
                received.payload = try reader.object("payload")
            }
            received.wantsReply = try reader.bool("reply")
        case .userinfo:
            received.id = try reader.string("id", minBytes: 1, maxBytes: maxIDBytes)
            received.payload = try reader.object("payload")
        case .context:
            received.payload = try reader.object("payload")
        case .file:
            received.id = try reader.string("id", minBytes: 1, maxBytes: maxIDBytes)
            let name = try reader.string("name", minBytes: 1, maxBytes: maxNameBytes)
            let size = try reader.int("size", min: 0, max: Int64(WCFile.maxSize))
            received.file = WCFile(name: name, size: Int(size))
            received.payload = reader.has("metadata") ? try reader.object("metadata") : [:]
        default:
            throw DecodeError(path: "kind", reason: "\(envelope.kind.rawValue) is not a WatchConnectivity delivery")
        }
        return received
    }

    /// The optional `settled` of any `wc.…` data body: every sequence number below it was
    /// acknowledged to the sender; at least 1, at most the message's own.
    static func settled(_ envelope: Envelope) throws(DecodeError) -> UInt64? {
        let reader = FieldReader(envelope.body, path: "body")
        guard reader.has("settled") else { return nil }
        return UInt64(try reader.int("settled", min: 1, max: Int64(envelope.seq)))
    }

    /// Reads a `reply` body: the message id, and the reply or the error.
    static func reply(_ body: JSONObject) throws(DecodeError) -> (id: String, payload: JSONObject?, error: WCErrorCode?) {
        let reader = FieldReader(body, path: "body")
        try reader.only(WireKeys.reply)
        if reader.has("data") {
            if reader.has("payload") { throw DecodeError(path: "body", reason: "exactly one of payload and data") }
            return (try reader.string("id", minBytes: 1, maxBytes: maxIDBytes), try data(reader), nil)
        }
        let id = try reader.string("id", minBytes: 1, maxBytes: maxIDBytes)
        if let text = try reader.optionalString("error") {
            guard let code = WCErrorCode(rawValue: text) else {
                throw DecodeError(path: "body.error", reason: "unknown error \"\(text.prefix(40))\" (expected notReachable, deliveryFailed, …)")
            }
            return (id, nil, code)
        }
        return (id, try reader.object("payload"), nil)
    }
}
