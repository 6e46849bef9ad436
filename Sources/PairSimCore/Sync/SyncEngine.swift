/// Both channels of one node: outbound (outbox, channel model, retransmission) and inbound
/// (decode, reject bad frames, drop duplicates, acknowledge).
public struct SyncEngine: Sendable {
    /// What an inbound frame turned out to be.
    public enum Inbound: Hashable, Sendable {
        /// New data: apply its body, then call `accept(_:now:)`.
        case data(Envelope)
        /// Already received (retransmission or duplicate); acknowledged again, nothing to apply.
        case duplicate
        /// An acknowledgement on this channel, handled here.
        case ack(Channel)
        /// The peer announced itself; everything unacknowledged goes again (the actions returned).
        case hello
        /// Arrived while this node's side of its channel is partitioned (out of range, offline):
        /// dropped unread, as if it never came — the sender retransmits; `sync.dropped` says so.
        case unreachable
        /// A WatchConnectivity link announcement (`wc.link`): whether the peer's app can take live
        /// messages (what it says is settled is applied here).
        case link(reachable: Bool)
        /// Refused; a `wire.rejected` event says why.
        case rejected(WireError)
    }

    public let node: NodeName
    public let limits: WireLimits
    var outbound: PerChannel<OutboundChannel>
    var inbound = PerChannel<[String: InboundWindow]> { _ in [:] }
    /// Stream order per channel, oldest first, so old windows can be dropped deterministically.
    var streamOrder = PerChannel<[String]> { _ in [] }
    /// Rejected frames by code.
    public internal(set) var rejected: [WireError.Code: Int] = [:]
    /// The boot identifier this engine announces in `hello`.
    public let boot: String

    /// Creates an engine; `boot` must differ between process starts that do not restore state.
    public init(node: NodeName, boot: String, seed: UInt64, channels: [Channel: ChannelConfig],
                reliability: ReliabilityConfig, limits: WireLimits = .default) {
        self.node = node
        self.limits = limits
        self.boot = boot
        outbound = PerChannel { channel in
            OutboundChannel(node: node, channel: channel, config: channels[channel] ?? ChannelConfig(),
                            reliability: reliability, stream: "\(boot).\(channel.topicPrefix)", seed: seed)
        }
    }

    // MARK: Sending

    /// The sequence number the next message on `channel` gets.
    public func nextSeq(_ channel: Channel) -> UInt64 { outbound[channel].nextSeq }

    /// The lowest sequence number on `channel` not yet acknowledged (the next one when none waits).
    public func lowestPending(_ channel: Channel) -> UInt64 { outbound[channel].entries.keys.min() ?? outbound[channel].nextSeq }

    /// The sender says every sequence number of `stream` below `below` was acknowledged: the
    /// window counts them as received (a receiver that lost its state, or a gap that cannot fill).
    public mutating func settle(_ channel: Channel, stream: String, below: UInt64) {
        var window = inbound[channel][stream] ?? InboundWindow(stream: stream)
        guard below > 0, window.cumulative < below - 1 else { return }
        if inbound[channel][stream] == nil { rememberStream(stream, channel) }
        window.settle(below: below)
        inbound[channel][stream] = window
    }

    /// True while message `seq` on `channel` waits for its acknowledgement.
    public func isPending(_ channel: Channel, _ seq: UInt64) -> Bool { outbound[channel].entries[seq] != nil }

    /// A `link` frame on watchconnectivity: unsequenced, sent as it is (no channel model).
    /// It also says this node's watchconnectivity stream and what of it is settled (every seq below
    /// was acknowledged), so a peer that lost its state, or a gap a retransmission's old `settled`
    /// cannot close, never holds deliveries back.
    public func linkFrame(reachable: Bool, now: EmulatedInstant) -> WireFrame {
        WireCodec.encode(Envelope(from: node, stream: boot, seq: 0, sentAt: now, channel: .watchconnectivity, kind: .link,
                                  body: ["reachable": .bool(reachable), "stream": .string(stream(.watchconnectivity)),
                                         "settled": .int(Int64(lowestPending(.watchconnectivity)))]))
    }

    /// Everything up to this sequence number of `stream` on `channel` has arrived (nil: a stream
    /// this engine does not remember).
    public func contiguous(_ channel: Channel, stream: String) -> UInt64? { inbound[channel][stream]?.cumulative }

    /// Outbox size for `channel` (unacknowledged messages).
    public func pending(_ channel: Channel) -> Int { outbound[channel].entries.count }

    /// Unacknowledged messages on every channel together.
    public var pendingOnAllChannels: Int { outbound.all.reduce(0) { $0 + $1.entries.count } }

    /// True if the outbox for `channel` has room for another message.
    public func hasRoom(_ channel: Channel) -> Bool {
        outbound[channel].entries.count < outbound[channel].reliability.outboxLimit
    }

