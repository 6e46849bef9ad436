import Testing
import TestSupport
@testable import PairSimCore

/// The turn journal writes a node's values with `NodeValue.writeJSON`, the sync value without its
/// JSON tree: the bytes must be the tree's, or a journal written now would read back differently.
@Suite("Sync value's journal spelling")
struct SyncSnapshotJSONTests {
    static func text(_ random: inout SplitMix64) -> String {
        let pieces = ["cs6izn19o.hk", "s", "", "quote \" and \\ back", "tab\tnew\nline", "é", "😀", "\u{1}"]
        return (0..<Int(random.next() % 3)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
    }

    static func snapshot(_ random: inout SplitMix64) -> SyncEngine.Snapshot {
        let edges: [UInt64] = [0, 1, 9, 10, 99_999, UInt64(Int64.max)]
        func seq() -> UInt64 { random.next() % 4 == 0 ? edges[Int(random.next() % UInt64(edges.count))] : random.next() % 1_000_000 }
        let channels = Channel.allCases.filter { _ in random.next() % 5 != 0 }.map { channel in
            SyncEngine.Snapshot.ChannelState(
                channel: channel, stream: text(&random), nextSeq: seq(),
                inbound: (0..<Int(random.next() % 4)).map { _ in
                    InboundWindow(stream: text(&random), cumulative: seq(), above: Set((0..<Int(random.next() % 5)).map { _ in max(1, seq()) }))
                })
        }
        return SyncEngine.Snapshot(channels: channels)
    }

    @Test("written directly, the sync value's bytes are its JSON tree's, for 5,000 random snapshots")  // R: K1
    func syncMatchesTree() {
        var random = SplitMix64(seed: 2_030)
        for round in 0..<5_000 {
            let snapshot = Self.snapshot(&random)
            var direct: [UInt8] = [0x7A]  // appended after what is there
            snapshot.writeJSON(into: &direct)
            expectEqual(direct, [0x7A] + JSONWriter.bytes(snapshot.json), "round \(round): \(JSONWriter.string(snapshot.json))")
            var value: [UInt8] = []
            NodeValue.sync(snapshot).writeJSON(into: &value)
            expectEqual(value, JSONWriter.bytes(NodeValue.sync(snapshot).json), "round \(round) as a NodeValue")
        }
    }

    @Test("every other value is written as its JSON tree")  // R: K1
    func otherValuesMatchTree() {
        let values: [NodeValue] = [.storeAnchor(0), .storeAnchor(Int64.min), .storeAnchor(Int64.max), .watchFailNextFinish(true),
                                   .watchNextRestingAt(nil), .phoneUUIDs(UInt64.max), .watchPartitions([]), .phoneDeferred([])]
        for value in values {
            var direct: [UInt8] = []
            value.writeJSON(into: &direct)
            expectEqual(direct, JSONWriter.bytes(value.json), "\(value.key.name)")
        }
    }
}
