import Foundation
import Testing
import TestSupport
@testable import PairSimCore

@Suite("Wire codec")
struct WireCodecTests {
    static let workoutID = UUID(text: "019CA6B6-5147-7797-BE9B-D99045A883A3")!

    static func envelope(body: JSONObject = [:]) -> Envelope {
        Envelope(from: .watch, stream: "boot.hk", seq: 3, sentAt: EmulatedInstant(milliseconds: 1_000),
                 channel: .healthkit, kind: .objects, body: body)
    }

    /// The envelope JSON of a valid message with `change` applied to its top-level object.
    static func frame(topic: String = "hk.objects", _ change: (inout JSONObject) -> Void = { _ in }) -> [[UInt8]] {
        var object = try! JSONParser().parse(WireCodec.encode(envelope()).payload).objectValue!
        change(&object)
        return [Array(topic.utf8), JSONWriter.bytes(.object(object))]
    }

    @Test("encodes and decodes an envelope unchanged")  // R: S1
    func roundTrip() throws {
        let batch = HealthObjectsBatch(workouts: [Workout(uuid: Self.workoutID, activity: "running", start: .zero,
                                                           end: EmulatedInstant(milliseconds: 600_000), activeDuration: .minutes(10),
                                                           activeEnergy: 98.5, source: .watchApp)])
        let original = Self.envelope(body: batch.body)
        let frame = WireCodec.encode(original)
        expectEqual(frame.topic, "hk.objects")
        let decoded = try WireCodec.decode(frames: [Array(frame.topic.utf8), frame.payload])
        expectEqual(decoded, original)
        try expectEqual(HealthObjectsBatch(body: decoded.body, limits: .default), batch)
    }

    @Test("topics follow channel and kind")
    func topics() {
        expectEqual(Topic.name(channel: .cloudkit, kind: .records), "ck.records")
        expectEqual(Topic.name(channel: .healthkit, kind: .ack), "ack.hk")
        expectEqual(Topic.name(channel: nil, kind: .hello), "hello")
    }

