#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PairSimCore
import Testing
import TestSupport
import ZeroMQ

@Suite("End to end: hostile frames on the wire")
struct WireGarbageTests {
    @Test("garbage from a raw ZeroMQ socket is rejected and logged; a valid workout still arrives", .timeLimit(.minutes(5)))  // R: S7
    func garbageThenWorkout() async throws {
        let pair = try PairHarness("e2e-garbage")
        defer { pair.stopAll() }
        // Pose as the watch: bind a raw XPUB where phone-node's SUB connects.
        let context = try Context()
        let fake = try Socket(context, .xpub)
        try fake.bind(pair.topology.nodes[.watch]!.publish)
        try await pair.startNode(.phone, epoch: PairHarness.now())
        try fake.setReceiveTimeout(milliseconds: 10_000)
        _ = try fake.receiveMultipart() // the phone's subscription: it is connected now
        let garbage: [[[UInt8]]] = [
            [Array("hk.objects".utf8)],
            [Array("hk.objects".utf8), Array("{\"v\":1,\"from\":\"wat".utf8)],
            [Array("hk.objects".utf8), [0xFF, 0x00, 0x13, 0x37]],
            [Array("hk.objects".utf8), Array(#"{"v":99,"from":"watch","stream":"s","seq":1,"sentAt":0,"channel":"healthkit","kind":"objects","body":{}}"#.utf8)],
            [Array("zz.whatever".utf8), Array("{}".utf8)],
            [Array("hk.objects".utf8), Array(#"{"v":1,"from":"watch","stream":"s","seq":1,"sentAt":-5,"channel":"healthkit","kind":"objects","body":{}}"#.utf8)],
            [Array("hk.objects".utf8), Array(#"{"v":1,"from":"watch","stream":"s","seq":2,"sentAt":0,"channel":"healthkit","kind":"objects","body":{"samples":[{"uuid":"nope","type":"heartRate","start":0,"end":0,"value":80,"source":"x"}]}}"#.utf8)],
            [Array("hk.objects".utf8), Array(("{\"v\":1,\"pad\":\"" + String(repeating: "x", count: 5_000_000) + "\"}").utf8)],
        ]
        for frames in garbage { try fake.send(multipart: frames) }
        let uuid = UUID(text: "019CA6B6-5147-7797-BE9B-D99045A883A3")!
        let workout = Workout(uuid: uuid, activity: "running", start: .zero, end: .zero + .minutes(20),
                              activeDuration: .minutes(20), activeEnergy: 210, source: .watchApp)
        let valid = WireCodec.encode(Envelope(from: .watch, stream: "raw.hk", seq: 1, sentAt: .zero, channel: .healthkit,
                                              kind: .objects, body: HealthObjectsBatch(workouts: [workout]).body))
        try fake.send(multipart: [Array(valid.topic.utf8), valid.payload])
        try await pair.waitFor(.phone, "the valid workout") { $0.name == "hk.saved" && $0["uuid"]?.stringValue == uuid.text }
        let rejected = try await pair.waitFor(.phone, count: garbage.count, "one rejection per bad frame") { $0.name == "wire.rejected" }
        let codes = Set(rejected.compactMap { $0["code"]?.stringValue })
        expectEqual(codes, ["frame-count", "not-json", "unsupported-version", "unknown-topic", "bad-envelope", "bad-body", "oversized"])
        let status = try pair.status(.phone)
        let counted = WireError.Code.allCases.map { status["rejected"]?[$0.rawValue]?.intValue ?? 0 }.reduce(0, +)
        expectEqual(counted, Int64(garbage.count), "\(status)")
    }
}

@Suite("End to end: a client written from the docs alone")
struct ForeignClientTests {
    /// Debian's interpreter, which has Debian's python3-zmq (scripts/test.sh installs it).
    static let python = "/usr/bin/python3"

    @Test("a Python client written only from PROTOCOL.md and COMMANDS.md plays the watch to a real phone-node", .timeLimit(.minutes(5)))  // R: K3, K4
    func pythonClient() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python),
              (try? await PairHarness.runProgram(Self.python, ["-c", "import zmq"]))?.status == 0 else {
            Issue.record("\(Self.python) with Debian's python3-zmq is not installed (scripts/test.sh installs it)")
            return
        }
        let pair = try PairHarness("e2e-foreign")
        defer { pair.stopAll() }
        try await pair.startNode(.phone, epoch: PairHarness.now())
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().path + "/Fixtures/foreign_client.py"
        let nodes = pair.topology.nodes
        let (status, output) = try await PairHarness.runProgram(Self.python, [script, nodes[.watch]!.publish, nodes[.phone]!.publish, nodes[.phone]!.control])
        expectEqual(status, 0, "the client found the pages and the node disagreeing:\n\(output)")
        expect(output.contains("0 problem(s)"), "\(output)")
    }
}
