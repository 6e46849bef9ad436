#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PairSimCore
import PairSimRuntime
import Testing
import ZeroMQ

/// The control socket as a foreign client meets it (R: K2, K4).
@Suite("End to end: the control socket's limits", .serialized)
struct ControlEndToEndTests {
    @Test("a 1 MB command is refused at once without being echoed; a multi-frame request is refused; help lists ping and shutdown",
          .timeLimit(.minutes(1)))  // R: K2, K4
    func limits() throws {
        let pair = try PairHarness("e2e-control")
        defer { pair.stopAll() }
        try pair.startNode(.watch, epoch: Int64(EmulatedClock.wallMilliseconds()))
        let huge = String(repeating: "x", count: 1 << 20)
        let started = Date()
        let refused = try pair.ctl(.watch, huge)
        #expect(!refused.ok && refused.text == "command too long: 1048576 bytes (the limit is 65536)")
        #expect(Date().timeIntervalSince(started) < 5, "answered at once, not after parsing a megabyte")
        #expect(try pair.ctl(.watch, "ping").ok)
        let help = try pair.must(.watch, "help")
        #expect(help.contains("  ping ") && help.contains("  shutdown "), "\(help)")
        // A request of two frames: refused, the socket still answers.
        let context = try Context()
        let socket = try Socket(context, .req)
        defer { socket.close() }
        try socket.setReceiveTimeout(milliseconds: 5_000)
        try socket.connect(pair.topology.nodes[.watch]!.control)
        try socket.send(multipart: [Array("status".utf8), Array("extra".utf8)])
        let reply = try #require(try socket.receiveMultipart())
        #expect(String(decoding: reply[0], as: UTF8.self) == "error")
        #expect(String(decoding: reply[1], as: UTF8.self).contains("one frame"))
        #expect(try pair.ctl(.watch, "ping").ok)
    }

    @Test("status --json is one typed JSON object per node, every key documented in COMMANDS.md", .timeLimit(.minutes(2)))  // R: K4
    func statusJSON() throws {
        let pair = try PairHarness("e2e-status-json")
        defer { pair.stopAll() }
        try pair.up()
        let reply = try pair.must(.watch, "write-sample hrv 48")
        let uuid = try #require(reply.split(separator: " ").first { $0.hasPrefix("uuid=") }.map { String($0.dropFirst(5)) }, "\(reply)")
        try pair.waitFor(.phone, "hk.saved of \(uuid)") { $0.name == "hk.saved" && $0["uuid"]?.stringValue == uuid }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let page = try String(contentsOf: root.appendingPathComponent("docs/COMMANDS.md"), encoding: .utf8)
        func keys(_ value: JSON) -> [String] {
            guard let object = value.objectValue else { return [] }
            return object.members.flatMap { member in
                (WireError.Code(rawValue: member.key) != nil || Channel(rawValue: member.key) != nil ? [] : [member.key]) + keys(member.value)
            }
        }
        for node in NodeName.allCases {
            let status = try JSONParser().parse(try pair.must(node, "status --json"))
            #expect(status["node"] == .string(node.rawValue))
            for key in keys(status) { #expect(page.contains("`\(key)`"), "\(node) status key \(key) is not in docs/COMMANDS.md") }
            #expect((status["stores"]?["samples"]?.intValue ?? 0) >= 1, "\(status)")
            #expect(status["rejected"]?["bad-body"]?.intValue == 0)
        }
        let phone = try JSONParser().parse(try pair.must(.phone, "status --json"))
        #expect((phone["channels"]?["healthkit"]?["received"]?.intValue ?? 0) >= 1)
        #expect(phone["app"]?.arrayValue != nil, "the app's own status lines ride along")
        let watch = try JSONParser().parse(try pair.must(.watch, "status --json"))
        #expect((watch["channels"]?["healthkit"]?["sent"]?.intValue ?? 0) >= 1)
        #expect(watch["channels"]?["cloudkit"]?["partitioned"] == .bool(false))
        #expect(watch["session"]?["state"] == "idle")
        #expect(!(try pair.ctl(.watch, "status --jsn").ok), "an unknown option is refused")
    }

    @Test("shutdown always answers before the node exits (200 start/shutdown cycles)", .timeLimit(.minutes(3)))  // R: K4
    func shutdownAnswers() throws {
        let pair = try PairHarness("e2e-shutdown")
        defer { pair.stopAll() }
        var unanswered = 0
        for _ in 0..<200 {
            let process = try pair.startNode(.watch, epoch: Int64(EmulatedClock.wallMilliseconds()))
            do {
                let reply = try pair.ctl(.watch, "shutdown", timeoutMilliseconds: 5_000)
                #expect(reply.ok && reply.text == "watch stopping")
            } catch {
                unanswered += 1
            }
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
        }
        #expect(unanswered == 0, "\(unanswered) of 200 shutdowns got no reply")
    }
}
