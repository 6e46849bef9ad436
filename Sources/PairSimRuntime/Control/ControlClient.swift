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
        guard let frames = try socket.receiveMultipart() else {
            throw RuntimeError("no reply from \(endpoint) within \(timeoutMilliseconds) ms (is the node running?)")
        }
        guard frames.count == 2 else {
            throw RuntimeError("malformed reply from \(endpoint): \(frames.count) frames, expected 2")
        }
        return Reply(ok: String(decoding: frames[0], as: UTF8.self) == "ok", text: String(decoding: frames[1], as: UTF8.self))
    }

    /// Sends with a fresh context (for one-off use).
    public func send(_ command: String) throws -> Reply {
        let context = try Context()
        return try send(command, context: context)
    }
}
