extension SyncEngine {
    /// Most sender streams remembered per channel (older ones are forgotten).
    static let rememberedStreams = 8
    /// Most sequence numbers an ack's `selective` list may carry (this node sends at most as many).
    public static let maxSelective = 512

    /// Classifies and partly handles one frame from the wire.
    public mutating func receive(frames: [[UInt8]], now: EmulatedInstant) -> (Inbound, [NodeAction]) {
        // `wire.rejected`'s `bytes` is always the whole message: every frame's length added up.
        let frameBytes = frames.reduce(0) { $0 + $1.count }
        let envelope: Envelope
        do {
            envelope = try WireCodec.decode(frames: frames, limits: limits, readingObjects: true)
        } catch {
            // A topic that is not UTF-8 is shown with U+FFFD in place of the bad bytes.
            let topic = frames.first.map { String(decoding: $0, as: UTF8.self) }
            return (.rejected(error), [reject(error, topic: topic, bytes: frameBytes, now: now)])
        }
        guard envelope.from == node.peer else {
            let error = WireError(.badEnvelope, "envelope.from is \(envelope.from): a \(node) node accepts only its peer's messages")
            return (.rejected(error), [reject(error, topic: envelope.topic, bytes: frameBytes, now: now)])
        }
        // The link state is what the devices' own radios know: heard across a partition.
        if envelope.kind == .link {
            let settled: (stream: String, below: UInt64)?
            let reachable: Bool
            do throws(DecodeError) {
                let reader = FieldReader(envelope.body, path: "body")
                try reader.only(WireKeys.link)
                reachable = try reader.bool("reachable")
                // `stream` and `settled` come together or not at all (docs/PROTOCOL.md).
                if envelope.body.keys.contains("stream") != envelope.body.keys.contains("settled") {
                    throw DecodeError(path: "body", reason: "stream and settled come together (both or neither)")
                }
                if reader.has("settled") {
                    let stream = try reader.string("stream", minBytes: 1, maxBytes: 64)
                    settled = (stream, UInt64(try reader.int("settled", min: 1, max: FieldReader.maxTime)))
                } else {
                    settled = nil
                }
            } catch {
                let wireError = WireError(.badBody, error.description)
                return (.rejected(wireError), [reject(wireError, topic: envelope.topic, bytes: frameBytes, now: now)])
            }
            if let settled { settle(.watchconnectivity, stream: settled.stream, below: settled.below) }
            return (.link(reachable: reachable), [])
        }
        // A partition cuts both ways: what reaches a node whose side of the channel is cut (its own
        // out-of-range or offline) did not, as far as that node can tell.
        if let channel = envelope.channel, outbound[channel].isPartitioned(at: now) {
            return (.unreachable, [outbound[channel].event(.syncDropped, now, [
                "kind": .string(envelope.kind.rawValue), "seq": .int(Int64(envelope.seq)),
            ])])
        }
        switch envelope.kind {
        case .hello:
            do throws(DecodeError) {
                try Self.checkHello(envelope.body)
            } catch {
                let wireError = WireError(.badBody, error.description)
                return (.rejected(wireError), [reject(wireError, topic: envelope.topic, bytes: frameBytes, now: now)])
            }
            return (.hello, peerAppeared(now: now))
        case .ack:
            return handleAck(envelope, bytes: frameBytes, now: now)
        case .link:
            preconditionFailure("Invalid state: link is handled above")
        case .objects, .records, .message, .reply, .userinfo, .context, .file:
            let channel = envelope.channel!
            let window = inbound[channel][envelope.stream]
            if let window, window.contains(envelope.seq) {
                // Received bytes count messages taken (new or duplicate), never refused ones.
                outbound[channel].counters.receivedBytes += frames[1].count
                outbound[channel].counters.duplicatesDropped += 1
                return (.duplicate, [
                    .emit(Event(at: now, node: node, .syncDuplicate, fields: [
                        "channel": .string(channel.rawValue), "seq": .int(Int64(envelope.seq)),
                    ])),
                    acknowledge(channel, window: window, now: now),
                ])
            }
            return (.data(envelope), [])
        }
    }

    /// A `hello` body: `{"streams":{"healthkit":…,"cloudkit":…}}`, each stream 1 to 64 bytes.
    static func checkHello(_ body: JSONObject) throws(DecodeError) {
        // docs/PROTOCOL.md: `streams` and no other key.
        if let extra = body.keys.first(where: { $0 != "streams" }) {
            throw DecodeError(path: "body", reason: "unknown key \"\(extra.prefix(40))\" (a hello body has streams only)")
        }
        let members = try FieldReader(body, path: "body").object("streams")
        let streams = FieldReader(members, path: "body.streams")
        // watchconnectivity is optional: a client that does not speak WatchConnectivity leaves it
        // out — left out, not null.
        for channel in Channel.allCases where channel != .watchconnectivity || members.keys.contains(channel.rawValue) {
            _ = try streams.string(channel.rawValue, minBytes: 1, maxBytes: 64)
        }
        if let extra = members.keys.first(where: { Channel(rawValue: $0) == nil }) {
            throw DecodeError(path: "body.streams", reason: "unknown channel \"\(extra.prefix(40))\" (expected healthkit, cloudkit and watchconnectivity)")
        }
    }

