/// Encodes envelopes to frames and decodes frames back, refusing anything malformed.
public enum WireCodec {
    /// The two frames for `envelope`.
    public static func encode(_ envelope: Envelope) -> WireFrame {
        var object = JSONObject()
        object.append("v", .int(Envelope.version))
        object.append("from", .string(envelope.from.rawValue))
        object.append("stream", .string(envelope.stream))
        object.append("seq", .int(Int64(envelope.seq)))
        object.append("sentAt", .int(envelope.sentAt.milliseconds))
        if let channel = envelope.channel { object.append("channel", .string(channel.rawValue)) }
        object.append("kind", .string(envelope.kind.rawValue))
        object.append("body", .object(envelope.body))
        return WireFrame(topic: envelope.topic, payload: JSONWriter.bytes(.object(object)))
    }

    /// The same frame as `encode(_:)` for an envelope whose body `JSONWriter` writes as `body`
    /// (the envelope's own `body` is ignored): the body's bytes made without a JSON tree.
    public static func encode(_ envelope: Envelope, body: [UInt8]) -> WireFrame {
        var empty = envelope
        empty.body = [:]
        // Without the empty body `{}` and the envelope's closing brace: `{"v":1,…,"body":`.
        let head = encode(empty).payload.dropLast(3)
        return WireFrame(topic: envelope.topic, payload: payload(head: head, body: body))
    }

    /// An envelope's bytes from its head (up to and including `"body":`) and its body's bytes.
    public static func payload(head: some Collection<UInt8>, body: some Collection<UInt8>) -> [UInt8] {
        var payload = Array(head)
        payload.reserveCapacity(head.count + body.count + 1)
        payload.append(contentsOf: body)
        payload.append(UInt8(ascii: "}"))
        return payload
    }

    /// The head of an envelope this codec wrote: its bytes up to and including the `"body":` key,
    /// or nil. `body` is written last, after keys whose values are numbers and plain strings;
    /// inside a JSON string a quote is always escaped, so the first `,"body":` is the key itself.
    public static func head(ofPayload payload: [UInt8]) -> ArraySlice<UInt8>? {
        let key = Array(#","body":"#.utf8)
        guard payload.last == UInt8(ascii: "}"), payload.count > key.count else { return nil }
        for start in 0...(payload.count - key.count) where payload[start] == key[0] {
            if payload[start..<(start + key.count)].elementsEqual(key) { return payload[..<(start + key.count)] }
        }
        return nil
    }

    /// Decodes raw multipart frames as received from ZeroMQ.
    public static func decode(frames: [[UInt8]], limits: WireLimits = .default) throws(WireError) -> Envelope {
        guard frames.count == 2 else {
            throw WireError(.frameCount, "expected 2 frames (topic, envelope), got \(frames.count)")
        }
        // Every topic is ASCII: checked byte by byte first, as `String(validating:)` alone took
        // ~2.5 µs of the phone's one-sample turn for a 10-byte topic.
        let topic: String
        if frames[0].allSatisfy({ $0 < 0x80 }) {
            topic = String(decoding: frames[0], as: UTF8.self)
        } else if let text = String(validating: frames[0], as: UTF8.self) {
            topic = text
        } else {
            throw WireError(.unknownTopic, "topic frame is not UTF-8 (\(frames[0].count) bytes)")
        }
        return try decode(WireFrame(topic: topic, payload: frames[1]), limits: limits)
    }

    /// Decodes a topic and envelope frame.
    public static func decode(_ frame: WireFrame, limits: WireLimits = .default) throws(WireError) -> Envelope {
        guard let (topicChannel, topicKind) = Topic.parse(frame.topic) else {
            let shown = frame.topic.count > 40 ? String(frame.topic.prefix(40)) + "…" : frame.topic
            throw WireError(.unknownTopic, "unknown topic \"\(shown)\" (expected one of \(Topic.all.map(\.topic).joined(separator: ", ")))")
        }
        guard frame.payload.count <= limits.maxEnvelopeBytes else {
            throw WireError(.oversized, "envelope of \(frame.payload.count) bytes exceeds the limit of \(limits.maxEnvelopeBytes)")
        }
        var parser = JSONParser()
        parser.maxContainerCount = limits.maxItemsPerMessage * 8
        let json: JSON
        do { json = try parser.parse(frame.payload) } catch {
            throw WireError(.notJSON, "envelope is not JSON: \(error)")
        }
        guard case .object(let object) = json else {
            throw WireError(.badEnvelope, "envelope must be a JSON object, got \(json.kindName)")
        }
        guard let version = object["v"] else { throw WireError(.badEnvelope, "envelope.v is missing") }
        guard version.intValue == Envelope.version else {
            throw WireError(.unsupportedVersion, "envelope.v is \(JSONWriter.string(version)); this node speaks version \(Envelope.version)")
        }
        let fields = FieldReader(object, path: "envelope")
        do throws(DecodeError) {
            let fromText = try fields.string("from")
            guard let from = NodeName(rawValue: fromText) else {
                throw DecodeError(path: "envelope.from", reason: "unknown node \"\(fromText)\" (expected watch or phone)")
            }
            let stream = try fields.string("stream")
            guard (1...64).contains(stream.utf8.count) else {
                throw DecodeError(path: "envelope.stream", reason: "must be 1 to 64 bytes")
            }
            let seq = try fields.int("seq", min: 0)
            let sentAt = try fields.int("sentAt", min: 0, max: FieldReader.maxTime)
            let kindText = try fields.string("kind")
            guard kindText == topicKind.rawValue else {
                throw DecodeError(path: "envelope.kind", reason: "\"\(kindText)\" does not match topic \(frame.topic)")
            }
            let channelText = try fields.optionalString("channel")
            if channelText != topicChannel?.rawValue {
                throw DecodeError(path: "envelope.channel", reason: "\(channelText.map { "\"\($0)\"" } ?? "missing") does not match topic \(frame.topic)")
            }
            if topicKind.isData, seq < 1 {
                throw DecodeError(path: "envelope.seq", reason: "must be ≥ 1 for data messages")
            }
            if !topicKind.isData, seq != 0 {
                throw DecodeError(path: "envelope.seq", reason: "must be 0 for \(topicKind.rawValue), got \(seq)")
            }
            let body = try fields.object("body")
            return Envelope(from: from, stream: stream, seq: UInt64(seq), sentAt: EmulatedInstant(milliseconds: sentAt),
                            channel: topicChannel, kind: topicKind, body: body)
        } catch {
            throw WireError(.badEnvelope, error.description)
        }
    }
}
