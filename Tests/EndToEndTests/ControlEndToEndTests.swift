#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PairSimCore
@testable import PairSimRuntime
import Synchronization
import Testing
import TestSupport
import ZeroMQ

/// The control socket as a foreign client meets it (R: K2, K4).
@Suite("End to end: the control socket's limits")
struct ControlEndToEndTests {
    @Test("a 1 MB command is refused at once without being echoed; a multi-frame request is refused; help lists ping, shutdown and clock-status; extra words are refused by name",
          .timeLimit(.minutes(5)))  // R: K2, K4, K5
    func limits() async throws {
        let pair = try PairHarness("e2e-control")
        defer { pair.stopAll() }
        try await pair.startNode(.watch, epoch: Int64(EmulatedClock.wallMilliseconds()))
        let huge = String(repeating: "x", count: 1 << 20)
        let started = Date()
        let refused = try pair.ctl(.watch, huge)
        expect(!refused.ok && refused.text == "command too long: 1048576 bytes (the limit is 65536)")
        expect(Date().timeIntervalSince(started) < 5, "answered at once, not after parsing a megabyte")
        try expect(pair.ctl(.watch, "ping").ok)
        // Extra words and values are refused by name, not taken as another command or a value (R: K5).
        for (command, says) in [("ping extra", "ping: takes no arguments"), ("shutdown now", "shutdown: takes no arguments"),
                                ("clock-status x", "clock-status: takes no arguments"), ("help extra", "help: expected 0 arguments"),
                                ("status --json extra", "status: --json takes no value"), ("status --jsn", "unknown option --jsn; did you mean --json?")] {
            let reply = try pair.ctl(.watch, command)
            expect(!reply.ok && reply.text.contains(says), "\(command): \(reply.text)")
        }
        let help = try pair.must(.watch, "help")
        expect(help.contains("  ping ") && help.contains("  shutdown ") && help.contains("  clock-status "), "\(help)")
        // clock-status: the keys docs/COMMANDS.md lists, with the types it gives.
        let clock = try JSONParser().parse(try pair.must(.watch, "clock-status"))
        expectEqual(clock.objectValue?.keys, ["now", "next", "idle", "published", "received", "subscribed"], "\(clock)")
        expect(clock["now"]?.exactIntValue != nil && clock["idle"]?.boolValue != nil && clock["subscribed"] == .bool(false), "no phone: \(clock)")
        expect((clock["published"]?.exactIntValue ?? -1) >= 0 && clock["received"]?.exactIntValue == 0)
        // A request of two frames: refused, the socket still answers.
        let context = try Context()
        let socket = try Socket(context, .req)
        defer { socket.close() }
        try socket.setReceiveTimeout(milliseconds: 5_000)
        try socket.connect(pair.topology.nodes[.watch]!.control)
        try socket.send(multipart: [Array("status".utf8), Array("extra".utf8)])
        let reply = try #require(try socket.receiveMultipart())
        expectEqual(String(decoding: reply[0], as: UTF8.self), "error")
        expect(String(decoding: reply[1], as: UTF8.self).contains("one frame"))
        try expect(pair.ctl(.watch, "ping").ok)
        // `at MS COMMAND` (R: K9): run at that very instant; its reply waits; the past runs at once.
        for (command, says) in [("at", "at: expected at <milliseconds> <command>"), ("at soon status", "at: expected at <milliseconds> <command>"), ("at 5", "at: expected"),
                                ("at 5 ping", "ping cannot be scheduled"), ("at 5 at 6 status", "at cannot be scheduled")] {
            let reply = try pair.ctl(.watch, command)
            expect(!reply.ok && reply.text.contains(says), "\(command): \(reply.text)")
        }
        try expect(pair.must(.watch, "at 0 fail-finish").contains("will fail"))
        let now = try pair.status(.watch)["at"]?.intValue ?? 0
        let target = now + 3_000 * 60 // three wall seconds ahead at the harness's 60×
        try expect(pair.ctl(.watch, "at \(target) write-sample weight 70.5", timeoutMilliseconds: 30_000).ok)
        try await pair.waitFor(.watch, "the scheduled sample") { $0.name == "sample.written" }
        expectEqual(pair.events(.watch).first { $0.name == "sample.written" }?.at, EmulatedInstant(milliseconds: target))
    }

