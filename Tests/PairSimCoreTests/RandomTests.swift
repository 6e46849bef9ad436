import Foundation
import Testing
import TestSupport
@testable import PairSimCore

@Suite("Seeded randomness")
struct RandomTests {
    @Test("a seed gives the same sequence; labels give independent ones")
    func seeded() {
        var a = SplitMix64(seed: 42), b = SplitMix64(seed: 42)
        expectEqual((0..<5).map { _ in a.next() }, (0..<5).map { _ in b.next() })
        var c = SplitMix64(seed: 42, label: "x"), d = SplitMix64(seed: 42, label: "y")
        expect(c.next() != d.next())
    }

    @Test("UUIDs are seeded, version 7 and time-ordered")
    func uuids() {
        var first = UUIDGenerator(seed: 1, label: "t"), second = UUIDGenerator(seed: 1, label: "t")
        let a = first.next(at: EmulatedInstant(milliseconds: 1_000))
        expectEqual(a, second.next(at: EmulatedInstant(milliseconds: 1_000)))
        let b = first.next(at: EmulatedInstant(milliseconds: 2_000))
        expect(a.text < b.text)
        expectEqual(a.text.dropFirst(14).first, "7")
    }

    @Test("lognormal latency has the configured median")
    func lognormalMedian() {
        var random = SplitMix64(seed: 9)
        let model = LatencyModel.lognormal(median: .seconds(15), p99: .minutes(20))
        let draws = (0..<4_001).map { _ in model.draw(using: &random).milliseconds }.sorted()
        let median = Double(draws[2_000])
        expect(median > 12_000 && median < 18_000)
        let p99 = Double(draws[3_960])
        expect(p99 > 600_000 && p99 < 2_400_000)
    }
}
