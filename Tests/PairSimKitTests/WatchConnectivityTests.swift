import Foundation
import Testing
import TestSupport
@testable import PairSimCore
@testable import PairSimKit

@Suite("WatchConnectivity sessions")
struct WatchConnectivityTests {
    @Test("reachability follows the watch app, the range, the phone app's activation and a reboot")  // R: X1, X2, X3
    func reachabilityTable() {
        var pair = WCPair()
        expectEqual(pair.log.lines.first, "launch background=false")
        expectEqual(pair.reachable, (false, false), "the watch app is off screen and not in a workout")
        var rows: [(String, Bool, Bool)] = []
        for (node, command) in [("watch", "foreground"), ("watch", "out-of-range"), ("watch", "in-range"), ("watch", "background"),
                                ("watch", "start-workout running"), ("phone", "terminate"), ("phone", "reboot"), ("phone", "unlock"),
                                ("phone", "launch"), ("watch", "finish-workout")] {
            if command == "terminate" { pair.phone("background") }
            let result = node == "watch" ? pair.watch(command) : pair.phone(command)
            expect(result.ok, "\(command): \(result.reply)")
            rows.append((command, pair.reachable.watch, pair.reachable.phone))
        }
        let expected: [(String, Bool, Bool)] = [
            ("foreground", true, true), ("out-of-range", false, false), ("in-range", true, true), ("background", false, false),
            ("start-workout running", true, true),
            ("terminate", true, false),   // the phone app's session died with its process; the watch still reaches the phone
            ("reboot", false, false),     // unreachable until the first unlock
            ("unlock", true, false), ("launch", true, true), ("finish-workout", false, false),
        ]
        for (row, want) in zip(rows, expected) {
            expect(row.0 == want.0 && row.1 == want.1 && row.2 == want.2, "after \(row.0): watch \(row.1) phone \(row.2), expected \(want.1) \(want.2)")
        }
        expect(pair.log.lines.contains("reachable=true"), "the app heard sessionReachabilityDidChange")
    }

    @Test("messages from the watch arrive in order, wake the phone app, and get their replies")  // R: X1, X2
    func messagesInOrderAndWake() {
        var pair = WCPair()
        pair.watch("foreground")
        pair.phone("background")
        pair.advance(.seconds(10))
        expectEqual(pair.phone.platform.app, .suspended)
        for n in 1...3 { expect(pair.watch("wc-send '{\"n\":\(n)}'").ok) }
        expectEqual(pair.phone.platform.app, .background, "a message from the watch wakes a suspended app")
        expectEqual(pair.log.lines.suffix(3), ["message 1", "message 2", "message 3"])
        expectEqual(pair.named("wc.replied").count, 3)
        // Not running at all: the message launches it in the background; it activates and takes it.
        pair.advance(.minutes(1))
        pair.phone("terminate")
        pair.watch("wc-send '{\"n\":4}'")
        expectEqual(pair.log.lines.suffix(3), ["launch background=true", "activated reachable=true", "message 4"])
        expectEqual(pair.named("wc.replied").count, 4)
        // Unreachable: refused at once, nothing sent.
        pair.watch("background")
        let refused = pair.watch("wc-send '{\"n\":5}'")
        expect(!refused.ok && refused.reply.contains("notReachable"))
        expectEqual(pair.named("wc.refused").count, 1)
        expectEqual(pair.watch.platform.wc.counters.messagesSent, 4)
    }

    @Test("a message from the phone does not wake the watch app; the app's error handler hears why")  // R: X2
    func phoneMessageDoesNotWake() {
        var pair = WCPair()
        expect(pair.phone("send 1").ok)
        expectEqual(pair.log.lines.last, "error WCError.notReachable 7007", "the watch app is not running: refused at once")
        pair.watch("foreground")
        pair.phone("send 2")
        expectEqual(pair.log.lines.last, "reply true", "the seeds' watch app answers {\"ok\":true}")
        expect(pair.named("wc.delivered").contains { $0.node == .watch })
    }

