import CZeroMQ

/// Waits on several sockets and plain file descriptors at once (`zmq_poll`).
///
/// Build it once with the items to watch, then call `poll(timeoutMilliseconds:)` in a loop on the
/// sockets' own thread.
public struct Poller {
    /// What one polled item is ready for.
    public struct Readiness: OptionSet, Sendable {
        public let rawValue: Int16
        public init(rawValue: Int16) { self.rawValue = rawValue }
        public static let readable = Readiness(rawValue: Int16(ZMQ_POLLIN))
        public static let writable = Readiness(rawValue: Int16(ZMQ_POLLOUT))
    }

    private var items: [zmq_pollitem_t] = []

    public init() {}

    /// Adds a socket; returns its index in `poll`'s result.
    @discardableResult
    public mutating func add(_ socket: Socket, for events: Readiness = .readable) -> Int {
        items.append(zmq_pollitem_t(socket: socket.handle, fd: -1, events: events.rawValue, revents: 0))
        return items.count - 1
    }

    /// Adds a plain file descriptor (a pipe, an eventfd); returns its index in `poll`'s result.
    @discardableResult
    public mutating func add(fileDescriptor: Int32, for events: Readiness = .readable) -> Int {
        items.append(zmq_pollitem_t(socket: nil, fd: fileDescriptor, events: events.rawValue, revents: 0))
        return items.count - 1
    }

    /// Changes which events item `index` is watched for (an empty set parks it).
    public mutating func watch(_ index: Int, for events: Readiness) {
        items[index].events = events.rawValue
    }

    /// Waits up to `timeoutMilliseconds` (-1 = forever) and returns each item's readiness.
    /// An interrupting signal returns all-empty readiness rather than an error.
    public mutating func poll(timeoutMilliseconds: Int) throws(ZMQError) -> [Readiness] {
        let count = Int32(items.count)
        let rc = items.withUnsafeMutableBufferPointer { zmq_poll($0.baseAddress, count, timeoutMilliseconds) }
        if rc < 0 {
            let error = ZMQError.last("zmq_poll")
            if error.isInterrupted { return Array(repeating: [], count: items.count) }
            throw error
        }
        return items.map { Readiness(rawValue: $0.revents) }
    }
}
