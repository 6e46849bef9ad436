import HeapModule

/// The sending half of one channel: sequence numbers, the outbox, the channel model (latency,
/// faults, partitions) and retransmission until acknowledged.
struct OutboundChannel: Sendable {
    enum State: Hashable, Sendable {
        /// Travelling through the modelled channel latency until `until`.
        case delayed(until: EmulatedInstant)
        /// Ready, waiting for room in the in-flight window.
        case windowWait
        /// Ready, but the channel is partitioned.
        case held
        /// Transmitted (or lost on purpose); retransmitted at `retryAt` unless acknowledged.
        case inFlight(retryAt: EmulatedInstant)
    }

    struct Entry: Sendable {
        var record: OutboxRecord
        var state: State
        /// Transmissions so far (including ones the channel model dropped).
        var attempts = 0
    }

    enum TimerKind: Int, Comparable, Sendable {
        case release, retry, duplicateCopy, partitionEnd
        static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    struct Timer: Comparable, Sendable {
        var at: EmulatedInstant
        var seq: UInt64
        var kind: TimerKind
        static func < (lhs: Self, rhs: Self) -> Bool {
            (lhs.at, lhs.seq, lhs.kind) < (rhs.at, rhs.seq, rhs.kind)
        }
    }

    let node: NodeName
    let channel: Channel
    var config: ChannelConfig
    let reliability: ReliabilityConfig
    var stream: String
    var nextSeq: UInt64 = 1
    var entries: [UInt64: Entry] = [:]
    var timers = Heap<Timer>()
    var waiting: [UInt64] = []
    var inFlight = 0
    /// Why the channel is held by command (`out-of-range`, `offline`); scheduled windows come from
    /// `config.partitions`. The channel carries again only when every reason has ended.
    var manualReasons: Set<String> = []
    var random: SplitMix64
    /// Draws for this node's acknowledgements on the channel, apart from the data's draws so a
    /// run without loss draws exactly as before acks crossed the channel model.
    var ackRandom: SplitMix64
    var counters = ChannelCounters()

    init(node: NodeName, channel: Channel, config: ChannelConfig, reliability: ReliabilityConfig, stream: String, seed: UInt64) {
        self.node = node
        self.channel = channel
        self.config = config
        self.reliability = reliability
        self.stream = stream
        self.random = SplitMix64(seed: seed, label: "\(node).faults.\(channel)")
        self.ackRandom = SplitMix64(seed: seed, label: "\(node).faults.\(channel).acks")
    }

    var nextDeadline: EmulatedInstant? { timers.min?.at }

    func isPartitioned(at now: EmulatedInstant) -> Bool {
        !manualReasons.isEmpty || config.partitions.contains { $0.covers(channel, at: now) }
    }

    func event(_ name: EventName, _ now: EmulatedInstant, level: Event.Level = .info, _ fields: JSONObject) -> NodeAction {
        var all: JSONObject = ["channel": .string(channel.rawValue)]
        for member in fields.members { all.append(member.key, member.value) }
        return .emit(Event(at: now, node: node, name, level: level, fields: all))
    }

    // MARK: Sending

    /// Takes a new message into the outbox and starts its journey through the channel model.
    mutating func enqueue(kind: MessageKind, body: JSONObject, summary: JSONObject, now: EmulatedInstant,
                          extraLatency: EmulatedDuration = .zero, samplesAnchor: Int64? = nil,
                          objects: HealthObjectsBatch? = nil) -> [NodeAction] {
        let seq = nextSeq
        nextSeq += 1
        let envelope = Envelope(from: node, stream: stream, seq: seq, sentAt: now, channel: channel, kind: kind, body: body)
        let frame = objects.map { WireCodec.encode(envelope, objects: $0) } ?? WireCodec.encode(envelope)
        let record = OutboxRecord(seq: seq, kind: kind, frame: frame, createdAt: now, summary: summary, samplesAnchor: samplesAnchor)
        var latency = config.latency.draw(using: &random) + config.extraLatency(at: now) + extraLatency
        // Sized once for what follows: grown member by member it was reallocated twice a message.
        var fields = JSONObject()
        fields.reserveCapacity(4 + summary.count)
        fields.append("seq", .int(Int64(seq)))
        fields.append("kind", .string(kind.rawValue))
        if random.chance(config.reorder(at: now)) {
            let extra = EmulatedDuration.milliseconds(Int64(random.uniform(0, Double(config.reorderWindow.milliseconds))))
            latency += extra
            fields.append("reordered", .bool(true))
        }
        fields.append("latency", .string(latency.description))
        for member in summary.members { fields.append(member.key, member.value) }
        let until = now + latency
        entries[seq] = Entry(record: record, state: .delayed(until: until))
        var actions: [NodeAction] = [
            .persist(.outboxPut(channel, record)),
            event(.syncSent, now, fields),
        ]
        if latency <= .zero {
            actions += transmit(seq, now: now, isRetransmit: false)
        } else {
            timers.insert(Timer(at: until, seq: seq, kind: .release))
        }
        return actions
    }

