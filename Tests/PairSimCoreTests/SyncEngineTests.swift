import Testing
import TestSupport
@testable import PairSimCore

/// Two engines wired back to back, delivering frames by hand so tests control loss and order.
struct EnginePair {
    var watch: SyncEngine
    var phone: SyncEngine

    /// Lost acknowledgements seen so far (the phone's `sync.ack.lost` events).
    var acksLost = 0

    /// `phoneHealthkit`: the phone's side of the link (where its acks cross), default a clean one.
    init(healthkit: ChannelConfig = ChannelConfig(), phoneHealthkit: ChannelConfig = ChannelConfig(),
         reliability: ReliabilityConfig = ReliabilityConfig()) {
        watch = SyncEngine(node: .watch, boot: "w1", seed: 1, channels: [.healthkit: healthkit], reliability: reliability)
        phone = SyncEngine(node: .phone, boot: "p1", seed: 2, channels: [.healthkit: phoneHealthkit], reliability: reliability)
    }

    static func frames(_ frame: WireFrame) -> [[UInt8]] { [Array(frame.topic.utf8), frame.payload] }

    /// Delivers watch frames to the phone, accepting data; returns the phone's frames (acks).
    mutating func toPhone(_ frames: [WireFrame], now: EmulatedInstant) -> (applied: [UInt64], acks: [WireFrame]) {
        var applied: [UInt64] = []
        var acks: [WireFrame] = []
        for frame in frames {
            var (inbound, actions) = phone.receive(frames: Self.frames(frame), now: now)
            if case .data(let envelope) = inbound {
                applied.append(envelope.seq)
                actions += phone.accept(envelope, bytes: frame.payload.count, summary: [:], now: now)
            }
            acks += actions.frames
            acksLost += actions.events.filter { $0.name == "sync.ack.lost" }.count
        }
        return (applied, acks)
    }

    mutating func toWatch(_ frames: [WireFrame], now: EmulatedInstant) -> [NodeAction] {
        frames.flatMap { watch.receive(frames: Self.frames($0), now: now).1 }
    }

    mutating func send(_ now: EmulatedInstant) -> [WireFrame] {
        watch.send(.healthkit, kind: .objects, body: [:], summary: [:], now: now).frames
    }
}

@Suite("Sync engine: sequence numbers, acknowledgements, retransmission")
struct SyncEngineTests {
    let t0 = EmulatedInstant.zero

    @Test("a message goes out at once, is applied once and acknowledged")  // R: S5, S6
    func deliverAndAck() {
        var pair = EnginePair()
        let sent = pair.send(t0)
        expectEqual(sent.count, 1)
        let (applied, acks) = pair.toPhone(sent, now: t0)
        expectEqual(applied, [1])
        expectEqual(pair.watch.pending(.healthkit), 1)
        _ = pair.toWatch(acks, now: t0)
        expectEqual(pair.watch.pending(.healthkit), 0)
    }

    @Test("an acknowledged message leaves no deadline behind: the sender does not wake for its old retry timer, nor for one a retransmission replaced")  // R: S5
    func acknowledgedLeavesNoDeadline() {
        var pair = EnginePair(reliability: ReliabilityConfig(retransmitInitial: .seconds(2), retransmitMax: .seconds(8)))
        let sent = pair.send(t0)
        expectEqual(pair.watch.nextDeadline, t0 + .seconds(2))
        let (_, acks) = pair.toPhone(sent, now: t0)
        _ = pair.toWatch(acks, now: t0 + .milliseconds(5))
        expectEqual(pair.watch.nextDeadline, nil)
        // Two more, at 10 s and 11 s: the first is lost and retransmitted at 12 s (next retry at 16 s);
        // the second arrives and is acknowledged.
        _ = pair.send(t0 + .seconds(10))
        let second = pair.send(t0 + .seconds(11))
        expectEqual(pair.watch.advance(to: t0 + .seconds(12)).frames.count, 1)
        expectEqual(pair.watch.nextDeadline, t0 + .seconds(13))
        _ = pair.toWatch(pair.toPhone(second, now: t0 + .seconds(12)).acks, now: t0 + .seconds(12))
        // The second's retry timer (13 s) went with its acknowledgement: the first's is next.
        expectEqual(pair.watch.nextDeadline, t0 + .seconds(16))
    }

    @Test("a duplicate delivery is dropped but acknowledged again")  // R: S6
    func duplicates() {
        var pair = EnginePair()
        let sent = pair.send(t0)
        let first = pair.toPhone(sent, now: t0)
        let second = pair.toPhone(sent, now: t0)
        expectEqual(first.applied, [1])
        expect(second.applied.isEmpty)
        expectEqual(second.acks.count, 1)
        expectEqual(pair.phone.counters(.healthkit).duplicatesDropped, 1)
    }

