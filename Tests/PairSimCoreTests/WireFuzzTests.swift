import Foundation
import Testing
import TestSupport
@testable import PairSimCore

/// What docs/PROTOCOL.md promises, read from the page itself: the rejection codes of its "Bad
/// input" table and the accepted values of its sample-type table.
struct ProtocolPage {
    var codes: [String] = []
    /// Sample type → (lowest, highest, whole numbers only).
    var ranges: [SampleType: (low: Double, high: Double, whole: Bool)] = [:]

    init() throws {
        let text = try DocsTests.doc("PROTOCOL.md")
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let name = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            if let type = SampleType(rawValue: name), cells.count >= 3 {
                let values = cells[2]
                if let dash = values.range(of: "–"), let low = Double(values[..<dash.lowerBound].replacingOccurrences(of: ",", with: "")),
                   let high = Double(values[dash.upperBound...].replacingOccurrences(of: ",", with: "")) {
                    ranges[type] = (low, high, false)
                } else {
                    // A category: "0 inBed, 1 asleep, …" — its numbers are the accepted values.
                    let numbers = values.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "") }
                    ranges[type] = (numbers.min()!, numbers.max()!, true)
                }
            }
        }
        // Every row of the "Bad input" table names a code.
        let badInput = text.components(separatedBy: "## Bad input")[1].components(separatedBy: "\n## ")[0]
        for line in badInput.split(separator: "\n") where line.hasPrefix("| `") {
            codes.append(String(line.split(separator: "`")[1]))
        }
    }
}

/// A seeded stream of hostile and valid frames, each with the outcome the page promises.
struct FrameFuzzer {
    enum Expect: Equatable { case accepted, duplicate, control, refused(WireError.Code) }

    var random: SplitMix64
    let page: ProtocolPage
    var uuids: UUIDGenerator
    var seq: Int64 = 0
    static let limits = WireLimits(maxEnvelopeBytes: 64 << 10, maxItemsPerMessage: 200)

    init(seed: UInt64, page: ProtocolPage) {
        random = SplitMix64(seed: seed, label: "wire-fuzz")
        uuids = UUIDGenerator(seed: seed, label: "wire-fuzz")
        self.page = page
    }