    /// One transmission attempt of `seq`: partition, window and loss checks, then the wire.
    mutating func transmit(_ seq: UInt64, now: EmulatedInstant, isRetransmit: Bool) -> [NodeAction] {
        guard var entry = entries[seq] else { return [] }
        var actions: [NodeAction] = []
        let wasInFlight: Bool
        if case .inFlight = entry.state { wasInFlight = true } else { wasInFlight = false }
        if isPartitioned(at: now) {
            if entry.state != .held {
                if wasInFlight { inFlight -= 1 }
                entry.state = .held
                counters.held += 1
                actions.append(event(.syncHeld, now, ["seq": .int(Int64(seq)), "reason": "partition"]))
            }
            // Every time (windows may chain, or a manual partition end inside one): try again when
            // the scheduled window covering now ends; manual partitions release on their command.
            if let end = partitionEnd(after: now) { timers.insert(Timer(at: end, seq: seq, kind: .partitionEnd)) }
            entries[seq] = entry
            return actions
        }
        if !wasInFlight && inFlight >= reliability.maxInFlight {
            if entry.state != .windowWait {
                entry.state = .windowWait
                waiting.append(seq)
            }
            entries[seq] = entry
            return actions
        }
        if !wasInFlight { inFlight += 1 }
        entry.attempts += 1
        let retryAt = now + reliability.backoff(attempt: entry.attempts)
        entry.state = .inFlight(retryAt: retryAt)
        timers.insert(Timer(at: retryAt, seq: seq, kind: .retry))
        if isRetransmit {
            counters.retransmits += 1
            actions.append(event(.syncRetransmit, now, ["seq": .int(Int64(seq)), "attempt": .int(Int64(entry.attempts))]))
        }
        if random.chance(config.loss(at: now)) {
            counters.lost += 1
            actions.append(event(.syncLost, now, ["seq": .int(Int64(seq)), "attempt": .int(Int64(entry.attempts))]))
        } else {
            actions.append(.publish(entry.record.frame))
            counters.sentMessages += 1
            counters.sentBytes += entry.record.frame.payload.count + entry.record.frame.topic.utf8.count
            if random.chance(config.duplicate(at: now)) {
                let extra = EmulatedDuration.milliseconds(Int64(random.uniform(0, Double(config.reorderWindow.milliseconds))))
                timers.insert(Timer(at: now + extra, seq: seq, kind: .duplicateCopy))
                counters.duplicated += 1
                actions.append(event(.syncDuplicated, now, ["seq": .int(Int64(seq)), "after": .string(extra.description)]))
            }
        }
        entries[seq] = entry
        return actions
    }

    /// An acknowledgement this node sends for the peer's messages on the channel crosses the same
    /// link as data: with probability `loss` it is lost (`sync.ack.lost`); the peer retransmits
    /// and the duplicate is acknowledged again. (While the channel is partitioned nothing arrives
    /// to acknowledge: `SyncEngine.receive` drops it.)
    mutating func acknowledgement(_ frame: WireFrame, upTo: UInt64, now: EmulatedInstant) -> NodeAction {
        if ackRandom.chance(config.loss(at: now)) { return event(.syncAckLost, now, ["upTo": .int(Int64(upTo))]) }
        return .publish(frame)
    }

    /// The end of the scheduled partition covering `now`, if any (manual ones end by command).
    func partitionEnd(after now: EmulatedInstant) -> EmulatedInstant? {
        config.partitions.filter { $0.covers(channel, at: now) }.map(\.to).max()
    }

    // MARK: Timers and acknowledgements

    mutating func advance(to now: EmulatedInstant) -> [NodeAction] {
        var actions: [NodeAction] = []
        while let timer = timers.min, timer.at <= now {
            timers.removeMin()
            guard let entry = liveEntry(timer) else { continue }
            switch timer.kind {
            case .release:
                actions += transmit(timer.seq, now: now, isRetransmit: false)
            case .retry:
                actions += transmit(timer.seq, now: now, isRetransmit: true)
            case .duplicateCopy:
                guard !isPartitioned(at: now) else { continue }
                actions.append(.publish(entry.record.frame))
                counters.sentMessages += 1
                counters.sentBytes += entry.record.frame.payload.count + entry.record.frame.topic.utf8.count
            case .partitionEnd:
                actions += transmit(timer.seq, now: now, isRetransmit: entry.attempts > 0)
            }
        }
        dropStaleTimers()
        return actions
    }