    /// Sends a data message on `channel`. Writes check `hasRoom` before they start and are refused
    /// when the outbox is full (see `outboxFullEvent`); a write that started completes, so the
    /// outbox may pass its limit by that write's few messages. Nothing is ever dropped here.
    /// `extraLatency` adds to the channel's own draw (a file's transfer time).
    /// `samplesAnchor`: see `OutboxRecord.samplesAnchor`. `objects`: the body is these objects,
    /// written straight into the frame (`body` is then not read).
    public mutating func send(_ channel: Channel, kind: MessageKind, body: JSONObject, summary: JSONObject,
                              now: EmulatedInstant, extraLatency: EmulatedDuration = .zero, samplesAnchor: Int64? = nil,
                              objects: HealthObjectsBatch? = nil) -> [NodeAction] {
        outbound[channel].enqueue(kind: kind, body: body, summary: summary, now: now, extraLatency: extraLatency,
                                   samplesAnchor: samplesAnchor, objects: objects)
    }

    /// Sends a message that is part of a write already done (a deletion, another app's write):
    /// when the outbox is full, the message is not queued and `sync.outbox.full` says so.
    public mutating func sendIfRoom(_ channel: Channel, kind: MessageKind, body: JSONObject, summary: JSONObject,
                                    now: EmulatedInstant) -> [NodeAction] {
        guard hasRoom(channel) else { return [outboxFullEvent(channel, now: now)] }
        return send(channel, kind: kind, body: body, summary: summary, now: now)
    }

    /// The event for a write refused because the outbox is full.
    public func outboxFullEvent(_ channel: Channel, now: EmulatedInstant) -> NodeAction {
        .emit(Event(at: now, node: node, .syncOutboxFull, level: .warning, fields: [
            "channel": .string(channel.rawValue), "pending": .int(Int64(pending(channel))),
            "limit": .int(Int64(outbound[channel].reliability.outboxLimit)),
        ]))
    }

    /// Earliest instant at which `advance` has work.
    public var nextDeadline: EmulatedInstant? {
        outbound.all.reduce(nil) { $0.earliest($1.nextDeadline) }
    }

    /// Releases delayed messages, retransmits, ends partitions.
    public mutating func advance(to now: EmulatedInstant) -> [NodeAction] {
        var actions: [NodeAction] = []
        for channel in Channel.allCases { actions += outbound[channel].advance(to: now) }
        return actions
    }

    /// The peer just connected or announced itself: retransmit everything unacknowledged.
    public mutating func peerAppeared(now: EmulatedInstant) -> [NodeAction] {
        var actions: [NodeAction] = []
        for channel in Channel.allCases { actions += outbound[channel].retransmitAll(now: now) }
        return actions
    }

    /// The peer subscribed to this node's publications: say hello, and send again everything
    /// unacknowledged (docs/PROTOCOL.md, peer appearance).
    public mutating func peerConnected(now: EmulatedInstant) -> [NodeAction] {
        [.publish(helloFrame(now: now))] + peerAppeared(now: now)
    }

    /// A `hello` frame announcing this node.
    public func helloFrame(now: EmulatedInstant) -> WireFrame {
        var streams = JSONObject()
        for channel in Channel.allCases { streams.append(channel.rawValue, .string(outbound[channel].stream)) }
        return WireCodec.encode(Envelope(from: node, stream: boot, seq: 0, sentAt: now, channel: nil, kind: .hello,
                                         body: ["streams": .object(streams)]))
    }

    /// Starts or ends a manual partition of `channel` for `reason` (`out-of-range`, `offline`).
    public mutating func setPartition(_ channel: Channel, reason: String, _ on: Bool, now: EmulatedInstant) -> [NodeAction] {
        outbound[channel].setManualPartition(reason, on, now: now)
    }

    /// True while `channel` is held by command for `reason`.
    public func isPartitioned(_ channel: Channel, reason: String) -> Bool {
        outbound[channel].manualReasons.contains(reason)
    }

    /// True while `channel` carries nothing (manual or scheduled partition).
    public func isPartitioned(_ channel: Channel, at now: EmulatedInstant) -> Bool {
        outbound[channel].isPartitioned(at: now)
    }

    /// The next instant after `now` at which a scheduled partition of `channel` starts or ends.
    public func nextPartitionChange(_ channel: Channel, after now: EmulatedInstant) -> EmulatedInstant? {
        outbound[channel].config.partitions.filter { $0.channels.contains(channel) }
            .flatMap { [$0.from, $0.to] }.filter { $0 > now }.min()
    }

    /// Counters for `channel`.
    public func counters(_ channel: Channel) -> ChannelCounters { outbound[channel].counters }

    /// The stream id of this node's outbound `channel`.
    public func stream(_ channel: Channel) -> String { outbound[channel].stream }

    /// Restores a durable outbox after a restart: same stream, same sequence numbers.
    public mutating func restore(_ channel: Channel, stream: String, nextSeq: UInt64, outbox: [OutboxRecord],
                                 windows: [InboundWindow], now: EmulatedInstant) {
        outbound[channel].stream = stream
        outbound[channel].restore(outbox, nextSeq: nextSeq, now: now)
        for window in windows {
            inbound[channel][window.stream] = window
            streamOrder[channel].append(window.stream)
        }
    }
}
