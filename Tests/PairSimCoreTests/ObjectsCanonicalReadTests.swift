import Testing
import TestSupport
@testable import PairSimCore

/// The canonical reading of an `objects` body (`HealthObjectsBatch.readCanonical`, what the sync
/// engine's decoding takes) against the JSON tree it short-cuts: whatever it reads, the tree
/// reads as the same batch.
@Suite("Wire codec: objects bodies read without a tree")
struct ObjectsCanonicalReadTests {
    static let sources: [ObjectSource] = [.watchApp, .phoneApp, .other("strava"), .other(String(repeating: "s", count: 24))]

    /// Samples of a few types and sources, instantaneous or not, with values at their edges.
    static func randomSamples(_ random: inout SplitMix64, uuids: inout UUIDGenerator) -> [HealthSample] {
        (0..<Int(1 + random.next() % 6)).map { _ in
            let type: SampleType = [.heartRate, .sleepAnalysis, .stepCount, .bodyMass][Int(random.next() % 4)]
            let range = type.validRange
            var value = [range.lowerBound, range.upperBound, random.uniform(range.lowerBound, range.upperBound)][Int(random.next() % 3)]
            if type == .sleepAnalysis { value = value.rounded(.down) }
            let start = EmulatedInstant(milliseconds: Int64(random.next() % 10_000_000_000))
            let end = random.next() % 2 == 0 ? start : start + .milliseconds(Int64(random.next() % 100_000))
            return HealthSample(uuid: uuids.next(at: .zero), type: type, start: start, end: end, value: value,
                                source: sources[Int(random.next() % UInt64(sources.count))])
        }
    }

    static func tree(_ body: [UInt8], limits: WireLimits) -> HealthObjectsBatch? {
        guard case .object(let object)? = try? JSONParser().parse(body) else { return nil }
        return try? HealthObjectsBatch(body: object, limits: limits)
    }

    static func canonical(_ body: [UInt8], limits: WireLimits) -> HealthObjectsBatch? {
        body.withUnsafeBufferPointer { HealthObjectsBatch.readCanonical($0, limits: limits) }
    }

    @Test("what nodes write is read without the tree, as the tree reads it")  // R: S1, S7
    func written() {
        var random = SplitMix64(seed: 51)
        var uuids = UUIDGenerator(seed: 51, label: "objects")
        for _ in 0..<3_000 {
            let batch = HealthObjectsBatch(samples: Self.randomSamples(&random, uuids: &uuids))
            let body = batch.bodyBytes
            let read = Self.canonical(body, limits: .default)
            expect(read != nil, "\(String(decoding: body, as: UTF8.self))")
            expectEqual(read, Self.tree(body, limits: .default))
            expectEqual(read?.samples, SampleSeries.group(batch.samples).flatMap(\.samples))
        }
    }

    @Test("mutated bodies: whatever is read without the tree, the tree reads the same")  // R: S7
    func mutated() {
        var random = SplitMix64(seed: 52)
        var uuids = UUIDGenerator(seed: 52, label: "objects")
        let alphabet = Array(#"{}[]",:0123456789 -.eE\abcdefnrtuvxyzACF"#.utf8) + [0x00, 0xC3, 0xA9, 0xFF]
        var taken = 0, accepted = 0
        for _ in 0..<20_000 {
            var body = HealthObjectsBatch(samples: Self.randomSamples(&random, uuids: &uuids)).bodyBytes
            WireCanonicalDecodeTests.mutate(&body, &random, alphabet: alphabet)
            let tree = Self.tree(body, limits: .default)
            if let read = Self.canonical(body, limits: .default) {
                expectEqual(read, tree, "\(String(decoding: body, as: UTF8.self))")
                taken += 1
            }
            accepted += tree != nil ? 1 : 0
        }
        // Some mutations keep the body valid (a digit for a digit): 1,834 of the 20,000 when written,
        // 1,803 of them still in the canonical form; the rest (a space, an exponent) the tree reads.
        expect(taken > 1_000 && accepted > taken, "read without the tree \(taken), accepted by the tree \(accepted)")
    }

    @Test("the item limit is the tree's")  // R: S7
    func limits() {
        var uuids = UUIDGenerator(seed: 53, label: "objects")
        let samples = (0..<6).map { index in
            HealthSample(uuid: uuids.next(at: .zero), type: index % 2 == 0 ? .heartRate : .stepCount,
                         start: .zero, end: .zero, value: 60, source: .watchApp)
        }
        let body = HealthObjectsBatch(samples: samples).bodyBytes
        for limit in 1...8 {
            var limits = WireLimits.default
            limits.maxItemsPerMessage = limit
            let read = Self.canonical(body, limits: limits)
            expectEqual(read, Self.tree(body, limits: limits), "limit \(limit)")
            expectEqual(read != nil, limit >= 6, "limit \(limit)")
        }
    }

    @Test("the sync engine's decoding hands the batch over, the body left empty")  // R: S1
    func throughTheDecoder() throws {
        var random = SplitMix64(seed: 54)
        var uuids = UUIDGenerator(seed: 54, label: "objects")
        let batch = HealthObjectsBatch(samples: Self.randomSamples(&random, uuids: &uuids))
        let envelope = Envelope(from: .watch, stream: "w.hk", seq: 3, sentAt: .zero, channel: .healthkit, kind: .objects, body: [:])
        let frame = WireCodec.encode(envelope, body: batch.bodyBytes)
        let frames = [Array(frame.topic.utf8), frame.payload]
        let plain = try WireCodec.decode(frames: frames)
        let read = try WireCodec.decode(frames: frames, readingObjects: true)
        expect(plain.objects == nil && read.body.count == 0)
        expectEqual(read.objects, try HealthObjectsBatch(body: plain.body, limits: .default))
        expectEqual(try HealthObjectsBatch(envelope: read, limits: .default), try HealthObjectsBatch(envelope: plain, limits: .default))
        var same = read
        same.objects = nil
        same.body = plain.body
        expectEqual(same, plain)
    }
}
