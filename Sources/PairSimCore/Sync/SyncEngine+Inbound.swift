extension SyncEngine {
    /// Most sender streams remembered per channel (older ones are forgotten).
    static let rememberedStreams = 8

    /// Classifies and partly handles one frame from the wire.
    public mutating func receive(frames: [[UInt8]], now: EmulatedInstant) -> (Inbound, [NodeAction]) {
        let envelope: Envelope
        do {
            envelope = try WireCodec.decode(frames: frames, limits: limits)
        } catch {
            let topic = frames.first.flatMap { String(validating: $0, as: UTF8.self) }
            return (.rejected(error), [reject(error, topic: topic, bytes: frames.reduce(0) { $0 + $1.count }, now: now)])
        }
        guard envelope.from == node.peer else {
            let error = WireError(.badEnvelope, "envelope.from is \(envelope.from): a \(node) node accepts only its peer's messages")
            return (.rejected(error), [reject(error, topic: envelope.topic, bytes: frames[1].count, now: now)])
        }
        switch envelope.kind {
        case .hello:
            return (.hello, [])
        case .ack:
            return handleAck(envelope, bytes: frames[1].count, now: now)
        case .objects, .records:
            let channel = envelope.channel!
            let window = inbound[channel]?[envelope.stream]
            outbound[channel]!.counters.receivedBytes += frames[1].count
            if let window, window.contains(envelope.seq) {
                outbound[channel]!.counters.duplicatesDropped += 1
                return (.duplicate, [
                    .emit(Event(at: now, node: node, .syncDuplicate, fields: [
                        "channel": .string(channel.rawValue), "seq": .int(Int64(envelope.seq)),
                    ])),
                    .publish(ackFrame(channel, window: window, now: now)),
                ])
            }
            return (.data(envelope), [])
        }
    }

    /// Records `envelope` as received (after its body was applied) and acknowledges it.
    public mutating func accept(_ envelope: Envelope, summary: JSONObject, now: EmulatedInstant) -> [NodeAction] {
        let channel = envelope.channel!
        var window = inbound[channel]?[envelope.stream] ?? InboundWindow(stream: envelope.stream)
        if inbound[channel]?[envelope.stream] == nil { rememberStream(envelope.stream, channel) }
        window.insert(envelope.seq)
        inbound[channel, default: [:]][envelope.stream] = window
        outbound[channel]!.counters.receivedMessages += 1
        var fields: JSONObject = [
            "channel": .string(channel.rawValue), "seq": .int(Int64(envelope.seq)), "kind": .string(envelope.kind.rawValue),
            "delay": .string((now - envelope.sentAt).description),
        ]
        for member in summary.members { fields.append(member.key, member.value) }
        return [
            .publish(ackFrame(channel, window: window, now: now)),
            .emit(Event(at: now, node: node, .syncReceived, fields: fields)),
        ]
    }

    /// A frame whose envelope was fine but whose body was not: refused, not acknowledged.
    public mutating func rejectBody(_ envelope: Envelope, _ error: DecodeError, bytes: Int, now: EmulatedInstant) -> NodeAction {
        reject(WireError(.badBody, error.description), topic: envelope.topic, bytes: bytes, now: now)
    }

    mutating func reject(_ error: WireError, topic: String?, bytes: Int, now: EmulatedInstant) -> NodeAction {
        rejected[error.code, default: 0] += 1
        var fields: JSONObject = ["code": .string(error.code.rawValue), "reason": .string(error.message)]
        if let topic { fields.append("topic", .string(String(topic.prefix(40)))) }
        fields.append("bytes", .int(Int64(bytes)))
        return .emit(Event(at: now, node: node, .wireRejected, level: .warning, fields: fields))
    }

    mutating func rememberStream(_ stream: String, _ channel: Channel) {
        streamOrder[channel, default: []].append(stream)
        if streamOrder[channel]!.count > Self.rememberedStreams {
            let oldest = streamOrder[channel]!.removeFirst()
            inbound[channel]?[oldest] = nil
        }
    }

    func ackFrame(_ channel: Channel, window: InboundWindow, now: EmulatedInstant) -> WireFrame {
        let selective = window.above.sorted().prefix(512).map { JSON.int(Int64($0)) }
        return WireCodec.encode(Envelope(
            from: node, stream: window.stream, seq: 0, sentAt: now, channel: channel, kind: .ack,
            body: ["upTo": .int(Int64(window.cumulative)), "selective": .array(Array(selective))]))
    }

    mutating func handleAck(_ envelope: Envelope, bytes: Int, now: EmulatedInstant) -> (Inbound, [NodeAction]) {
        let channel = envelope.channel!
        let reader = FieldReader(envelope.body, path: "body")
        let upTo: Int64
        var selective: [UInt64] = []
        do throws(DecodeError) {
            upTo = try reader.int("upTo", min: 0)
            for (index, item) in try reader.array("selective", limit: 4_096).enumerated() {
                guard let seq = item.intValue, seq > 0 else {
                    throw DecodeError(path: "body.selective[\(index)]", reason: "expected a positive integer")
                }
                selective.append(UInt64(seq))
            }
        } catch {
            let wireError = WireError(.badBody, error.description)
            return (.rejected(wireError), [reject(wireError, topic: envelope.topic, bytes: bytes, now: now)])
        }
        // An ack for a stream this node no longer sends on (an earlier run) has nothing to free.
        guard envelope.stream == outbound[channel]!.stream else { return (.ack, []) }
        return (.ack, outbound[channel]!.acknowledge(upTo: UInt64(upTo), selective: selective, now: now))
    }
}
