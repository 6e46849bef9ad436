/// How long a channel takes to carry a message, in emulated time.
public enum LatencyModel: Hashable, Sendable, CustomStringConvertible {
    case constant(EmulatedDuration)
    case uniform(min: EmulatedDuration, max: EmulatedDuration)
    case exponential(mean: EmulatedDuration)
    /// Heavy-tailed, given by its median and 99th percentile.
    case lognormal(median: EmulatedDuration, p99: EmulatedDuration)

    public static let zero = LatencyModel.constant(.zero)

    /// One draw.
    public func draw(using random: inout some RandomNumberGenerator) -> EmulatedDuration {
        switch self {
        case .constant(let value):
            return value
        case .uniform(let low, let high):
            return .milliseconds(Int64(random.uniform(Double(low.milliseconds), Double(high.milliseconds)).rounded()))
        case .exponential(let mean):
            return .milliseconds(Int64(random.exponential(mean: Double(mean.milliseconds)).rounded()))
        case .lognormal(let median, let p99):
            let mu = _log(Double(max(median.milliseconds, 1)))
            let sigma = max(0, _log(Double(max(p99.milliseconds, 1))) - mu) / 2.326_347_874
            let value = _exp(mu + sigma * random.standardNormal())
            return .milliseconds(Int64(min(value, 3.0e13).rounded()))
        }
    }

    /// A typical value (the median), for docs and planning.
    public var typical: EmulatedDuration {
        switch self {
        case .constant(let value): value
        case .uniform(let low, let high): .milliseconds((low.milliseconds + high.milliseconds) / 2)
        case .exponential(let mean): .milliseconds(Int64(Double(mean.milliseconds) * 0.693))
        case .lognormal(let median, _): median
        }
    }

    public var description: String {
        switch self {
        case .constant(let value): "constant(\(value))"
        case .uniform(let low, let high): "uniform(\(low), \(high))"
        case .exponential(let mean): "exponential(mean \(mean))"
        case .lognormal(let median, let p99): "lognormal(median \(median), p99 \(p99))"
        }
    }
}

/// A scheduled window in which channels carry nothing (watch out of range, offline).
public struct PartitionWindow: Hashable, Sendable {
    public var from: EmulatedInstant
    public var to: EmulatedInstant
    public var channels: Set<Channel>

    public init(from: EmulatedInstant, to: EmulatedInstant, channels: Set<Channel> = Set(Channel.allCases)) {
        self.from = from
        self.to = to
        self.channels = channels
    }

    public func covers(_ channel: Channel, at now: EmulatedInstant) -> Bool {
        channels.contains(channel) && now >= from && now < to
    }
}

/// A window in which a channel misbehaves more than usual (the nemesis's fault bursts and latency
/// spikes): inside it, each fault's probability is at least the burst's, and every message waits
/// `extraLatency` more.
public struct FaultBurst: Hashable, Sendable {
    public var from: EmulatedInstant
    public var to: EmulatedInstant
    public var loss: Double
    public var duplicate: Double
    public var reorder: Double
    public var extraLatency: EmulatedDuration

    public init(from: EmulatedInstant, to: EmulatedInstant, loss: Double = 0, duplicate: Double = 0, reorder: Double = 0,
                extraLatency: EmulatedDuration = .zero) {
        self.from = from
        self.to = to
        self.loss = loss
        self.duplicate = duplicate
        self.reorder = reorder
        self.extraLatency = extraLatency
    }

    public func covers(_ now: EmulatedInstant) -> Bool { now >= from && now < to }
}

/// One channel's behaviour: latency and the faults the channel model injects on purpose.
public struct ChannelConfig: Hashable, Sendable {
    public var latency: LatencyModel
    /// Probability that one transmission is dropped (it is retransmitted later: delay, not loss).
    public var loss: Double
    /// Probability that a transmission is delivered twice (the receiver applies it once).
    public var duplicate: Double
    /// Probability that a message gets extra delay of up to `reorderWindow`, so later ones overtake it.
    public var reorder: Double
    public var reorderWindow: EmulatedDuration
    /// CloudKit: changes leave in batches this often (nil: each change leaves at once).
    public var exportInterval: EmulatedDuration?
    public var partitions: [PartitionWindow]
    /// Windows of extra faults or latency (drawn by the nemesis).
    public var bursts: [FaultBurst] = []

    /// The fault probabilities and extra latency in force at `now`.
    func loss(at now: EmulatedInstant) -> Double { bursts.isEmpty ? loss : max(loss, bursts.filter { $0.covers(now) }.map(\.loss).max() ?? 0) }
    func duplicate(at now: EmulatedInstant) -> Double {
        bursts.isEmpty ? duplicate : max(duplicate, bursts.filter { $0.covers(now) }.map(\.duplicate).max() ?? 0)
    }
    func reorder(at now: EmulatedInstant) -> Double { bursts.isEmpty ? reorder : max(reorder, bursts.filter { $0.covers(now) }.map(\.reorder).max() ?? 0) }
    func extraLatency(at now: EmulatedInstant) -> EmulatedDuration {
        bursts.isEmpty ? .zero : bursts.filter { $0.covers(now) }.map(\.extraLatency).max() ?? .zero
    }

    public init(latency: LatencyModel = .zero, loss: Double = 0, duplicate: Double = 0, reorder: Double = 0,
                reorderWindow: EmulatedDuration = .seconds(5), exportInterval: EmulatedDuration? = nil,
                partitions: [PartitionWindow] = []) {
        self.latency = latency
        self.loss = loss
        self.duplicate = duplicate
        self.reorder = reorder
        self.reorderWindow = reorderWindow
        self.exportInterval = exportInterval
        self.partitions = partitions
    }
}

/// The emulator's own delivery guarantees (not modelled behaviour): retransmission and bounds.
public struct ReliabilityConfig: Hashable, Sendable {
    /// First retransmission this long after a transmission that was not acknowledged.
    public var retransmitInitial: EmulatedDuration
    /// Backoff doubles up to this.
    public var retransmitMax: EmulatedDuration
    /// Most messages on the wire unacknowledged per channel; the rest wait their turn.
    public var maxInFlight: Int
    /// Most messages an outbox holds; past it, new writes are refused with `sync.outbox.full`.
    public var outboxLimit: Int
    /// What a node's turn survives before anything it implies is published (R: K8).
    public var durability: Durability = .kill

    public enum Durability: String, Hashable, Sendable, CaseIterable {
        /// The node process being killed: turns reach the page cache, never synced (the default).
        case kill
        /// The device losing power: every turn's journal entry is synced before its frames
        /// leave. Costs an fsync a turn.
        case power
    }

    public init(retransmitInitial: EmulatedDuration = .seconds(2), retransmitMax: EmulatedDuration = .minutes(1),
                maxInFlight: Int = 1_024, outboxLimit: Int = 100_000) {
        self.retransmitInitial = retransmitInitial
        self.retransmitMax = retransmitMax
        self.maxInFlight = maxInFlight
        self.outboxLimit = outboxLimit
    }

    /// Delay before retransmission number `attempt` (1 = first retransmission).
    public func backoff(attempt: Int) -> EmulatedDuration {
        let shift = min(max(attempt - 1, 0), 20)
        return min(retransmitInitial * Int64(1 << shift), retransmitMax)
    }
}
