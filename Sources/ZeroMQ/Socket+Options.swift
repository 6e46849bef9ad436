import CZeroMQ

extension Socket {
    func setOption(_ option: Int32, _ value: Int32, name: String) throws(ZMQError) {
        var value = value
        if zmq_setsockopt(handle, option, &value, MemoryLayout<Int32>.size) != 0 {
            throw ZMQError.last("setsockopt \(name)")
        }
    }

    func setOption64(_ option: Int32, _ value: Int64, name: String) throws(ZMQError) {
        var value = value
        if zmq_setsockopt(handle, option, &value, MemoryLayout<Int64>.size) != 0 {
            throw ZMQError.last("setsockopt \(name)")
        }
    }

    func setOption(_ option: Int32, bytes: [UInt8], name: String) throws(ZMQError) {
        let rc = bytes.withUnsafeBufferPointer { zmq_setsockopt(handle, option, $0.baseAddress, $0.count) }
        if rc != 0 { throw ZMQError.last("setsockopt \(name)") }
    }

    /// Subscribes a SUB socket to messages whose first frame starts with `prefix` ("" = everything).
    public func subscribe(_ prefix: String) throws(ZMQError) {
        try setOption(ZMQ_SUBSCRIBE, bytes: Array(prefix.utf8), name: "SUBSCRIBE")
    }

    /// Removes a subscription made with `subscribe(_:)`.
    public func unsubscribe(_ prefix: String) throws(ZMQError) {
        try setOption(ZMQ_UNSUBSCRIBE, bytes: Array(prefix.utf8), name: "UNSUBSCRIBE")
    }

    /// How long (ms) unsent messages linger after `close`; 0 drops them at once.
    public func setLinger(milliseconds: Int32) throws(ZMQError) {
        try setOption(ZMQ_LINGER, milliseconds, name: "LINGER")
    }

    /// Send high-water mark: a PUB socket silently drops messages past this many queued per peer.
    public func setSendHighWaterMark(_ messages: Int32) throws(ZMQError) {
        try setOption(ZMQ_SNDHWM, messages, name: "SNDHWM")
    }

    /// Receive high-water mark.
    public func setReceiveHighWaterMark(_ messages: Int32) throws(ZMQError) {
        try setOption(ZMQ_RCVHWM, messages, name: "RCVHWM")
    }

    /// Receive timeout in ms (-1 = block forever); a timed-out receive returns nil.
    public func setReceiveTimeout(milliseconds: Int32) throws(ZMQError) {
        try setOption(ZMQ_RCVTIMEO, milliseconds, name: "RCVTIMEO")
    }

    /// Send timeout in ms (-1 = block forever).
    public func setSendTimeout(milliseconds: Int32) throws(ZMQError) {
        try setOption(ZMQ_SNDTIMEO, milliseconds, name: "SNDTIMEO")
    }

    /// Largest inbound message (bytes) libzmq accepts; a peer sending more is disconnected (-1 = no limit).
    public func setMaxMessageSize(_ bytes: Int64) throws(ZMQError) {
        try setOption64(ZMQ_MAXMSGSIZE, bytes, name: "MAXMSGSIZE")
    }

    /// For REQ sockets: allow a new request after a lost reply instead of failing with EFSM.
    public func setRequestRelaxed(_ on: Bool) throws(ZMQError) {
        try setOption(ZMQ_REQ_RELAXED, on ? 1 : 0, name: "REQ_RELAXED")
        try setOption(ZMQ_REQ_CORRELATE, on ? 1 : 0, name: "REQ_CORRELATE")
    }

    /// For XPUB sockets: pass every subscription message up, not only new ones.
    public func setXPubVerbose(_ on: Bool) throws(ZMQError) {
        try setOption(ZMQ_XPUB_VERBOSE, on ? 1 : 0, name: "XPUB_VERBOSE")
    }

    /// Queue messages only to completed connections (no queueing for peers not yet connected).
    public func setImmediate(_ on: Bool) throws(ZMQError) {
        try setOption(ZMQ_IMMEDIATE, on ? 1 : 0, name: "IMMEDIATE")
    }

    /// Reconnect interval (ms) for connecting sockets.
    public func setReconnectInterval(milliseconds: Int32) throws(ZMQError) {
        try setOption(ZMQ_RECONNECT_IVL, milliseconds, name: "RECONNECT_IVL")
    }
}

extension Socket {
    /// True when a message can be received now without waiting (`ZMQ_EVENTS` has `ZMQ_POLLIN`).
    public var hasInput: Bool {
        var events: Int32 = 0
        var size = MemoryLayout<Int32>.size
        guard zmq_getsockopt(handle, ZMQ_EVENTS, &events, &size) == 0 else { return false }
        return events & Int32(ZMQ_POLLIN) != 0
    }
}
