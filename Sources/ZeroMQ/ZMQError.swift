import CZeroMQ

/// An error reported by libzmq, carrying zmq's own text and the operation that failed.
public struct ZMQError: Error, Hashable, CustomStringConvertible {
    /// The `errno` value libzmq reported.
    public var code: Int32
    /// What the wrapper was doing, e.g. `bind tcp://127.0.0.1:7401`.
    public var operation: String
    /// zmq's description of `code` (`zmq_strerror`), made when asked: every non-blocking receive
    /// that finds nothing is an `EAGAIN` error, and making its text there took ~1.5 µs of the
    /// phone's one-sample turn (`perf`, single-sample probe).
    public var message: String { String(cString: zmq_strerror(code)) }

    /// Captures the current `zmq_errno()` for `operation`.
    public static func last(_ operation: String) -> ZMQError {
        ZMQError(code: zmq_errno(), operation: operation)
    }

    /// True when the call would have blocked (`EAGAIN`): no message, or the send queue is full.
    public var isWouldBlock: Bool { code == EAGAIN }
    /// True when a blocking call was interrupted by a signal (`EINTR`).
    public var isInterrupted: Bool { code == EINTR }
    /// True when the context was terminated (`ETERM`).
    public var isTerminated: Bool { code == ETERM }

    public var description: String { "\(operation): \(message) (errno \(code))" }
}