    @Test("an unacknowledged message is retransmitted with backoff until acknowledged")  // R: S5
    func retransmits() {
        var pair = EnginePair(reliability: ReliabilityConfig(retransmitInitial: .seconds(2), retransmitMax: .seconds(8)))
        _ = pair.send(t0) // lost on the wire: never delivered
        expectEqual(pair.watch.nextDeadline, t0 + .seconds(2))
        var retransmitTimes: [Int64] = []
        var now = t0
        for _ in 0..<5 {
            now = pair.watch.nextDeadline!
            let actions = pair.watch.advance(to: now)
            if !actions.frames.isEmpty { retransmitTimes.append(now.milliseconds) }
        }
        expectEqual(retransmitTimes, [2_000, 6_000, 14_000, 22_000, 30_000])
        let (applied, acks) = pair.toPhone(pair.watch.advance(to: pair.watch.nextDeadline!).frames, now: now)
        expectEqual(applied, [1])
        _ = pair.toWatch(acks, now: now)
        expectEqual(pair.watch.pending(.healthkit), 0)
    }

    @Test("the peer appearing triggers immediate retransmission (slow joiner)")  // R: S5
    func peerAppeared() {
        var pair = EnginePair()
        _ = pair.send(t0)
        _ = pair.send(t0)
        let again = pair.watch.peerAppeared(now: t0 + .milliseconds(10)).frames
        expectEqual(again.count, 2)
        expectEqual(pair.toPhone(again, now: t0).applied, [1, 2])
    }

    @Test("latency delays release to the wire")  // R: S3
    func latency() {
        var pair = EnginePair(healthkit: ChannelConfig(latency: .constant(.seconds(3))))
        expect(pair.send(t0).isEmpty)
        expect(pair.watch.advance(to: t0 + .seconds(2)).frames.isEmpty)
        expectEqual(pair.watch.advance(to: t0 + .seconds(3)).frames.count, 1)
    }

    @Test("a partition holds messages until it ends")  // R: S3
    func partition() {
        var pair = EnginePair(healthkit: ChannelConfig(partitions: [PartitionWindow(from: t0, to: t0 + .minutes(1))]))
        expect(pair.send(t0 + .seconds(1)).isEmpty)
        expectEqual(pair.watch.nextDeadline, t0 + .minutes(1))
        expectEqual(pair.watch.advance(to: t0 + .minutes(1)).frames.count, 1)
        var manual = EnginePair()
        _ = manual.watch.setPartition(.healthkit, reason: "out-of-range", true, now: t0)
        expect(manual.send(t0).isEmpty)
        expectEqual(manual.watch.setPartition(.healthkit, reason: "out-of-range", false, now: t0 + .seconds(5)).frames.count, 1)
    }

    @Test("held messages leave after chained windows and after a manual partition ends inside a window")  // R: S3, S5
    func chainedPartitions() {
        var pair = EnginePair(healthkit: ChannelConfig(partitions: [
            PartitionWindow(from: t0, to: t0 + .minutes(10)), PartitionWindow(from: t0 + .minutes(10), to: t0 + .minutes(20)),
        ]))
        expect(pair.send(t0 + .minutes(1)).isEmpty)
        var sent: [WireFrame] = []
        var now = t0 + .minutes(1)
        while let next = pair.watch.nextDeadline, next <= t0 + .minutes(30), sent.isEmpty {
            now = next
            sent = pair.watch.advance(to: now).frames
        }
        expectEqual(now, t0 + .minutes(20))
        expectEqual(sent.count, 1)
        // A manual partition that ends while a scheduled one still holds: released when the window ends.
        var mixed = EnginePair(healthkit: ChannelConfig(partitions: [PartitionWindow(from: t0 + .minutes(5), to: t0 + .minutes(15))]))
        _ = mixed.watch.setPartition(.healthkit, reason: "offline", true, now: t0)
        expect(mixed.send(t0).isEmpty)
        expect(mixed.watch.setPartition(.healthkit, reason: "offline", false, now: t0 + .minutes(6)).frames.isEmpty)
        expectEqual(mixed.watch.nextDeadline, t0 + .minutes(15))
        expectEqual(mixed.watch.advance(to: t0 + .minutes(15)).frames.count, 1)
    }

    @Test("two manual reasons: the channel carries again only when both end")  // R: S3
    func partitionReasons() {
        var pair = EnginePair()
        _ = pair.watch.setPartition(.healthkit, reason: "offline", true, now: t0)
        _ = pair.watch.setPartition(.healthkit, reason: "out-of-range", true, now: t0)
        expect(pair.send(t0).isEmpty)
        expect(pair.watch.setPartition(.healthkit, reason: "out-of-range", false, now: t0).frames.isEmpty)
        expectEqual(pair.watch.setPartition(.healthkit, reason: "offline", false, now: t0).frames.count, 1)
    }

