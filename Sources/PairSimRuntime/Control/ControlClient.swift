import PairSimCore
import ZeroMQ

/// Sends one command to a node's control socket (REQ → REP) and returns its reply.
public struct ControlClient {
    /// A node's answer.
    public struct Reply: Hashable, Sendable {
        public var ok: Bool
        public var text: String
    }

    public let endpoint: String
    public let timeoutMilliseconds: Int32

    public init(endpoint: String, timeoutMilliseconds: Int32 = 5_000) {
        self.endpoint = endpoint
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    /// Sends `command` and waits for the reply; throws when the node does not answer in time.
    public func send(_ command: String, context: Context) throws -> Reply {
        let socket = try Socket(context, .req)
        defer { socket.close() }
        try socket.setReceiveTimeout(milliseconds: timeoutMilliseconds)
        try socket.setSendTimeout(milliseconds: timeoutMilliseconds)
        try socket.connect(endpoint)
        try socket.send(command)
        guard let frames = try Self.reply(on: socket, timeoutMilliseconds: timeoutMilliseconds) else {
            throw RuntimeError("no reply from \(endpoint) within \(timeoutMilliseconds) ms (is the node running?)")
        }
        guard frames.count == 2 else {
            throw RuntimeError("malformed reply from \(endpoint): \(frames.count) frames, expected 2")
        }
        return Reply(ok: String(decoding: frames[0], as: UTF8.self) == "ok", text: String(decoding: frames[1], as: UTF8.self))
    }

    /// Requests on their way to their nodes, each on its own socket, whose replies are taken later.
    public final class Pending {
        let requests: [(String, String, Int32)]
        let sockets: [Result<Socket, Error>]

        init(_ requests: [(String, String, Int32)], sockets: [Result<Socket, Error>]) {
            self.requests = requests
            self.sockets = sockets
        }

        deinit { for case .success(let socket) in sockets { socket.close() } }

        /// The replies, in the requests' order (a reply that comes first waits in its socket).
        public func replies() -> [Result<Reply, Error>] {
            zip(requests, sockets).map { request, socket in
                Result {
                    let socket = try socket.get()
                    guard let frames = try ControlClient.reply(on: socket, timeoutMilliseconds: request.2) else {
                        throw RuntimeError("no reply from \(request.0) within \(request.2) ms (is the node running?)")
                    }
                    guard frames.count == 2 else { throw RuntimeError("malformed reply from \(request.0): \(frames.count) frames, expected 2") }
                    return Reply(ok: String(decoding: frames[0], as: UTF8.self) == "ok", text: String(decoding: frames[1], as: UTF8.self))
                }
            }
        }
    }

    /// Sends each request — (endpoint, command, timeout in ms) — without waiting for replies, so
    /// that requests to different nodes are all on their way at once.
    public static func begin(_ requests: [(String, String, Int32)], context: Context) -> Pending {
        Pending(requests, sockets: requests.map { endpoint, command, timeout in
            Result {
                let socket = try Socket(context, .req)
                try socket.setReceiveTimeout(milliseconds: timeout)
                try socket.setSendTimeout(milliseconds: 5_000)
                try socket.connect(endpoint)
                try socket.send(command)
                return socket
            }
        })
    }

    /// A reply waited for in slices of at most 250 ms, `timeoutMilliseconds` of them counted as
    /// `Patience` counts, so a machine that stood still meanwhile does not make a node look dead.
    /// A timeout of 0 (at once) or -1 (for ever) is ZeroMQ's own, as the socket has it.
    static func reply(on socket: Socket, timeoutMilliseconds: Int32) throws -> [[UInt8]]? {
        guard timeoutMilliseconds > 0 else { return try socket.receiveMultipart() }
        var patience = Patience(seconds: Double(timeoutMilliseconds) / 1_000)
        while true {
            try socket.setReceiveTimeout(milliseconds: max(1, min(250, patience.millisecondsLeft)))
            if let frames = try socket.receiveMultipart() { return frames }
            guard patience.wait(microseconds: 0) else { return nil }
        }
    }

    /// Sends with a fresh context (for one-off use).
    public func send(_ command: String) throws -> Reply {
        let context = try Context()
        return try send(command, context: context)
    }
}
