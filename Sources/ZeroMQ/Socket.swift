import CZeroMQ

/// One ZeroMQ socket. Not thread-safe: create and use it on one thread only.
public final class Socket {
    /// The raw libzmq handle, for `Poller`.
    let handle: UnsafeMutableRawPointer
    /// The pattern this socket was made with.
    public let type: SocketType
    /// Held so the context outlives the socket (terminating a context waits for its sockets).
    private let context: Context
    private var closed = false

    /// Creates a socket of `type` in `context`, with LINGER 0 so closing never blocks.
    public init(_ context: Context, _ type: SocketType) throws(ZMQError) {
        guard let handle = zmq_socket(context.handle, type.raw) else {
            throw ZMQError.last("zmq_socket")
        }
        self.handle = handle
        self.type = type
        self.context = context
        try setOption(ZMQ_LINGER, Int32(0), name: "LINGER")
    }

    deinit { close() }

    /// Closes the socket; later calls fail with `ENOTSOCK`. Safe to call twice.
    public func close() {
        guard !closed else { return }
        closed = true
        zmq_close(handle)
    }

    /// Binds to `endpoint` (`tcp://127.0.0.1:7401`, `ipc://path`, `inproc://name`).
    public func bind(_ endpoint: String) throws(ZMQError) {
        if zmq_bind(handle, endpoint) != 0 { throw ZMQError.last("bind \(endpoint)") }
    }

    /// Connects to `endpoint`; ZeroMQ connects in the background and reconnects on its own.
    public func connect(_ endpoint: String) throws(ZMQError) {
        if zmq_connect(handle, endpoint) != 0 { throw ZMQError.last("connect \(endpoint)") }
    }

    /// Undoes `connect(endpoint)`.
    public func disconnect(_ endpoint: String) throws(ZMQError) {
        if zmq_disconnect(handle, endpoint) != 0 { throw ZMQError.last("disconnect \(endpoint)") }
    }

    /// The endpoint actually bound last (resolves `tcp://127.0.0.1:*` to the chosen port).
    public var lastEndpoint: String {
        var buffer = [CChar](repeating: 0, count: 1024)
        var size = buffer.count
        guard zmq_getsockopt(handle, ZMQ_LAST_ENDPOINT, &buffer, &size) == 0 else { return "" }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    // MARK: Sending

    /// Sends one frame. Returns false when `dontWait` is set and the send would block.
    @discardableResult
    public func send(_ bytes: some Collection<UInt8>, more: Bool = false, dontWait: Bool = false) throws(ZMQError) -> Bool {
        var flags: Int32 = 0
        if more { flags |= ZMQ_SNDMORE }
        if dontWait { flags |= ZMQ_DONTWAIT }
        while true {
            let rc: Int32? = bytes.withContiguousStorageIfAvailable { buffer in
                zmq_send(handle, buffer.baseAddress, buffer.count, flags)
            }
            let result = rc ?? Array(bytes).withUnsafeBufferPointer { zmq_send(handle, $0.baseAddress, $0.count, flags) }
            if result >= 0 { return true }
            let error = ZMQError.last("send")
            if error.isInterrupted { continue }
            if error.isWouldBlock && dontWait { return false }
            throw error
        }
    }

    /// Sends a UTF-8 string as one frame.
    @discardableResult
    public func send(_ text: String, more: Bool = false, dontWait: Bool = false) throws(ZMQError) -> Bool {
        try send(Array(text.utf8), more: more, dontWait: dontWait)
    }

    /// Sends all `frames` as one multipart message.
    @discardableResult
    public func send(multipart frames: [[UInt8]], dontWait: Bool = false) throws(ZMQError) -> Bool {
        for (index, frame) in frames.enumerated() {
            let sent = try send(frame, more: index < frames.count - 1, dontWait: dontWait)
            // ZeroMQ delivers multipart messages atomically: if the first frame went, the rest do too.
            if !sent { return false }
        }
        return true
    }

    // MARK: Receiving

    /// Receives one frame; nil when `dontWait` is set and nothing is waiting (or RCVTIMEO expired).
    public func receiveFrame(dontWait: Bool = false) throws(ZMQError) -> (bytes: [UInt8], more: Bool)? {
        var message = zmq_msg_t()
        zmq_msg_init(&message)
        defer { zmq_msg_close(&message) }
        while true {
            let rc = zmq_msg_recv(&message, handle, dontWait ? ZMQ_DONTWAIT : 0)
            if rc >= 0 { break }
            let error = ZMQError.last("receive")
            if error.isInterrupted { continue }
            if error.isWouldBlock { return nil }
            throw error
        }
        let size = zmq_msg_size(&message)
        let bytes: [UInt8]
        if size == 0 {
            bytes = []
        } else {
            let data = zmq_msg_data(&message)!.assumingMemoryBound(to: UInt8.self)
            bytes = Array(UnsafeBufferPointer(start: data, count: size))
        }
        return (bytes, zmq_msg_more(&message) != 0)
    }

    /// Receives one frame into `buffer` without allocating; returns the frame's full size (which
    /// may exceed the buffer: the rest is cut), or nil when nothing is waiting (with `dontWait`).
    public func receive(into buffer: inout [UInt8], dontWait: Bool = false) throws(ZMQError) -> Int? {
        while true {
            let rc = buffer.withUnsafeMutableBytes { zmq_recv(handle, $0.baseAddress, $0.count, dontWait ? ZMQ_DONTWAIT : 0) }
            if rc >= 0 { return Int(rc) }
            let error = ZMQError.last("receive")
            if error.isInterrupted { continue }
            if error.isWouldBlock { return nil }
            throw error
        }
    }

    /// Receives a whole multipart message; nil when nothing is waiting (with `dontWait`) or on timeout.
    public func receiveMultipart(dontWait: Bool = false) throws(ZMQError) -> [[UInt8]]? {
        guard let first = try receiveFrame(dontWait: dontWait) else { return nil }
        var frames: [[UInt8]] = []
        // Every PairSim message is two frames: room for both at once, not a regrowth per message.
        frames.reserveCapacity(2)
        frames.append(first.bytes)
        var more = first.more
        while more {
            // The remaining frames of a multipart message are already here: never blocks.
            guard let next = try receiveFrame() else { break }
            frames.append(next.bytes)
            more = next.more
        }
        return frames
    }
}
