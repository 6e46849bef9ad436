import CZeroMQ

/// A ZeroMQ context: the one object libzmq makes thread-safe, so it may be shared between threads.
///
/// Sockets created from it are not thread-safe and must stay on the thread that made them.
public final class Context: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer

    /// Creates a context with libzmq's default I/O thread count (1).
    public init() throws(ZMQError) {
        guard let handle = zmq_ctx_new() else { throw ZMQError.last("zmq_ctx_new") }
        self.handle = handle
    }

    /// Makes every blocking call on this context's sockets return `ETERM`; sockets must still be closed.
    public func shutdown() {
        zmq_ctx_shutdown(handle)
    }

    deinit {
        // Blocks until every socket is closed; sockets use LINGER 0 by default here, so this is prompt.
        while zmq_ctx_term(handle) != 0 && zmq_errno() == EINTR {}
    }

    /// The libzmq version as `major.minor.patch`.
    public static var version: String {
        var major: Int32 = 0, minor: Int32 = 0, patch: Int32 = 0
        zmq_version(&major, &minor, &patch)
        return "\(major).\(minor).\(patch)"
    }
}