    // R: S7
    @Test("refuses each kind of bad frame with its code", arguments: [
        (WireCodecTests.frame().prefix(1).map { $0 }, WireError.Code.frameCount),
        (WireCodecTests.frame() + [[1]], .frameCount),
        (WireCodecTests.frame(topic: "xx.evil"), .unknownTopic),
        ([[0xFF, 0xFE], WireCodecTests.frame()[1]], .unknownTopic),
        ([Array("hk.objects".utf8), Array(WireCodecTests.frame()[1].prefix(30))], .notJSON),
        ([Array("hk.objects".utf8), Array("not json at all".utf8)], .notJSON),
        ([Array("hk.objects".utf8), Array("[1,2]".utf8)], .badEnvelope),
        (WireCodecTests.frame { $0["v"] = nil }, .badEnvelope),
        (WireCodecTests.frame { $0["v"] = 2 }, .unsupportedVersion),
        (WireCodecTests.frame { $0["from"] = "toaster" }, .badEnvelope),
        (WireCodecTests.frame { $0["stream"] = "" }, .badEnvelope),
        (WireCodecTests.frame { $0["seq"] = -1 }, .badEnvelope),
        (WireCodecTests.frame { $0["seq"] = 0 }, .badEnvelope),
        (WireCodecTests.frame { $0["seq"] = "7" }, .badEnvelope),
        (WireCodecTests.frame { $0["sentAt"] = -5 }, .badEnvelope),
        (WireCodecTests.frame { $0["channel"] = "cloudkit" }, .badEnvelope),
        (WireCodecTests.frame { $0["kind"] = "records" }, .badEnvelope),
        (WireCodecTests.frame { $0["body"] = [1] }, .badEnvelope),
    ] as [([[UInt8]], WireError.Code)])
    func refusesBadFrames(frames: [[UInt8]], code: WireError.Code) {
        #expect {
            try WireCodec.decode(frames: frames)
        } throws: { error in
            (error as? WireError)?.code == code
        }
    }

    @Test("v is the integer token 1: 1.0, 1e0 and \"1\" are refused as docs/PROTOCOL.md says")  // R: K5
    func versionIsTheIntegerOne() throws {
        let good = Self.frame()
        let text = String(decoding: good[1], as: UTF8.self)
        expect(text.contains(#""v":1,"#))
        _ = try WireCodec.decode(frames: good)
        for written in ["1.0", "1e0", "\"1\"", "1.5"] {
            let frames = [good[0], Array(text.replacingOccurrences(of: #""v":1,"#, with: "\"v\":\(written),").utf8)]
            #expect {
                try WireCodec.decode(frames: frames)
            } throws: { ($0 as? WireError)?.code == .unsupportedVersion }
        }
    }

    @Test("refuses an envelope over the size limit")  // R: S7
    func oversized() {
        let frames = Self.frame { $0["pad"] = .string(String(repeating: "x", count: 2_000)) }
        #expect {
            try WireCodec.decode(frames: frames, limits: WireLimits(maxEnvelopeBytes: 1_024))
        } throws: { ($0 as? WireError)?.code == .oversized }
    }

    static func sample(_ change: (inout JSONObject) -> Void) -> JSONObject {
        var sample = HealthSample(uuid: workoutID, type: .heartRate, start: .zero, end: .zero, value: 120, source: .watchApp)
            .json.objectValue!
        change(&sample)
        return ["samples": [.object(sample)]]
    }

    // R: S7
    @Test("refuses hostile bodies naming the field", arguments: [
        (WireCodecTests.sample { $0["uuid"] = "not-a-uuid" }, "body.samples[0].uuid"),
        (WireCodecTests.sample { $0["start"] = -10 }, "body.samples[0].start"),
        (WireCodecTests.sample { $0["type"] = "caffeine" }, "body.samples[0].type"),
        (WireCodecTests.sample { $0["value"] = 9_999 }, "body.samples[0].value"),
        (WireCodecTests.sample { $0["end"] = nil }, "body.samples[0].end"),
        (["samples": .array(Array(repeating: .object([:]), count: 50))], "body.samples"),
        (["workouts": "lots"], "body.workouts"),
    ] as [(JSONObject, String)])
    func refusesHostileBodies(body: JSONObject, path: String) {
        #expect {
            try HealthObjectsBatch(body: body, limits: WireLimits(maxItemsPerMessage: 10))
        } throws: { error in
            (error as? DecodeError)?.path == path
        }
    }

    static func series(_ change: (inout JSONObject) -> Void) -> JSONObject {
        var series: JSONObject = ["type": "heartRate", "source": "watch-app", "uuids": .string(workoutID.text + "," + UUID().text),
                                  "start": [0, 5_000], "value": [120, 121.5]]
        change(&series)
        return ["series": [.object(series)]]
    }

    // R: S7
    @Test("refuses hostile series naming the element", arguments: [
        (WireCodecTests.series { $0["uuids"] = .string(workoutID.text + "," + String(repeating: "x", count: 36)) }, "body.series[0].uuids[1]"),
        (WireCodecTests.series { $0["uuids"] = .string(workoutID.text + ";" + workoutID.text) }, "body.series[0].uuids[1]"),
        (WireCodecTests.series { $0["uuids"] = "nope" }, "body.series[0].uuids"),
        (WireCodecTests.series { $0["start"] = [0] }, "body.series[0]"),
        (WireCodecTests.series { $0["start"] = [0, -4] }, "body.series[0].start[1]"),
        (WireCodecTests.series { $0["end"] = [0, 1] }, "body.series[0].end[1]"),
        (WireCodecTests.series { $0["value"] = [120, 9_000] }, "body.series[0].value[1]"),
        (WireCodecTests.series { $0["source"] = .string(String(repeating: "x", count: 30)) }, "body.series[0].source"),
        (WireCodecTests.series { $0["type"] = "mood" }, "body.series[0].type"),
    ] as [(JSONObject, String)])
    func refusesHostileSeries(body: JSONObject, path: String) {
        #expect {
            try HealthObjectsBatch(body: body, limits: .default)
        } throws: { error in
            (error as? DecodeError)?.path == path
        }
    }

    @Test("samples go out as series and come back unchanged")  // R: S1
    func seriesRoundTrip() throws {
        var random = UUIDGenerator(seed: 3, label: "t")
        var samples: [HealthSample] = []
        for i in 0..<50 {
            let even = i % 2 == 0
            let start = EmulatedInstant(milliseconds: Int64(i) * 1_000)
            let end = start + .milliseconds(even ? 0 : 500)
            let value: Double = even ? 100 + Double(i) / 10 : 3
            let source: ObjectSource = i % 3 == 0 ? .other("strava") : .watchApp
            samples.append(HealthSample(uuid: random.next(at: .zero), type: even ? .heartRate : .sleepAnalysis,
                                        start: start, end: end, value: value, source: source))
        }
        let batch = HealthObjectsBatch(samples: samples)
        expect(batch.body["series"] != nil && batch.body["samples"] == nil)
        let decoded = try HealthObjectsBatch(body: try JSONParser().parse(JSONWriter.bytes(.object(batch.body))).objectValue!, limits: .default)
        expectEqual(Set(decoded.samples), Set(samples))
    }

    @Test("doubles survive writing and reading exactly")
    func doublesRoundTrip() throws {
        var random = SplitMix64(seed: 8)
        for _ in 0..<20_000 {
            let choices: [Double] = [random.uniform(-1e6, 1e6), (random.uniform(0, 300) * 10).rounded() / 10, random.uniform(0, 1) * 1e-7]
            let value = choices[Int(random.next() % 3)]
            try expectEqual(JSONParser().parse(JSONWriter.bytes(.double(value))).doubleValue, value)
        }
    }

    @Test("a record batch round-trips, nil workout ID included")
    func records() throws {
        let record = ExerciseRecord(id: Self.workoutID, exercise: "Squat", start: .zero, duration: .minutes(5), calories: nil,
                                    healthKitWorkoutID: nil, source: .watchApp)
        let batch = RecordsBatch(saved: [record], deleted: [Self.workoutID])
        try expectEqual(RecordsBatch(body: batch.body, limits: .default), batch)
    }
}

