import PairSimConfig
import PairSimCore

/// Faults drawn from the seed (R: V2): node kills (half of them mid-turn) with a restart after a
/// random downtime, and Bluetooth partitions of random length, at random instants. Everything the nemesis does starts
/// in the first 80% of the run and is over by 90%, so a correct pair has time to converge; the
/// same seed always draws the same faults.
public enum Nemesis {
    /// Quiet time added after the scenario's end in runs with the nemesis (and their fault-free
    /// twins), so that what a fault delayed lands before the invariants are checked: longer than
    /// the default retransmission backoff (1 min) plus CloudKit's p99 latency (2 min) plus the
    /// largest latency spike (5 min).
    public static let settle = EmulatedDuration.minutes(15)

    /// Whether a seed with `nemesis` plays the real journal and SQLite on a faulty disk (R: K8):
    /// drawn from the seed alone, so a swarm can hand out those seeds, which cost ~6× more, first.
    public static func drawsRealStorage(_ nemesis: NemesisSpec?, seed: UInt64) -> Bool {
        guard let nemesis else { return false }
        var draw = SplitMix64(seed: seed, label: "nemesis.storage")
        return draw.chance(nemesis.realStorage)
    }

    public static func draw(_ spec: NemesisSpec, seed: UInt64, duration: EmulatedDuration) -> [TimelineEntry] {
        var random = SplitMix64(seed: seed, label: "nemesis")
        // Whether each kill lands mid-turn, drawn apart so it does not move the kills.
        var midTurn = SplitMix64(seed: seed, label: "nemesis.midturn")
        let total = Double(duration.milliseconds)
        let first = total * 0.01, last = total * 0.8, over = total * 0.9
        var entries: [TimelineEntry] = []
        var busy: [NodeName: [(Double, Double)]] = [.watch: [], .phone: []]
        var partitions: [(Double, Double)] = []
        func free(_ intervals: [(Double, Double)], _ start: Double, _ end: Double) -> Bool {
            !intervals.contains { start < $0.1 && $0.0 < end }
        }
        func at(_ ms: Double) -> EmulatedInstant { .zero + .milliseconds(Int64(ms)) }
        for _ in 0..<spec.crashes {
            for _ in 0..<20 { // a few draws to find a free moment; a crowded run gets fewer crashes
                let node: NodeName = random.chance(0.5) ? .watch : .phone
                let start = random.uniform(first, last)
                let end = min(start + random.uniform(1_000, Double(spec.maxDowntime.milliseconds)), over)
                guard free(busy[node]!, start - 1_000, end + 1_000) else { continue }
                busy[node]!.append((start, end))
                let kill = DriverCommand.killNode.rawValue + (midTurn.chance(0.5) ? " --mid-turn" : "")
                entries.append(TimelineEntry(at: at(start), node: node, command: kill))
                entries.append(TimelineEntry(at: at(end), node: node, command: DriverCommand.restartNode.rawValue))
                break
            }
        }
        for _ in 0..<spec.partitions {
            for _ in 0..<20 {
                let start = random.uniform(first, last)
                let end = min(start + random.uniform(60_000, Double(spec.maxPartition.milliseconds)), over)
                guard free(partitions, start - 1_000, end + 1_000) else { continue }
                partitions.append((start, end))
                entries.append(TimelineEntry(at: at(start), node: .watch, command: "out-of-range"))
                entries.append(TimelineEntry(at: at(end), node: .watch, command: "in-range"))
                break
            }
        }
        return entries.sorted { $0.at < $1.at }
    }

    /// The nemesis's fault bursts and latency spikes, each on one channel: heavy loss,
    /// duplication or reordering, or every message delayed 10 s to 5 min more. Drawn from the seed
    /// apart from the kills and partitions (adding bursts does not move them).
    public static func bursts(_ spec: NemesisSpec, seed: UInt64, duration: EmulatedDuration) -> [(Channel, FaultBurst)] {
        var random = SplitMix64(seed: seed, label: "nemesis.bursts")
        let total = Double(duration.milliseconds)
        var result: [(Channel, FaultBurst)] = []
        for _ in 0..<spec.bursts {
            let channel: Channel = random.chance(0.5) ? .healthkit : .cloudkit
            let start = random.uniform(total * 0.01, total * 0.8)
            let end = min(start + random.uniform(30_000, Double(spec.maxBurst.milliseconds)), total * 0.9)
            let from = EmulatedInstant.zero + .milliseconds(Int64(start)), to = EmulatedInstant.zero + .milliseconds(Int64(end))
            var burst = FaultBurst(from: from, to: to)
            switch Int(random.uniform(0, 4)) {
            case 0: burst.loss = random.uniform(0.3, 0.9)
            case 1: burst.duplicate = random.uniform(0.2, 0.6)
            case 2: burst.reorder = random.uniform(0.3, 0.8)
            default: burst.extraLatency = .milliseconds(Int64(random.uniform(10_000, 300_000)))
            }
            result.append((channel, burst))
        }
        return result
    }
}