    @Test("with loss, everything still arrives exactly once")  // R: S5, S6
    func lossyChannel() {
        var pair = EnginePair(healthkit: ChannelConfig(loss: 0.4, duplicate: 0.3, reorder: 0.3))
        var now = t0
        var applied: [UInt64] = []
        var inFlight: [WireFrame] = []
        for _ in 0..<30 { inFlight += pair.send(now) }
        for _ in 0..<2_000 where pair.watch.pending(.healthkit) > 0 {
            let (got, acks) = pair.toPhone(inFlight, now: now)
            applied += got
            _ = pair.toWatch(acks, now: now)
            now = max(now + .milliseconds(1), pair.watch.nextDeadline ?? now)
            inFlight = pair.watch.advance(to: now).frames
        }
        expectEqual(pair.watch.pending(.healthkit), 0)
        expectEqual(applied.sorted(), Array(1...30))
        expect(pair.watch.counters(.healthkit).lost > 0)
    }

    @Test("acks cross the lossy link too: a lost ack means a retransmission, acknowledged again")  // R: S5, S6
    func lostAcks() {
        let lossy = ChannelConfig(loss: 0.5)
        var pair = EnginePair(healthkit: lossy, phoneHealthkit: lossy)
        var now = t0
        var applied: [UInt64] = []
        // One message at a time, so a lost ack is not covered by a later cumulative one.
        for _ in 0..<30 {
            var inFlight = pair.send(now)
            for _ in 0..<1_000 where pair.watch.pending(.healthkit) > 0 {
                let (got, acks) = pair.toPhone(inFlight, now: now)
                applied += got
                _ = pair.toWatch(acks, now: now)
                now = max(now + .milliseconds(1), pair.watch.nextDeadline ?? now)
                inFlight = pair.watch.advance(to: now).frames
            }
        }
        expectEqual(pair.watch.pending(.healthkit), 0)
        expectEqual(applied, Array(1...30))
        expect(pair.acksLost > 0)
        // Messages that arrived but whose ack was lost came again, and were acknowledged again.
        expect(pair.phone.counters(.healthkit).duplicatesDropped > 0)
    }

    @Test("a partition cuts both ways: what reaches a node whose side is cut is dropped unread, and comes again after")  // R: S5
    func partitionDropsInbound() {
        var pair = EnginePair()
        let sent = pair.send(t0)
        _ = pair.phone.setPartition(.healthkit, reason: "offline", true, now: t0)
        let (inbound, actions) = pair.phone.receive(frames: EnginePair.frames(sent[0]), now: t0)
        expectEqual(inbound, .unreachable)
        expect(actions.frames.isEmpty && actions.events.map(\.name) == ["sync.dropped"])
        _ = pair.phone.setPartition(.healthkit, reason: "offline", false, now: t0)
        let retransmitted = pair.watch.advance(to: pair.watch.nextDeadline!).frames
        let second = pair.toPhone(retransmitted, now: t0 + .seconds(2))
        expectEqual(second.applied, [1])
        _ = pair.toWatch(second.acks, now: t0 + .seconds(2))
        expectEqual(pair.watch.pending(.healthkit), 0)
    }

    @Test("a full in-flight window queues the rest in order")
    func window() {
        var pair = EnginePair(reliability: ReliabilityConfig(maxInFlight: 2))
        let sent = (0..<4).flatMap { _ in pair.send(t0) }
        expectEqual(sent.count, 2)
        let (_, acks) = pair.toPhone(sent, now: t0)
        let next = pair.toWatch(acks, now: t0).frames
        expectEqual(pair.toPhone(next, now: t0).applied, [3, 4])
    }

    @Test("a node refuses frames claiming to come from itself")  // R: S7
    func refusesOwnFrames() {
        var pair = EnginePair()
        let frame = pair.send(t0)[0]
        let (inbound, actions) = pair.watch.receive(frames: EnginePair.frames(frame), now: t0)
        guard case .rejected = inbound else { Issue.record("expected rejection"); return }
        expectEqual(actions.events.map(\.name), ["wire.rejected"])
    }

    @Test("each channel keeps its own outbox: the engine's per-channel storage is indexed by Channel.allCases")  // R: S2, X1
    func perChannelStorage() {
        expectEqual(Channel.allCases.map(\.position), Array(Channel.allCases.indices))
        var channels = PerChannel { $0.rawValue }
        channels[.cloudkit] += "!"
        expectEqual(channels.all, ["healthkit", "cloudkit!", "watchconnectivity"])
        expectEqual(Channel.allCases.map { channels[$0] }, channels.all)
    }
}
