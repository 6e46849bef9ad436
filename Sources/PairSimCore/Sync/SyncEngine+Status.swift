/// The sync part of `status --json` (schema in docs/COMMANDS.md).
extension SyncEngine {
    /// `{"healthkit":{…},"cloudkit":{…}}`: each channel's counters.
    public func channelsJSON(now: EmulatedInstant) -> JSON {
        var channels = JSONObject()
        for channel in Channel.allCases {
            let c = counters(channel)
            channels.append(channel.rawValue, .object([
                "pending": .int(Int64(pending(channel))),
                "sent": .int(Int64(c.sentMessages)), "sentBytes": .int(Int64(c.sentBytes)),
                "retransmits": .int(Int64(c.retransmits)), "lost": .int(Int64(c.lost)),
                "duplicated": .int(Int64(c.duplicated)), "held": .int(Int64(c.held)),
                "received": .int(Int64(c.receivedMessages)), "receivedBytes": .int(Int64(c.receivedBytes)),
                "duplicatesDropped": .int(Int64(c.duplicatesDropped)),
                "partitioned": .bool(isPartitioned(channel, at: now)),
            ]))
        }
        return .object(channels)
    }

    /// When the oldest message still unacknowledged on `channel` was made (nil: none pending).
    public func oldestPending(_ channel: Channel) -> EmulatedInstant? {
        outbound[channel].entries.values.map(\.record.createdAt).min()
    }

    /// `{"bad-body":2,…}`: refused frames by code, every code present.
    public var rejectedJSON: JSON {
        var object = JSONObject()
        for code in WireError.Code.allCases { object.append(code.rawValue, .int(Int64(rejected[code] ?? 0))) }
        return .object(object)
    }
}