    @Test("sendMessageData both ways: bytes in, bytes back; the seeds' watch app answers with the bytes it got")  // R: X1, A13
    func messageData() {
        var pair = WCPair()
        pair.watch("foreground")
        expect(pair.phone("send-data héllo").ok)
        expectEqual(pair.log.lines.last, "data reply héllo", "the watch echoes the bytes")
        expect(pair.watch("wc-send 'from the watch' --data").ok)
        expectEqual(pair.log.lines.suffix(1), ["data from the watch pending=false"])
        expectEqual(pair.named("wc.replied").filter { $0.node == .watch }.count, 1, "the phone app's reply (the bytes reversed) reached the watch")
        // Arrived while the app was not running: delivered at its launch, one after another.
        pair.phone("background")
        pair.advance(.seconds(10))
        pair.phone("terminate")
        pair.watch("wc-transfer '{\"n\":1}'")
        pair.watch("wc-send 'wake up' --data --no-reply")
        expectEqual(pair.log.lines.suffix(2), ["userInfo 1", "data wake up no reply, pending=false"])
        expect(!pair.watch("wc-send 'x' --data --no-reply --bogus").ok)
    }

    @Test("a data reply crosses the wire as base64; a data field that is not base64 is refused naming it")  // R: X1, F
    func dataOnTheWire() throws {
        let body = WCBody.reply(id: "m1", payload: ["data": .string(Data([0, 255, 7]).base64EncodedString())], error: nil, isData: true)
        expectEqual(JSONWriter.string(.object(body)), #"{"id":"m1","data":"AP8H"}"#)
        let decoded = try WCBody.reply(body)
        expectEqual(decoded.payload.map(WCPayload.data), Data([0, 255, 7]))
        do {
            _ = try WCBody.reply(["id": "m1", "data": "not base64!"])
            Issue.record("accepted a data field that is not base64")
        } catch {
            expect(error.path == "body.data" && error.reason == "not base64")
        }
    }

    @Test("only the latest application context is delivered")  // R: X1
    func latestContextOnly() {
        var pair = WCPair()
        pair.phone("background")
        pair.advance(.seconds(10))
        pair.phone("terminate")
        for n in 1...3 { expect(pair.watch("wc-context '{\"n\":\(n)}'").ok) }
        expectEqual(pair.phone.platform.wc.inbox.count, 1, "a newer context replaces the one waiting")
        pair.phone("launch")
        expectEqual(pair.log.lines.filter { $0.hasPrefix("context") }, ["context 3"])
        expectEqual(pair.phone.platform.wc.receivedContext?["n"], .int(3))
    }

    @Test("userInfo queued out of range is kept across a restart and delivered in order; a cancelled one never")  // R: X1
    func userInfoFIFOAcrossRestart() throws {
        var pair = WCPair()
        pair.watch("out-of-range")
        var ids: [String] = []
        for n in 1...4 {
            let reply = pair.watch("wc-transfer '{\"n\":\(n)}'").reply
            ids.append(String(reply.split(separator: " ")[2]))
        }
        pair.advance(.seconds(30))
        expectEqual(pair.watch.platform.wc.outgoing.count, 4)
        expect(!pair.watch("wc-cancel \(ids[0])").ok, "the head is already on its way")
        expect(pair.watch("wc-cancel \(ids[2])").ok)
        try pair.restartWatch()
        expectEqual(pair.watch.platform.wc.outgoing.map(\.id), [ids[0], ids[1], ids[3]], "the queue survived the restart")
        pair.watch("in-range")
        pair.advance(.minutes(2))
        expectEqual(pair.log.lines.filter { $0.hasPrefix("userInfo") }, ["userInfo 1", "userInfo 2", "userInfo 4"])
        expect(pair.watch.platform.wc.outgoing.isEmpty)
        expectEqual(pair.named("wc.finished").count, 3)
    }

    @Test("the app's transfers finish with didFinish; a file arrives with its name and size")  // R: X1
    func appTransfersAndFiles() {
        var pair = WCPair()
        expectEqual(pair.phone("transfer 7").reply, "outstanding 1")
        pair.advance(.seconds(1))
        expectEqual(pair.log.lines.last, "finished 7 error=none")
        expectEqual(pair.watch.platform.wc.counters.userInfoReceived, 1)
        pair.watch("foreground")
        expect(pair.watch("wc-file run.gpx --size 4000000").ok)
        pair.advance(.seconds(1))
        expectEqual(pair.log.lines.last?.hasPrefix("file"), false, "4 MB at 2 MB/s takes 2 s")
        pair.advance(.seconds(2))
        expectEqual(pair.log.lines.last, "file run.gpx 4000000")
    }

    @Test("the faults: sendMessage failing although reachable, a stalled userInfo queue")  // R: X3
    func faults() {
        var pair = WCPair { topology in
            topology.watchConnectivity.messageFailure = 0.5
            topology.watchConnectivity.stallChance = 1
            topology.watchConnectivity.stallFor = .minutes(5)
        }
        pair.watch("foreground")
        var failed = 0
        for n in 1...40 where !pair.watch("wc-send '{\"n\":\(n)}'").ok { failed += 1 }
        expect((8...32).contains(failed), "about half fail: \(failed)")
        expect(pair.named("wc.failed").allSatisfy { $0["code"] == .string("deliveryFailed") })
        pair.watch("wc-transfer '{\"n\":1}'")
        pair.advance(.minutes(4))
        expectEqual(pair.watch.platform.wc.outgoing.count, 1, "stalled")
        pair.advance(.minutes(2))
        expect(pair.watch.platform.wc.outgoing.isEmpty)
        expectEqual(pair.log.lines.last, "userInfo 1")
    }

    @Test("bad wc- arguments are refused with the reason")  // R: X1
    func badArguments() {
        var pair = WCPair()
        expect(pair.watch("wc-send hello").reply.contains("must be a JSON object"))
        expect(pair.watch("wc-send '[1,2]'").reply.contains("got array"))
        let deep = String(repeating: #"{"a":"#, count: 31) + "1" + String(repeating: "}", count: 31)
        expect(pair.watch("wc-transfer '\(deep)'").reply.contains("payloadTooLarge: the payload is nested 31 levels deep"))
        let deepest = String(repeating: #"{"a":"#, count: 30) + "1" + String(repeating: "}", count: 30)
        pair.watch("foreground")
        expect(pair.watch("wc-transfer '\(deepest)'").ok, "30 levels fit the wire's 32 with the envelope's two")
        pair.advance(.seconds(1))
        expectEqual(pair.log.lines.last?.hasPrefix("userInfo"), true, "and arrive")
        let big = #"{"a":""# + String(repeating: "x", count: 70_000) + #""}"#
        expect(pair.watch("wc-context '\(big)'").reply.contains("payloadTooLarge"))
        expect(pair.watch("wc-file a/b").reply.contains("without '/'"))
        expect(pair.watch("wc-file x --size -1").reply.contains("--size"))
        expect(pair.watch("wc-cancel nope").reply.contains("no outstanding transfer"))
        expect(!pair.watch("wc-send").ok)
    }

    @Test("a later message never overtakes an earlier one: delivery follows the sender's order")  // R: X1
    func deliveredInSenderOrder() {
        var pair = WCPair()
        pair.watch("foreground")
        pair.holding = true
        for n in 1...3 { pair.watch("wc-send '{\"n\":\(n)}'") }
        pair.watch("wc-transfer '{\"n\":4}'")
        pair.release(reversed: true)
        expectEqual(pair.log.lines.suffix(4), ["message 1", "message 2", "message 3", "userInfo 4"])
    }

    @Test("a message without a reply handler that the watch app could not take fails on the phone")  // R: X1, X2
    func noReplyFailureReported() {
        var pair = WCPair()
        pair.watch("foreground")
        pair.holding = true
        // Sent while reachable; the watch app leaves the screen before it arrives.
        expect(pair.phone("wc-send '{\"n\":1}' --no-reply").ok)
        pair.watch("background")
        pair.release()
        expect(pair.named("wc.refused").contains { $0.node == .watch && $0["code"] == .string("notReachable") })
        expect(pair.named("wc.failed").contains { $0.node == .phone && $0["code"] == .string("notReachable") },
                "the watch's notReachable answer reached the phone although its acknowledgement came first")
        pair.advance(.minutes(1))
        expectEqual(pair.named("wc.failed").filter { $0.node == .phone }.count, 1, "no timeout on top")
    }

    @Test("a suspended app hears reachability changes when it runs again; transfers outlive the process")  // R: X1, X2
    func suspendedAndRelaunched() {
        var pair = WCPair()
        pair.watch("foreground")
        expectEqual(pair.log.lines.last, "reachable=true")
        pair.phone("background")
        pair.advance(.seconds(10))
        pair.watch("background")
        expectEqual(pair.log.lines.last, "reachable=true", "suspended: nothing runs")
        pair.phone("foreground")
        expect(pair.log.lines.contains("reachable=false"))
        // A transfer queued out of range outlives the app's process; the next process sees it and hears it finish.
        pair.watch("out-of-range")
        expectEqual(pair.phone("transfer 9").reply, "outstanding 1")
        pair.phone("background")
        pair.advance(.seconds(10))
        pair.phone("terminate")
        pair.phone("launch")
        expectEqual(pair.phone("transfer 10").reply, "outstanding 2", "the earlier process's transfer is outstanding in this one")
        pair.watch("in-range")
        pair.advance(.seconds(5))
        expectEqual(pair.log.lines.filter { $0.hasPrefix("finished") }, ["finished 9 error=none", "finished 10 error=none"])
    }

    @Test("a phone that lost its state still gets what the watch sends next")  // R: X1, S5
    func receiverLostItsState() {
        var pair = WCPair()
        pair.watch("foreground")
        for n in 1...2 { pair.watch("wc-transfer '{\"n\":\(n)}'") }
        expectEqual(pair.log.lines.filter { $0.hasPrefix("userInfo") }.count, 2)
        // The phone's data directory is deleted: a new phone, the watch's stream goes on at seq 3.
        let log = pair.log
        pair.phone = PhoneNode(topology: pair.topology, boot: "p2", app: AppRegistration(name: "session", summary: "", actions: [],
                                                                                           make: { SessionApp(log: log) }))
        pair.take(pair.phone.start(now: pair.now), from: .phone)
        pair.take(pair.phone.peerConnected(now: pair.now), from: .phone)
        pair.take(pair.watch.peerConnected(now: pair.now), from: .watch)
        pair.watch("wc-transfer '{\"n\":3}'")
        expectEqual(pair.log.lines.filter { $0.hasPrefix("userInfo") }, ["userInfo 1", "userInfo 2", "userInfo 3"])
    }

    @Test("cancel() of a queued transfer: didFinish with transferCancelled; the queue goes on")  // R: X1
    func appCancel() {
        var pair = WCPair { topology in
            topology.watchConnectivity.stallChance = 0
        }
        pair.watch("out-of-range")
        pair.phone("transfer 1")
        pair.phone("transfer 2")
        let second = pair.phone.platform.wc.outgoing[1].id
        expect(pair.phone("wc-cancel \(second)").ok)
        expectEqual(pair.log.lines.last, "finished 2 error=NSCocoaErrorDomain 3072")
        pair.watch("in-range")
        pair.advance(.seconds(5))
        expectEqual(pair.log.lines.last, "finished 1 error=none")
    }

    @Test("cancel() of a stalled head through PairSimKit: didFinish with transferCancelled, and the next one goes at once")  // R: X1, X3
    func kitCancelOfStalledHead() {
        var pair = WCPair { topology in
            topology.watchConnectivity.stallChance = 1
            topology.watchConnectivity.stallFor = .minutes(10)
        }
        pair.phone("transfer 1")
        pair.phone("transfer 2")
        expectEqual(pair.named("wc.stalled").count, 1, "the head stalls")
        expect(pair.phone("cancel 1").ok)
        expectEqual(pair.log.lines.last, "finished 1 error=NSCocoaErrorDomain 3072")
        expectEqual(pair.named("wc.stalled").count, 2, "the next became the head and drew at once")
        pair.advance(.minutes(11))
        expectEqual(pair.log.lines.last, "finished 2 error=none")
    }

    @Test("handles of a relaunched app's earlier transfers never meet its new ones")  // R: X1
    func relaunchedHandles() {
        var pair = WCPair()
        pair.watch("out-of-range")
        pair.phone("transfer 9")
        pair.phone("background")
        pair.advance(.seconds(10))
        pair.phone("terminate")
        pair.phone("launch")
        pair.phone("transfer 10")
        pair.phone("transfer 11")
        expect(pair.phone("cancel 11").ok)
        expectEqual(pair.log.lines.last, "finished 11 error=NSCocoaErrorDomain 3072")
        pair.watch("in-range")
        pair.advance(.seconds(5))
        expectEqual(pair.log.lines.filter { $0.hasPrefix("finished") }, ["finished 11 error=NSCocoaErrorDomain 3072", "finished 9 error=none", "finished 10 error=none"])
    }

    @Test("a scheduled partition makes both sides unreachable for its window, and the app's too-large payload fails")  // R: X2, X1
    func scheduledPartitionAndKitLimits() {
        var pair = WCPair { topology in
            topology.channels[.watchconnectivity, default: ChannelConfig()].partitions = [PartitionWindow(from: .zero + .minutes(1), to: .zero + .minutes(2))]
        }
        pair.watch("foreground")
        expectEqual(pair.reachable, (true, true))
        pair.advance(.seconds(90))
        expectEqual(pair.reachable, (false, false), "inside the window, with nothing else due")
        pair.advance(.minutes(1))
        expectEqual(pair.reachable, (true, true))
        expect(pair.phone("send-big").ok)
        expectEqual(pair.log.lines.last, "error WCError.payloadTooLarge 7009")
        expect(pair.named("wc.refused").contains { $0["code"] == .string("payloadTooLarge") })
    }

    @Test("a receiver that lost its state while a message was on its way still gets it")  // R: X1, S5
    func lostStateWithMessageInFlight() {
        var pair = WCPair()
        pair.watch("foreground")
        pair.holding = true
        pair.watch("wc-transfer '{\"n\":1}'")
        pair.watch("wc-send '{\"n\":2}' --no-reply")   // seq 2, sent while seq 1 is unacknowledged: settled 1
        let first = pair.held.removeFirst()
        pair.held = []                                     // seq 2 is lost on the way
        pair.holding = false
        pair.take(pair.phone.receive(frames: first.frames, now: pair.now), from: .phone)   // seq 1 arrives and is acknowledged
        expectEqual(pair.log.lines.last, "userInfo 1")
        // Then the phone's state is gone; seq 2's retransmission still says settled 1: the link's settled closes the gap.
        let log = pair.log
        pair.phone = PhoneNode(topology: pair.topology, boot: "p2", app: AppRegistration(name: "session", summary: "", actions: [],
                                                                                           make: { SessionApp(log: log) }))
        pair.holding = false
        pair.take(pair.phone.start(now: pair.now), from: .phone)
        pair.take(pair.phone.peerConnected(now: pair.now), from: .phone)
        pair.take(pair.watch.peerConnected(now: pair.now), from: .watch)
        pair.advance(.seconds(10))
        expectEqual(pair.log.lines.filter { $0.hasPrefix("message") || $0.hasPrefix("userInfo") }, ["userInfo 1", "message 2"],
                "\(pair.events.suffix(25).map(\.humanLine).joined(separator: "\n"))")
    }
}