/// The watch writes `hk.objects` bodies without a JSON tree; the bytes must be the tree's.
@Suite("Directly written bodies")
struct DirectBodyTests {
    @Test("samples are grouped by type and source in order of first appearance, each group in its samples' order")  // R: S7
    func grouping() {
        var random = SplitMix64(seed: 5)
        var uuids = UUIDGenerator(seed: 5, label: "g")
        for round in 0..<100 {
            let types: [SampleType] = round % 2 == 0 ? [.heartRate] : [.heartRate, .stepCount, .bodyMass]
            let sources: [ObjectSource] = round % 4 < 2 ? [.watchApp] : [.watchApp, .phoneApp]
            let samples = (0..<Int(random.next() % 30)).map { index in
                HealthSample(uuid: uuids.next(at: .zero), type: types[Int(random.next() % UInt64(types.count))],
                             start: EmulatedInstant(milliseconds: Int64(index)), end: EmulatedInstant(milliseconds: Int64(index)),
                             value: 60, source: sources[Int(random.next() % UInt64(sources.count))])
            }
            // The same grouping, written the plain way.
            var expected: [SampleSeries] = []
            for sample in samples {
                if let at = expected.firstIndex(where: { $0.type == sample.type && $0.source == sample.source }) {
                    expected[at].samples.append(sample)
                } else {
                    expected.append(SampleSeries(type: sample.type, source: sample.source, samples: [sample]))
                }
            }
            expectEqual(SampleSeries.group(samples), expected, "round \(round)")
        }
    }

    @Test("a batch's body bytes and its frame are exactly what JSONWriter writes for its body")  // R: S7
    func sameBytes() {
        var random = SplitMix64(seed: 21)
        var uuids = UUIDGenerator(seed: 21, label: "t")
        let sources: [ObjectSource] = [.watchApp, .phoneApp, ObjectSource(name: "Kim’s \"Watch\"")]
        for round in 0..<200 {
            var batch = HealthObjectsBatch()
            // One round in three has one type and one source, as a bulk write's batches do (one series).
            let single = round % 3 == 0
            for _ in 0..<Int(random.next() % 40) {
                let type = single ? .heartRate : SampleType.allCases[Int(random.next() % UInt64(SampleType.allCases.count))]
                let start = EmulatedInstant(milliseconds: Int64(random.next() % 1_000_000))
                let lasts = random.next() % 3 == 0
                batch.samples.append(HealthSample(uuid: uuids.next(at: start), type: type, start: start,
                                                  end: lasts ? start + .seconds(30) : start,
                                                  value: Double(Int64(random.next() % 20_000)) / [1.0, 10, 100, 7][Int(random.next() % 4)],
                                                  source: single ? .watchApp : sources[Int(random.next() % 3)]))
            }
            if round % 5 == 0 {
                batch.workouts.append(Workout(uuid: uuids.next(at: .zero), activity: "running", start: .zero, end: .zero + .minutes(10),
                                              activeDuration: .minutes(9), activeEnergy: round % 10 == 0 ? nil : 88.5, source: .watchApp))
            }
            if round % 7 == 0 { batch.deleted.append(DeletedObject(uuid: uuids.next(at: .zero), type: .sample(.heartRate))) }
            expectEqual(batch.bodyBytes, JSONWriter.bytes(.object(batch.body)), "round \(round)")
            let envelope = Envelope(from: .watch, stream: "s-\(round)", seq: UInt64(round), sentAt: .zero + .seconds(Int64(round)),
                                    channel: .healthkit, kind: .objects, body: batch.body)
            expectEqual(WireCodec.encode(envelope, body: batch.bodyBytes), WireCodec.encode(envelope), "round \(round)")
            expectEqual(WireCodec.encode(envelope, objects: batch), WireCodec.encode(envelope), "round \(round): the body written in place")
        }
    }
}
