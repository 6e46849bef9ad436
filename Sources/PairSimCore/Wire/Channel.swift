/// The two logical sync channels between the devices.
public enum Channel: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// Apple's paired-device HealthKit sync: workouts, samples, deletions.
    case healthkit
    /// SwiftData `ExerciseRecord` changes through the CloudKit container.
    case cloudkit

    /// Topic prefix on the wire: `hk` or `ck`.
    public var topicPrefix: String { self == .healthkit ? "hk" : "ck" }
    public var description: String { rawValue }
}

/// What a message carries; with the channel it fixes the topic.
public enum MessageKind: String, Hashable, Sendable, CaseIterable {
    /// HealthKit objects: workouts, samples, deletions (channel healthkit).
    case objects
    /// ExerciseRecord saves and deletions (channel cloudkit).
    case records
    /// Acknowledgement of received sequence numbers (either channel).
    case ack
    /// Presence: a node announces itself and its streams (no channel).
    case hello
}

/// The ZeroMQ topic (first frame) for a channel and kind.
public enum Topic {
    /// `hk.objects`, `ck.records`, `ack.hk`, `ack.ck`, `hello`.
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
        ("ack.hk", .healthkit, .ack),
        ("ack.ck", .cloudkit, .ack),
        ("hello", nil, .hello),
    ]

    /// Resolves a topic frame, or nil for an unknown topic.
    public static func parse(_ topic: String) -> (channel: Channel?, kind: MessageKind)? {
        all.first(where: { $0.topic == topic }).map { ($0.channel, $0.kind) }
    }
}