    @Test("status --json is one typed JSON object per node, every key documented in COMMANDS.md", .timeLimit(.minutes(5)))  // R: K4
    func statusJSON() async throws {
        let pair = try PairHarness("e2e-status-json")
        defer { pair.stopAll() }
        try await pair.up()
        let reply = try pair.must(.watch, "write-sample hrv 48")
        let uuid = try #require(reply.split(separator: " ").first { $0.hasPrefix("uuid=") }.map { String($0.dropFirst(5)) }, "\(reply)")
        try await pair.waitFor(.phone, "hk.saved of \(uuid)") { $0.name == "hk.saved" && $0["uuid"]?.stringValue == uuid }
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
            expectEqual(status["node"], .string(node.rawValue))
            for key in keys(status) { expect(page.contains("`\(key)`"), "\(node) status key \(key) is not in docs/COMMANDS.md") }
            expect((status["stores"]?["samples"]?.intValue ?? 0) >= 1, "\(status)")
            expect(status["rejected"]?["bad-body"]?.intValue == 0)
        }
        let phone = try JSONParser().parse(try pair.must(.phone, "status --json"))
        expect((phone["channels"]?["healthkit"]?["received"]?.intValue ?? 0) >= 1)
        expect(phone["app"]?.arrayValue != nil, "the app's own status lines ride along")
        let watch = try JSONParser().parse(try pair.must(.watch, "status --json"))
        expect((watch["channels"]?["healthkit"]?["sent"]?.intValue ?? 0) >= 1)
        expect(watch["channels"]?["cloudkit"]?["partitioned"] == .bool(false))
        expect(watch["session"]?["state"] == "idle")
        expect(!(try pair.ctl(.watch, "status --jsn").ok), "an unknown option is refused")
    }

    /// The reply to `shutdown` is sent, then the loop ends and its ZeroMQ context closes, which
    /// waits for that reply to leave (the control socket's linger). A process exits after that.
    /// So the race is the loop's, not the process's: 200 cycles of the loop itself, in this
    /// process on its own thread, then 10 of the real executable (each pays a process start,
    /// ~0.15 s of a debug build here, several times that on a busy machine).
    @Test("shutdown always answers before the node's loop ends (200 cycles in process, 10 real processes)", .timeLimit(.minutes(10)))  // R: K4
    func shutdownAnswers() async throws {
        let pair = try PairHarness("e2e-shutdown")
        defer { pair.stopAll() }
        var unanswered = 0
        var first = NodeOptions(node: .watch, topology: pair.topology,
                                clock: EmulatedClock(epochUnixMilliseconds: PairHarness.now(), timeScale: 60), readStdin: false, echo: false)
        first.fresh = true
        var later = first
        later.fresh = false
        for cycle in 0..<200 {
            // The first loop starts on an empty directory; the rest restore what it left (a new
            // database each time cost ~25 ms of CPU a cycle in CI's debug build, in its
            // migrations, and the race is the same on a restored node).
            let options = cycle == 0 ? first : later
            let mailbox = Mailbox()
            let loop: Task<Void, Error> = Task {
                try await PairHarness.offPool { try NodeService.runLoop(options: options, mailbox: mailbox, makeModel: { NodeRunner.makeModel($0, boot: $1) }) }
            }
            // The loop answers its mailbox once its sockets are bound: no polling. A loop that
            // ends first (it could not start) answers nothing: its error is the test's; one that
            // does not answer within 2 minutes (a hang guard) is told to stop and reported.
            let ready: CommandResult? = await withCheckedContinuation { answered in
                let once = ResumeOnce(answered)
                mailbox.post(.command("ping", reply: { once.resume($0) }))
                Task { _ = try? await loop.value; once.resume(nil) }
                Task { try? await Task.sleep(for: .seconds(120)); once.resume(nil) }
            }
            guard let ready else {
                mailbox.post(.stop)
                try await loop.value
                Issue.record("the watch's loop did not answer ping")
                return
            }
            expect(ready.ok)
            do {
                let reply = try pair.ctl(.watch, "shutdown", timeoutMilliseconds: 5_000)
                expect(reply.ok && reply.text == "watch stopping")
            } catch {
                unanswered += 1
            }
            try await loop.value
        }
        expectEqual(unanswered, 0, "\(unanswered) of 200 shutdowns got no reply from the loop")
        for _ in 0..<10 {
            let process = try await pair.startNode(.watch, epoch: PairHarness.now())
            do {
                let reply = try pair.ctl(.watch, "shutdown", timeoutMilliseconds: 5_000)
                expect(reply.ok && reply.text == "watch stopping")
            } catch {
                unanswered += 1
            }
            await process.waitUntilExit()
            expectEqual(process.terminationStatus, 0)
        }
        expectEqual(unanswered, 0, "\(unanswered) of 10 shutdowns got no reply from watch-node")
    }
}

/// Resumes a continuation with the first value it is given, and ignores the rest.
final class ResumeOnce<Value: Sendable>: Sendable {
    let continuation: Mutex<CheckedContinuation<Value, Never>?>

    init(_ continuation: CheckedContinuation<Value, Never>) { self.continuation = Mutex(continuation) }

    func resume(_ value: Value) {
        continuation.withLock { $0.take() }?.resume(returning: value)
    }
}
