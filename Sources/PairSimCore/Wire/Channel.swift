/// The logical channels between the devices.
public enum Channel: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// Apple's paired-device HealthKit sync: workouts, samples, deletions.
    case healthkit
    /// SwiftData `ExerciseRecord` changes through the CloudKit container.
    case cloudkit
    /// WatchConnectivity between the watch app and the phone app (`WCSession`, R: X1).
    case watchconnectivity

    /// Topic prefix on the wire: `hk`, `ck` or `wc`.
    public var topicPrefix: String {
        switch self {
        case .healthkit: "hk"
        case .cloudkit: "ck"
        case .watchconnectivity: "wc"
        }
    }
    public var description: String { rawValue }

    /// The channel's place in `allCases`: where `PerChannel` keeps its value.
    var position: Int {
        switch self {
        case .healthkit: 0
        case .cloudkit: 1
        case .watchconnectivity: 2
        }
    }
}

/// One value for each channel, kept at the channel's position. A `[Channel: Value]` hashed the
/// channel's name (a `String` raw value hashes as its string) at every lookup, and the sync engine
/// looks its channels up several times a turn.
struct PerChannel<Value> {
    private var values: [Value]

    init(_ make: (Channel) -> Value) { values = Channel.allCases.map(make) }

    subscript(channel: Channel) -> Value {
        get { values[channel.position] }
        // In place: a get-then-set would copy the value out and back, and its storage with it.
        _modify { yield &values[channel.position] }
    }

    /// Every channel's value, in `Channel.allCases` order.
    var all: [Value] { values }
}

extension PerChannel: Sendable where Value: Sendable {}

/// What a message carries; with the channel it fixes the topic.
public enum MessageKind: String, Hashable, Sendable, CaseIterable {
    /// HealthKit objects: workouts, samples, deletions (channel healthkit).
    case objects
    /// ExerciseRecord saves and deletions (channel cloudkit).
    case records
    /// `sendMessage`: a live message, maybe asking for a reply (channel watchconnectivity).
    case message
    /// The answer to a `message`: the counterpart's reply, or why it could not be delivered.
    case reply
    /// `transferUserInfo` (channel watchconnectivity).
    case userinfo
    /// `updateApplicationContext` (channel watchconnectivity).
    case context
    /// `transferFile`: the file's name, size and metadata (channel watchconnectivity).
    case file
    /// Whether this side's app can take live messages now; unsequenced, never acknowledged, and
    /// heard even across a partition (the devices' own link knows it), channel watchconnectivity.
    case link
    /// Acknowledgement of received sequence numbers (any channel).
    case ack
    /// Presence: a node announces itself and its streams (no channel).
    case hello
}

/// The ZeroMQ topic (first frame) for a channel and kind.
extension MessageKind {
    /// True for kinds that carry data, sequenced from 1 and acknowledged.
    public var isData: Bool {
        switch self {
        case .objects, .records, .message, .reply, .userinfo, .context, .file: true
        case .link, .ack, .hello: false
        }
    }
}

public enum Topic {
    /// `hk.objects`, `ck.records`, `wc.message`, …, `ack.hk`, `ack.ck`, `ack.wc`, `hello`.
    public static func name(channel: Channel?, kind: MessageKind) -> String {
        switch (kind, channel) {
        case (.hello, _): "hello"
        case (.ack, let channel?): "ack.\(channel.topicPrefix)"
        case (_, let channel?): "\(channel.topicPrefix).\(kind.rawValue)"
        case (_, nil): preconditionFailure("Invalid topic: kind \(kind) without a channel")
        }
    }

    /// Every topic a node accepts, and what it means.
    public static let all: [(topic: String, channel: Channel?, kind: MessageKind)] = [
        ("hk.objects", .healthkit, .objects),
        ("ck.records", .cloudkit, .records),
        ("wc.message", .watchconnectivity, .message),
        ("wc.reply", .watchconnectivity, .reply),
        ("wc.userinfo", .watchconnectivity, .userinfo),
        ("wc.context", .watchconnectivity, .context),
        ("wc.file", .watchconnectivity, .file),
        ("wc.link", .watchconnectivity, .link),
        ("ack.hk", .healthkit, .ack),
        ("ack.ck", .cloudkit, .ack),
        ("ack.wc", .watchconnectivity, .ack),
        ("hello", nil, .hello),
    ]

    /// Resolves a topic frame, or nil for an unknown topic.
    public static func parse(_ topic: String) -> (channel: Channel?, kind: MessageKind)? {
        all.first(where: { $0.topic == topic }).map { ($0.channel, $0.kind) }
    }
}