    /// The entry `timer` still has work for: there, and in the state the timer was set for (nil: a
    /// message acknowledged, retransmitted or moved on leaves its old timers behind in the heap).
    private func liveEntry(_ timer: Timer) -> Entry? {
        guard let entry = entries[timer.seq] else { return nil }
        switch (timer.kind, entry.state) {
        case (.release, .delayed(let until)): return until == timer.at ? entry : nil
        case (.retry, .inFlight(let retryAt)): return retryAt == timer.at ? entry : nil
        case (.duplicateCopy, .inFlight), (.partitionEnd, .held): return entry
        default: return nil
        }
    }

    /// Takes the timers with no work left off the top of the heap, so that `nextDeadline` is a
    /// time something happens: a message's retry timer outlived its acknowledgement, and the watch
    /// woke for nothing once per message it sent (1,354 of its 7,062 turns in a simulated week,
    /// counted with a uprobe).
    private mutating func dropStaleTimers() {
        while let timer = timers.min, liveEntry(timer) == nil { timers.removeMin() }
    }

    /// Applies an acknowledgement from the peer for this channel's stream.
    mutating func acknowledge(upTo: UInt64, selective: [UInt64], now: EmulatedInstant) -> [NodeAction] {
        var removed: [UInt64] = []
        let selectiveSet = Set(selective)
        for seq in entries.keys where seq <= upTo || selectiveSet.contains(seq) {
            removed.append(seq)
        }
        guard !removed.isEmpty else { return [] }
        removed.sort()
        for seq in removed {
            if case .inFlight = entries[seq]?.state { inFlight -= 1 }
            entries[seq] = nil
        }
        waiting.removeAll { entries[$0] == nil }
        counters.acked += removed.count
        var actions: [NodeAction] = [
            .persist(.outboxRemove(channel, removed)),
            event(.syncAcked, now, ["seqs": .string(SeqRanges.describe(removed)), "pending": .int(Int64(entries.count))]),
        ]
        actions += drainWindow(now: now)
        dropStaleTimers()
        return actions
    }

    /// Sends messages that were waiting for room in the in-flight window.
    mutating func drainWindow(now: EmulatedInstant) -> [NodeAction] {
        var actions: [NodeAction] = []
        while inFlight < reliability.maxInFlight, !waiting.isEmpty {
            let seq = waiting.removeFirst()
            guard entries[seq]?.state == .windowWait else { continue }
            entries[seq]?.state = .delayed(until: now) // leave windowWait so transmit counts it in flight
            actions += transmit(seq, now: now, isRetransmit: false)
        }
        return actions
    }

    /// The peer (re)appeared: everything unacknowledged on the wire goes again now.
    mutating func retransmitAll(now: EmulatedInstant) -> [NodeAction] {
        var actions: [NodeAction] = []
        for seq in entries.keys.sorted() {
            if case .inFlight = entries[seq]!.state {
                actions += transmit(seq, now: now, isRetransmit: true)
            }
        }
        return actions
    }

    /// Starts or ends a manual partition for `reason`; when none is left, everything held goes.
    mutating func setManualPartition(_ reason: String, _ on: Bool, now: EmulatedInstant) -> [NodeAction] {
        if on { manualReasons.insert(reason) } else { manualReasons.remove(reason) }
        guard manualReasons.isEmpty else { return [] }
        var actions: [NodeAction] = []
        for seq in entries.keys.sorted() where entries[seq]!.state == .held {
            actions += transmit(seq, now: now, isRetransmit: entries[seq]!.attempts > 0)
        }
        return actions
    }

    /// Puts restored outbox messages back in flight, to go again at once.
    mutating func restore(_ records: [OutboxRecord], nextSeq: UInt64, now: EmulatedInstant) {
        self.nextSeq = max(nextSeq, (records.map(\.seq).max() ?? 0) + 1)
        for record in records.sorted(by: { $0.seq < $1.seq }) {
            entries[record.seq] = Entry(record: record, state: .delayed(until: now))
            timers.insert(Timer(at: now, seq: record.seq, kind: .release))
        }
    }
}

/// Counts for one channel, for `status`, reports and benchmarks.
public struct ChannelCounters: Hashable, Sendable {
    public var sentMessages = 0
    public var sentBytes = 0
    public var retransmits = 0
    public var lost = 0
    public var duplicated = 0
    public var held = 0
    public var acked = 0
    public var receivedMessages = 0
    public var receivedBytes = 0
    public var duplicatesDropped = 0

    public init() {}
}

/// Compact spelling of sequence-number sets: `1-4,7,9-10`.
enum SeqRanges {
    static func describe(_ sorted: [UInt64]) -> String {
        var parts: [String] = []
        var index = 0
        while index < sorted.count {
            var end = index
            while end + 1 < sorted.count, sorted[end + 1] == sorted[end] + 1 { end += 1 }
            parts.append(end == index ? "\(sorted[index])" : "\(sorted[index])-\(sorted[end])")
            index = end + 1
        }
        return parts.joined(separator: ",")
    }
}