    /// Records `envelope` (of `bytes` envelope bytes) as received after its body was applied, and
    /// acknowledges it.
    public mutating func accept(_ envelope: Envelope, bytes: Int, summary: JSONObject, now: EmulatedInstant) -> [NodeAction] {
        let channel = envelope.channel!
        let window = record(envelope)
        outbound[channel].counters.receivedMessages += 1
        outbound[channel].counters.receivedBytes += bytes
        var fields: JSONObject = [
            "channel": .string(channel.rawValue), "seq": .int(Int64(envelope.seq)), "kind": .string(envelope.kind.rawValue),
            "delay": .string((now - envelope.sentAt).description),
        ]
        for member in summary.members { fields.append(member.key, member.value) }
        return [
            acknowledge(channel, window: window, now: now),
            .emit(Event(at: now, node: node, .syncReceived, fields: fields)),
        ]
    }

    /// A refused data message on a channel that delivers in order (watchconnectivity): recorded as
    /// received and acknowledged, so the messages after it are not held up behind a message that
    /// can never be delivered (the sender would only send it again). It is not counted as received.
    public mutating func skip(_ envelope: Envelope, now: EmulatedInstant) -> [NodeAction] {
        [acknowledge(envelope.channel!, window: record(envelope), now: now)]
    }

    /// Marks `envelope`'s sequence number received in its stream's window; the window after.
    mutating func record(_ envelope: Envelope) -> InboundWindow {
        let channel = envelope.channel!
        var window = inbound[channel][envelope.stream] ?? InboundWindow(stream: envelope.stream)
        if inbound[channel][envelope.stream] == nil { rememberStream(envelope.stream, channel) }
        window.insert(envelope.seq)
        inbound[channel][envelope.stream] = window
        return window
    }

    /// A frame whose envelope (of `bytes` envelope bytes) was fine but whose body was not: refused,
    /// not acknowledged.
    public mutating func rejectBody(_ envelope: Envelope, _ error: DecodeError, bytes: Int, now: EmulatedInstant) -> NodeAction {
        reject(WireError(.badBody, error.description), topic: envelope.topic, bytes: bytes + envelope.topic.utf8.count, now: now)
    }

    mutating func reject(_ error: WireError, topic: String?, bytes: Int, now: EmulatedInstant) -> NodeAction {
        rejected[error.code, default: 0] += 1
        var fields: JSONObject = ["code": .string(error.code.rawValue), "reason": .string(error.message)]
        if let topic { fields.append("topic", .string(String(topic.prefix(40)))) }
        fields.append("bytes", .int(Int64(bytes)))
        return .emit(Event(at: now, node: node, .wireRejected, level: .warning, fields: fields))
    }

    mutating func rememberStream(_ stream: String, _ channel: Channel) {
        streamOrder[channel].append(stream)
        if streamOrder[channel].count > Self.rememberedStreams {
            let oldest = streamOrder[channel].removeFirst()
            inbound[channel][oldest] = nil
        }
    }

    /// Acknowledges `window` on `channel`, through the channel model (an ack may be lost).
    mutating func acknowledge(_ channel: Channel, window: InboundWindow, now: EmulatedInstant) -> NodeAction {
        outbound[channel].acknowledgement(ackFrame(channel, window: window, now: now), upTo: window.cumulative, now: now)
    }

    func ackFrame(_ channel: Channel, window: InboundWindow, now: EmulatedInstant) -> WireFrame {
        WireCodec.encode(Envelope(from: node, stream: window.stream, seq: 0, sentAt: now, channel: channel, kind: .ack, body: [:]),
                         body: Self.ackBody(window))
    }

    /// `{"upTo":…,"selective":[…]}` written directly, the bytes `JSONWriter` writes for that tree
    /// (the tree and its writing were ~3 µs of the phone's one-sample turn, before its ack).
    static func ackBody(_ window: InboundWindow) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(32)
        JSONWriter.writeRaw(#"{"upTo":"#, into: &body)
        JSONWriter.writeInt(Int64(window.cumulative), into: &body)
        JSONWriter.writeRaw(#","selective":["#, into: &body)
        for (index, seq) in window.above.sorted().prefix(Self.maxSelective).enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            JSONWriter.writeInt(Int64(seq), into: &body)
        }
        JSONWriter.writeRaw("]}", into: &body)
        return body
    }

    mutating func handleAck(_ envelope: Envelope, bytes: Int, now: EmulatedInstant) -> (Inbound, [NodeAction]) {
        let channel = envelope.channel!
        let reader = FieldReader(envelope.body, path: "body")
        let upTo: Int64
        var selective: [UInt64] = []
        do throws(DecodeError) {
            try reader.only(WireKeys.ack)
            if envelope.body["selective"] == .null { throw DecodeError(path: "body.selective", reason: "null: leave it out, or give an array") }
            upTo = try reader.int("upTo", min: 0, max: FieldReader.maxTime)
            // `selective` is optional: absent, the receiver has nothing beyond `upTo`.
            for (index, item) in try reader.array("selective", limit: Self.maxSelective).enumerated() {
                guard let seq = item.exactIntValue, seq > 0, seq <= FieldReader.maxTime else {
                    throw DecodeError(path: "body.selective[\(index)]", reason: "expected an integer 1 … 2^50")
                }
                selective.append(UInt64(seq))
            }
        } catch {
            let wireError = WireError(.badBody, error.description)
            return (.rejected(wireError), [reject(wireError, topic: envelope.topic, bytes: bytes, now: now)])
        }
        // An ack for a stream this node no longer sends on (an earlier run) has nothing to free.
        guard envelope.stream == outbound[channel].stream else { return (.ack(channel), []) }
        return (.ack(channel), outbound[channel].acknowledge(upTo: UInt64(upTo), selective: selective, now: now))
    }
}