    mutating func pick<T>(_ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }
    mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(random.next() % UInt64(range.count)) }

    /// A value the page accepts for `type`.
    mutating func goodValue(_ type: SampleType) -> JSON {
        let (low, high, whole) = page.ranges[type]!
        return whole ? .int(Int64(int(Int(low)...Int(high)))) : .double(random.uniform(low, high))
    }

    /// A value the page refuses for `type`.
    mutating func badValue(_ type: SampleType) -> JSON {
        let (low, high, whole) = page.ranges[type]!
        if whole, random.chance(0.5) { return .double(Double(int(Int(low)...Int(high) - 1)) + 0.5) }
        return .double(random.chance(0.5) ? low - 1 - random.uniform(0, 100) : high + 1 + random.uniform(0, 100))
    }

    mutating func sample() -> JSONObject {
        let type = pick(SampleType.allCases)
        let start = Int64(int(0...1_000_000))
        return ["uuid": .string(uuids.next(at: .zero).text), "type": .string(type.rawValue), "start": .int(start),
                "end": .int(start + Int64(int(0...60_000))), "value": goodValue(type), "source": "watch-app"]
    }

    mutating func workout() -> JSONObject {
        let start = Int64(int(0...1_000_000))
        return ["uuid": .string(uuids.next(at: .zero).text), "activity": "running", "start": .int(start), "end": .int(start + 600_000),
                "activeDuration": 600_000, "activeEnergy": .double(random.uniform(0, 50_000)), "source": "watch-app"]
    }

    mutating func body() -> JSONObject {
        var body = JSONObject()
        body.append("samples", .array((0..<int(1...5)).map { _ in .object(sample()) }))
        if random.chance(0.3) { body.append("workouts", [.object(workout())]) }
        if random.chance(0.3) {
            body.append("deleted", [.object(["uuid": .string(uuids.next(at: .zero).text), "type": .string(pick(ObjectType.all).name)])])
        }
        return body
    }

    static func envelope(seq: Int64, channel: String?, kind: String, body: JSONObject) -> JSONObject {
        var object: JSONObject = ["v": 1, "from": "watch", "stream": "fz.hk", "seq": .int(seq), "sentAt": 1_000]
        if let channel { object.append("channel", .string(channel)) }
        object.append("kind", .string(kind))
        object.append("body", .object(body))
        return object
    }

    /// A whole number written with a fraction (`7.0`), which "integer" fields refuse. PairSim's
    /// writer prints whole doubles as integers, so a marker string is swapped in after writing.
    static func fractional(_ n: Int64) -> JSON { .string("~frac~\(n)") }

    static func frames(_ topic: String, _ object: JSONObject) -> [[UInt8]] {
        let text = String(decoding: JSONWriter.bytes(.object(object)), as: UTF8.self)
            .replacingOccurrences(of: #""~frac~(-?[0-9]+)""#, with: "$1.0", options: .regularExpression)
        return [Array(topic.utf8), Array(text.utf8)]
    }

    mutating func validData() -> [[UInt8]] {
        seq += 1
        return Self.frames("hk.objects", Self.envelope(seq: seq, channel: "healthkit", kind: "objects", body: body()))
    }

    /// One frame of a random class and what the page says happens to it.
    mutating func next(previous: [[UInt8]]?) -> ([[UInt8]], Expect) {
        switch int(0...11) {
        case 0, 1:
            return (validData(), .accepted)
        case 2:
            if let previous { return (previous, .duplicate) }
            return (validData(), .accepted)
        case 3:
            let kind = pick(["ack", "hello"])
            let body: JSONObject = kind == "ack"
                ? ["upTo": .int(Int64(int(0...100))), "selective": .array((0..<int(0...SyncEngine.maxSelective)).map { _ in .int(Int64(int(101...10_000))) })]
                : ["streams": .object(["healthkit": "w9.hk", "cloudkit": "w9.ck"])]
            return (Self.frames(kind == "ack" ? "ack.hk" : "hello", Self.envelope(seq: 0, channel: kind == "ack" ? "healthkit" : nil, kind: kind, body: body)), .control)
        case 4:
            let good = validData()
            return (pick([[good[0]], good + [[0]], good + good]), .refused(.frameCount))
        case 5:
            let topic: [UInt8] = random.chance(0.5) ? Array(pick(["hk.object", "ck.records.x", "", "HELLO", "ack"]).utf8) : [0xFF, 0xC3, 0x28]
            return ([topic, validData()[1]], .refused(.unknownTopic))
        case 6:
            var body = body()
            body["padding"] = .string(String(repeating: "x", count: Self.limits.maxEnvelopeBytes))
            return (Self.frames("hk.objects", Self.envelope(seq: 1, channel: "healthkit", kind: "objects", body: body)), .refused(.oversized))
        case 7:
            let payload = validData()[1]
            let broken: [UInt8] = switch int(0...2) {
            case 0: Array(payload.prefix(int(0...payload.count - 1)))
            case 1: (0..<int(1...200)).map { _ in UInt8(truncatingIfNeeded: random.next()) } + [0x00]
            default: Array(#"{"v":1,"v":1}"#.utf8)  // a duplicate key
            }
            return ([Array("hk.objects".utf8), broken], .refused(.notJSON))
        case 8:
            var object = Self.envelope(seq: 1, channel: "healthkit", kind: "objects", body: body())
            object["v"] = pick([2, 0, "1", 1.5, -1, true] as [JSON])
            return (Self.frames("hk.objects", object), .refused(.unsupportedVersion))
        case 9:
            return (badEnvelope(), .refused(.badEnvelope))
        default:
            return (badBody(), .refused(.badBody))
        }
    }

    mutating func badEnvelope() -> [[UInt8]] {
        var object = Self.envelope(seq: 1, channel: "healthkit", kind: "objects", body: body())
        var topic = "hk.objects"
        switch int(0...13) {
        case 0: object[pick(["from", "stream", "seq", "sentAt", "kind", "body"])] = nil
        case 1: object["seq"] = .int(-Int64(int(1...1_000)))
        case 2: object["seq"] = Self.fractional(1)
        case 3: object["sentAt"] = .int(-Int64(int(1...1_000)))
        case 4: object["sentAt"] = .int(FieldReader.maxTime + 1)
        case 5: object["sentAt"] = Self.fractional(1_000)
        case 6: object["from"] = pick(["phone", "toaster", ""] as [JSON])
        case 7: object["stream"] = pick(["", .string(String(repeating: "s", count: 65))] as [JSON])
        case 8: object["channel"] = "cloudkit"
        case 9: object["kind"] = "records"
        case 10: object["body"] = pick([[1], "body", 7] as [JSON])
        case 11:
            topic = "ack.hk"
            object = Self.envelope(seq: Int64(int(1...9)), channel: "healthkit", kind: "ack", body: ["upTo": 1])
        case 12:
            topic = "hello"
            object = Self.envelope(seq: Int64(int(1...9)), channel: nil, kind: "hello",
                                   body: ["streams": .object(["healthkit": "a", "cloudkit": "b"])])
        default: object["seq"] = 0
        }
        return Self.frames(topic, object)
    }

    mutating func badBody() -> [[UInt8]] {
        seq += 1
        var body = body()
        var topic = "hk.objects", kind = "objects", channel: String? = "healthkit", envelopeSeq = seq
        var sample = sample()
        let type = SampleType(rawValue: sample["type"]!.stringValue!)!
        let mutation = int(0...12)
        let badSample = mutation <= 5
        switch mutation {
        case 0: sample["value"] = badValue(type)
        case 1: sample["start"] = pick([Self.fractional(1), -5, .int(FieldReader.maxTime + 1)] as [JSON]); sample["end"] = sample["start"]
        case 2: sample["end"] = .int(sample["start"]!.exactIntValue! - 1)
        case 3: sample["uuid"] = pick(["not-a-uuid", "", 42] as [JSON])
        case 4: sample["type"] = pick(["hr", "caffeine", "workout"] as [JSON])
        case 5: sample["source"] = pick(["", .string(String(repeating: "a", count: 25))] as [JSON])
        case 6: body["deleted"] = [.object(["uuid": .string(uuids.next(at: .zero).text), "type": .string(pick(["hr", "hrv", "steps", "workouts", "sleep"]))])]
        case 7:
            var workout = workout()
            workout["activeEnergy"] = .double(50_000 + random.uniform(0.5, 1_000))
            body["workouts"] = [.object(workout)]
        case 8:
            var workout = workout()
            workout["activity"] = .string(String(repeating: "r", count: Workout.maxActivityBytes + 1))
            body["workouts"] = [.object(workout)]
        case 9:
            body["samples"] = .array((0..<(Self.limits.maxItemsPerMessage + 1)).map { _ in .object(self.sample()) })
        case 10:
            topic = "ack.hk"; kind = "ack"; envelopeSeq = 0
            body = ["upTo": 3, "selective": .array((0...SyncEngine.maxSelective).map { .int(Int64($0 + 10)) })]
        case 11:
            topic = "ack.hk"; kind = "ack"; envelopeSeq = 0
            body = pick([["upTo": -1], ["upTo": Self.fractional(1)], ["upTo": 2, "selective": [0]], ["upTo": 2, "selective": [Self.fractional(3)]]] as [JSONObject])
        default:
            topic = "hello"; kind = "hello"; channel = nil; envelopeSeq = 0
            body = pick([[:], ["streams": 5], ["streams": .object(["healthkit": "a"])], ["streams": .object(["healthkit": "a", "cloudkit": ""])],
                         ["streams": .object(["healthkit": "a", "cloudkit": "b", "fitness": "c"])],
                         ["streams": .object(["healthkit": .string(String(repeating: "n", count: 65)), "cloudkit": "b"])]] as [JSONObject])
        }
        if badSample { body["samples"] = [.object(sample)] }
        return Self.frames(topic, Self.envelope(seq: envelopeSeq, channel: channel, kind: kind, body: body))
    }
}

@Suite("Wire fuzz: hostile frames judged by docs/PROTOCOL.md")
struct WireFuzzTests {
    @Test("the page's tables are what the code knows")  // R: K3
    func pageTables() throws {
        let page = try ProtocolPage()
        expectEqual(Set(page.codes), Set(WireError.Code.allCases.map(\.rawValue)))
        expectEqual(Set(page.ranges.keys), Set(SampleType.allCases))
        for type in SampleType.allCases {
            expectEqual(page.ranges[type]!.low, type.validRange.lowerBound, "\(type)")
            expectEqual(page.ranges[type]!.high, type.validRange.upperBound, "\(type)")
        }
        let text = try DocsTests.doc("PROTOCOL.md")
        expect(text.contains("at most \(SyncEngine.maxSelective)"))
        expect(text.contains("\(FieldReader.maxTime)"))
        expect(text.contains("\(Workout.maxActivityBytes) bytes"))
    }

    // R: K3, S6, S7
    @Test("a few thousand seeded frames of every class: each refused with the page's code or taken once", arguments: [1, 2, 3] as [UInt64])
    func fuzz(seed: UInt64) throws {
        var fuzzer = FrameFuzzer(seed: seed, page: try ProtocolPage())
        var phone = SyncEngine(node: .phone, boot: "p1", seed: 2, channels: [:], reliability: ReliabilityConfig(), limits: FrameFuzzer.limits)
        let now = EmulatedInstant(milliseconds: 5_000)
        var previous: [[UInt8]]? = nil
        var refused: [WireError.Code: Int] = [:]
        var taken = 0, takenBytes = 0, samplesApplied = Set<UUID>()
        var classes: Set<String> = []
        for index in 0..<1_500 {
            let (frames, expected) = fuzzer.next(previous: previous)
            let (inbound, firstActions) = phone.receive(frames: frames, now: now)
            var actions = firstActions
            var outcome: FrameFuzzer.Expect
            switch inbound {
            case .data(let envelope):
                do {
                    let batch = try HealthObjectsBatch(body: envelope.body, limits: FrameFuzzer.limits)
                    actions += phone.accept(envelope, bytes: frames[1].count, summary: batch.summary, now: now)
                    for sample in batch.samples { expect(samplesApplied.insert(sample.uuid).inserted, "frame \(index): a sample applied twice") }
                    outcome = .accepted
                    previous = frames
                    taken += 1
                    takenBytes += frames[1].count
                } catch {
                    actions.append(phone.rejectBody(envelope, error, bytes: frames[1].count, now: now))
                    outcome = .refused(.badBody)
                }
            case .duplicate:
                outcome = .duplicate
                takenBytes += frames[1].count
            case .ack, .hello, .link:
                outcome = .control
            case .unreachable:
                Issue.record("frame \(index): dropped as unreachable, but nothing is partitioned")
                outcome = .control
            case .rejected(let error):
                outcome = .refused(error.code)
            }
            classes.insert("\(expected)")
            expectEqual(outcome, expected, "frame \(index) seed \(seed): \(String(decoding: frames.last!.prefix(300), as: UTF8.self))")
            let rejections = actions.events.filter { $0.name == EventName.wireRejected.rawValue }
            if case .refused(let code) = expected {
                refused[code, default: 0] += 1
                expectEqual(rejections.count, 1)
                if let event = rejections.first {
                    expectEqual(event["code"], .string(code.rawValue))
                    expectEqual(event["bytes"], .int(Int64(frames.reduce(0) { $0 + $1.count })), "bytes is the whole message")
                    if !frames.isEmpty { expect(event["topic"] != nil, "the topic is named even when it is not UTF-8") }
                }
            } else {
                expect(rejections.isEmpty)
            }
        }
        expectEqual(classes.count, 3 + WireError.Code.allCases.count, "every class was generated: \(classes.sorted())")
        expectEqual(phone.rejected, refused)
        let counters = phone.counters(.healthkit)
        expectEqual(counters.receivedMessages, taken)
        expectEqual(counters.receivedBytes, takenBytes, "refused frames are not counted as received")
    }
}

/// What docs/PROTOCOL.md says a `hello` and a `wc.link` body may hold, and nothing else (R: K5).
@Suite("hello and wc.link bodies, as the protocol page says")
struct HelloAndLinkBodyTests {
    static func outcome(_ topic: String, channel: String?, kind: String, body: JSONObject) -> SyncEngine.Inbound {
        var phone = SyncEngine(node: .phone, boot: "p1", seed: 2, channels: [:], reliability: ReliabilityConfig(), limits: FrameFuzzer.limits)
        let frames = FrameFuzzer.frames(topic, FrameFuzzer.envelope(seq: 0, channel: channel, kind: kind, body: body))
        return phone.receive(frames: frames, now: EmulatedInstant(milliseconds: 5_000)).0
    }

    static func refusedAsBadBody(_ inbound: SyncEngine.Inbound) -> Bool {
        if case .rejected(let error) = inbound { return error.code == .badBody }
        return false
    }

    @Test("a hello body has streams only; watchconnectivity may be left out, not null")  // R: K5
    func hello() {
        let streams: JSONObject = ["healthkit": "a", "cloudkit": "b"]
        expectEqual(Self.outcome("hello", channel: nil, kind: "hello", body: ["streams": .object(streams)]), .hello)
        var withWC = streams
        withWC.append("watchconnectivity", "c")
        expectEqual(Self.outcome("hello", channel: nil, kind: "hello", body: ["streams": .object(withWC)]), .hello)
        var withNull = streams
        withNull.append("watchconnectivity", .null)
        expect(Self.refusedAsBadBody(Self.outcome("hello", channel: nil, kind: "hello", body: ["streams": .object(withNull)])))
        expect(Self.refusedAsBadBody(Self.outcome("hello", channel: nil, kind: "hello", body: ["streams": .object(streams), "extra": 1])))
    }

    @Test("a wc.link body's stream and settled come together or not at all")  // R: K5
    func link() {
        expectEqual(Self.outcome("wc.link", channel: "watchconnectivity", kind: "link", body: ["reachable": true]), .link(reachable: true))
        expectEqual(Self.outcome("wc.link", channel: "watchconnectivity", kind: "link", body: ["reachable": true, "stream": "s", "settled": 3]), .link(reachable: true))
        expect(Self.refusedAsBadBody(Self.outcome("wc.link", channel: "watchconnectivity", kind: "link", body: ["reachable": true, "stream": "s"])))
        expect(Self.refusedAsBadBody(Self.outcome("wc.link", channel: "watchconnectivity", kind: "link", body: ["reachable": true, "settled": 3])))
    }
}

@Suite("channel counters as docs/COMMANDS.md defines them")
struct ReceivedCountersTests {
    @Test("received counts a data message once; its duplicate counts in duplicatesDropped; receivedBytes counts both")  // R: K5
    func duplicateCounting() throws {
        var fuzzer = FrameFuzzer(seed: 1, page: try ProtocolPage())
        var phone = SyncEngine(node: .phone, boot: "p1", seed: 2, channels: [:], reliability: ReliabilityConfig(), limits: FrameFuzzer.limits)
        let now = EmulatedInstant(milliseconds: 5_000)
        let frames = fuzzer.validData()
        guard case .data(let envelope) = phone.receive(frames: frames, now: now).0 else {
            Issue.record("a valid data frame was not taken")
            return
        }
        let batch = try HealthObjectsBatch(body: envelope.body, limits: FrameFuzzer.limits)
        _ = phone.accept(envelope, bytes: frames[1].count, summary: batch.summary, now: now)
        expectEqual(phone.receive(frames: frames, now: now).0, .duplicate)
        let counters = phone.counters(.healthkit)
        expect(counters.receivedMessages == 1 && counters.duplicatesDropped == 1)
        expectEqual(counters.receivedBytes, 2 * frames[1].count)
    }
}
