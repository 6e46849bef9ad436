/// One message on the wire: the second frame of `[topic] [envelope]`, versioned JSON.
public struct Envelope: Hashable, Sendable {
    /// The only wire version this build speaks.
    public static let version: Int64 = 1

    /// The sending node.
    public var from: NodeName
    /// The sender's stream for this channel; sequence numbers count within it. A new stream means
    /// the sender started over (its outbox was not kept), so the receiver resets its window.
    public var stream: String
    /// Sequence number within the stream, from 1; 0 for `ack` and `hello`, which are not sequenced.
    public var seq: UInt64
    /// Emulated time the sender created the message.
    public var sentAt: EmulatedInstant
    /// The channel, nil only for `hello`.
    public var channel: Channel?
    public var kind: MessageKind
    /// Kind-specific content, always an object.
    public var body: JSONObject
    /// An `objects` body already read, when `WireCodec.decode(frames:limits:readingObjects:)` read
    /// it straight from its canonical bytes; `body` is then empty. Nil otherwise.
    public var objects: HealthObjectsBatch?

    public init(from: NodeName, stream: String, seq: UInt64, sentAt: EmulatedInstant, channel: Channel?,
                kind: MessageKind, body: JSONObject) {
        self.from = from
        self.stream = stream
        self.seq = seq
        self.sentAt = sentAt
        self.channel = channel
        self.kind = kind
        self.body = body
    }

    /// The topic frame for this envelope.
    public var topic: String { Topic.name(channel: channel, kind: kind) }
}

/// A message as ZeroMQ carries it: topic frame and envelope frame.
public struct WireFrame: Hashable, Sendable {
    public var topic: String
    public var payload: [UInt8]

    public init(topic: String, payload: [UInt8]) {
        self.topic = topic
        self.payload = payload
    }
}
