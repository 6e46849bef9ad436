import Testing
import TestSupport
@testable import PairSimCore

/// The canonical decoding path (`WireCodec.decodeCanonical`) against the JSON-tree path it
/// short-cuts: whatever it accepts, the tree path accepts as the same envelope.
@Suite("Wire codec: canonical decoding")
struct WireCanonicalDecodeTests {
    static let streams = ["boot.hk", "s", String(repeating: "x", count: 64), String(repeating: "y", count: 65), "",
                          "quote\"d", "back\\slash", "tab\there", "naïve", "new\nline"]
    static let kinds: [(Channel?, MessageKind)] = [
        (nil, .hello), (.healthkit, .objects), (.healthkit, .ack), (.cloudkit, .records), (.cloudkit, .ack),
        (.watchconnectivity, .message), (.watchconnectivity, .link), (.watchconnectivity, .ack),
    ]

    static func randomJSON(_ random: inout SplitMix64, depth: Int) -> JSON {
        switch random.next() % (depth > 34 ? 4 : 6) {
        case 0: return .int(Int64(bitPattern: random.next()) >> Int64(random.next() % 64))
        case 1: return .double(random.uniform(-1e6, 1e6))
        case 2: return .string(streams[Int(random.next() % UInt64(streams.count))])
        case 3: return random.next() % 2 == 0 ? .null : .bool(random.next() % 2 == 0)
        case 4: return .array((0..<Int(random.next() % 3)).map { _ in randomJSON(&random, depth: depth + 1) })
        default: return .object(randomObject(&random, depth: depth + 1))
        }
    }

    static func randomObject(_ random: inout SplitMix64, depth: Int) -> JSONObject {
        var object = JSONObject()
        for index in 0..<Int(random.next() % 4) { object.append("k\(index)", randomJSON(&random, depth: depth)) }
        return object
    }

    static func randomEnvelope(_ random: inout SplitMix64) -> Envelope {
        let (channel, kind) = kinds[Int(random.next() % UInt64(kinds.count))]
        // Mostly the sequence numbers the kind allows, sometimes not.
        let seqs: [UInt64] = kind.isData ? [1, 7, 999_999_999_999_999_999, UInt64(Int64.max), 0] : [0, 0, 0, 0, 3]
        let times: [Int64] = [0, 5, 1_700_000_000_000, FieldReader.maxTime, FieldReader.maxTime + 1]
        return Envelope(from: random.next() % 2 == 0 ? .watch : .phone, stream: streams[Int(random.next() % UInt64(streams.count))],
                        seq: seqs[Int(random.next() % 5)], sentAt: EmulatedInstant(milliseconds: times[Int(random.next() % 5)]),
                        channel: channel, kind: kind, body: randomObject(&random, depth: 2))
    }

    /// Both paths on one frame: the canonical one, if it takes the frame, must agree with the tree.
    static func compare(_ frame: WireFrame, limits: WireLimits = .default) -> (canonical: Bool, tree: Result<Envelope, WireError>) {
        guard let (channel, kind) = Topic.parse(frame.topic) else { Issue.record("bad topic"); return (false, .failure(WireError(.unknownTopic, ""))) }
        let tree = Result { () throws(WireError) -> Envelope in try WireCodec.decodeTree(frame, channel: channel, kind: kind, limits: limits) }
        guard let canonical = WireCodec.decodeCanonical(frame.payload, channel: channel, kind: kind, limits: limits) else { return (false, tree) }
        expectEqual(tree, .success(canonical), "\(String(decoding: frame.payload, as: UTF8.self))")
        return (true, tree)
    }

    /// One or two bytes changed, inserted or removed, from `alphabet`.
    static func mutate(_ bytes: inout [UInt8], _ random: inout SplitMix64, alphabet: [UInt8]) {
        for _ in 0..<(1 + Int(random.next() % 2)) {
            let at = Int(random.next() % UInt64(bytes.count))
            let byte = alphabet[Int(random.next() % UInt64(alphabet.count))]
            switch random.next() % 3 {
            case 0: bytes[at] = byte
            case 1: bytes.insert(byte, at: at)
            default: bytes.remove(at: at)
            }
        }
    }

