import Testing
import TestSupport
@testable import ZeroMQ

@Suite("The ZeroMQ wrapper")
struct ZeroMQTests {
    static func name(_ label: String) -> String { "inproc://zmq-test-\(label)-\(UInt32.random(in: 0...UInt32.max))" }

    @Test("PUB/SUB carries multipart messages and filters by topic prefix")  // R: S1
    func pubSub() throws {
        let context = try Context()
        let endpoint = Self.name("pubsub")
        let publisher = try Socket(context, .xpub)
        try publisher.bind(endpoint)
        let subscriber = try Socket(context, .sub)
        try subscriber.subscribe("hk.")
        try subscriber.connect(endpoint)
        try publisher.setReceiveTimeout(milliseconds: 2_000)
        let subscription = try #require(try publisher.receiveMultipart())
        expectEqual(subscription, [[1] + Array("hk.".utf8)])
        try publisher.send(multipart: [Array("ck.records".utf8), [1, 2]])
        try publisher.send(multipart: [Array("hk.objects".utf8), [3, 4, 5]])
        try subscriber.setReceiveTimeout(milliseconds: 2_000)
        try expectEqual(subscriber.receiveMultipart(), [Array("hk.objects".utf8), [3, 4, 5]])
        try expectEqual(subscriber.receiveMultipart(dontWait: true), nil)
    }

    @Test("REQ/REP round trip, and a receive timeout returns nil")  // R: P3
    func requestReply() throws {
        let context = try Context()
        let endpoint = Self.name("reqrep")
        let reply = try Socket(context, .rep)
        try reply.bind(endpoint)
        let request = try Socket(context, .req)
        try request.connect(endpoint)
        try request.send("ping")
        try expectEqual(reply.receiveMultipart(), [Array("ping".utf8)])
        try reply.send(multipart: [Array("ok".utf8), Array("pong".utf8)])
        try expectEqual(request.receiveMultipart(), [Array("ok".utf8), Array("pong".utf8)])
        try request.setReceiveTimeout(milliseconds: 50)
        try request.send("again")
        try expectEqual(request.receiveMultipart(), nil)
    }

    @Test("the poller reports readable sockets and file descriptors")
    func poller() throws {
        let context = try Context()
        let endpoint = Self.name("poll")
        let pull = try Socket(context, .pull)
        try pull.bind(endpoint)
        let push = try Socket(context, .push)
        try push.connect(endpoint)
        var poller = Poller()
        let index = poller.add(pull)
        try expect(poller.poll(timeoutMilliseconds: 0)[index].isEmpty)
        try push.send([7])
        try expect(poller.poll(timeoutMilliseconds: 2_000)[index].contains(.readable))
        var buffer = [UInt8](repeating: 0, count: 4)
        try expectEqual(pull.receive(into: &buffer), 1)
        expectEqual(buffer[0], 7)
    }

    @Test("errors carry zmq's text and the operation")
    func errors() throws {
        let context = try Context()
        let socket = try Socket(context, .pub)
        #expect {
            try socket.bind("tcp://not-an-address")
        } throws: { error in
            guard let error = error as? ZMQError else { return false }
            return error.operation == "bind tcp://not-an-address" && !error.message.isEmpty
        }
        let other = try Socket(context, .pub)
        let endpoint = Self.name("twice")
        try socket.bind(endpoint)
        #expect(throws: ZMQError.self) { try other.bind(endpoint) }
        expect(!Context.version.isEmpty)
    }
}