    @Test("what encode writes takes the canonical path, with the tree's result")  // R: S1, S7
    func encodedFrames() {
        var random = SplitMix64(seed: 41)
        var taken = 0, refused = 0
        for _ in 0..<3_000 {
            let envelope = Self.randomEnvelope(&random)
            let frame = WireCodec.encode(envelope)
            let (canonical, tree) = Self.compare(frame)
            if case .success(let decoded) = tree {
                expectEqual(decoded, envelope)
                // Every accepted envelope with a plain stream is read without the tree.
                let plain = envelope.stream.utf8.allSatisfy { (0x20..<0x7F).contains($0) && $0 != 0x22 && $0 != 0x5C }
                expectEqual(canonical, plain, "\(envelope)")
                taken += canonical ? 1 : 0
            } else {
                expect(!canonical)
                refused += 1
            }
        }
        // Both outcomes occur often enough to mean something.
        expect(taken > 300 && refused > 300, "taken \(taken), refused \(refused)")
    }

    @Test("mutated frames: whatever the canonical path takes, the tree takes the same")  // R: S7
    func mutatedFrames() {
        var random = SplitMix64(seed: 42)
        let alphabet = Array(#"{}[]",:0123456789 -.eE\abnrtuvxyz"#.utf8) + [0x00, 0xC3, 0xA9, 0xFF]
        var taken = 0
        for _ in 0..<20_000 {
            let envelope = Self.randomEnvelope(&random)
            var payload = WireCodec.encode(envelope).payload
            Self.mutate(&payload, &random, alphabet: alphabet)
            taken += Self.compare(WireFrame(topic: envelope.topic, payload: payload)).canonical ? 1 : 0
        }
        expect(taken > 300, "the canonical path took \(taken) mutated frames")
    }

    @Test("envelopes and ack bodies written directly are the bytes JSONWriter writes for their trees")  // R: S1
    func directWriting() {
        var random = SplitMix64(seed: 43)
        for _ in 0..<2_000 {
            let envelope = Self.randomEnvelope(&random)
            var tree = JSONObject()
            tree.append("v", .int(Envelope.version))
            tree.append("from", .string(envelope.from.rawValue))
            tree.append("stream", .string(envelope.stream))
            tree.append("seq", .int(Int64(envelope.seq)))
            tree.append("sentAt", .int(envelope.sentAt.milliseconds))
            if let channel = envelope.channel { tree.append("channel", .string(channel.rawValue)) }
            tree.append("kind", .string(envelope.kind.rawValue))
            tree.append("body", .object(envelope.body))
            expectEqual(WireCodec.encode(envelope).payload, JSONWriter.bytes(.object(tree)))

            var window = InboundWindow(stream: envelope.stream, cumulative: random.next() % 1_000)
            for _ in 0..<Int(random.next() % 4 == 0 ? 600 : random.next() % 5) { window.above.insert(window.cumulative + 2 + random.next() % 5_000) }
            let selective = window.above.sorted().prefix(SyncEngine.maxSelective).map { JSON.int(Int64($0)) }
            let body: JSONObject = ["upTo": .int(Int64(window.cumulative)), "selective": .array(Array(selective))]
            expectEqual(SyncEngine.ackBody(window), JSONWriter.bytes(.object(body)))
        }
    }

    @Test("the body's nesting and size limits are the tree's")  // R: S7
    func limits() {
        for depth in 29...33 {
            var body: JSON = .int(1)
            for _ in 0..<depth { body = .array([body]) }
            let frame = WireCodec.encode(Envelope(from: .watch, stream: "s", seq: 1, sentAt: .zero, channel: .healthkit,
                                                  kind: .objects, body: ["deep": body]))
            let (canonical, tree) = Self.compare(frame)
            expectEqual(canonical, ((try? tree.get()) != nil), "depth \(depth)")
        }
        var small = WireLimits.default
        small.maxItemsPerMessage = 1
        for count in 7...9 {
            var body = JSONObject()
            for index in 0..<count { body.append("k\(index)", .int(1)) }
            let frame = WireCodec.encode(Envelope(from: .watch, stream: "s", seq: 1, sentAt: .zero, channel: .healthkit,
                                                  kind: .objects, body: body))
            let (canonical, tree) = Self.compare(frame, limits: small)
            expectEqual(canonical, ((try? tree.get()) != nil), "\(count) members")
        }
    }
}
