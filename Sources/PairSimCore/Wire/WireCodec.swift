/// Encodes envelopes to frames and decodes frames back, refusing anything malformed.
public enum WireCodec {
    /// The two frames for `envelope`.
    public static func encode(_ envelope: Envelope) -> WireFrame {
        var payload: [UInt8] = []
        payload.reserveCapacity(160)
        writeHead(envelope, into: &payload)
        JSONWriter.write(.object(envelope.body), into: &payload)
        payload.append(UInt8(ascii: "}"))
        return WireFrame(topic: envelope.topic, payload: payload)
    }

    /// The same frame as `encode(_:)` for an envelope whose body `JSONWriter` writes as `body`
    /// (the envelope's own `body` is ignored): the body's bytes made without a JSON tree.
    public static func encode(_ envelope: Envelope, body: [UInt8]) -> WireFrame {
        frame(envelope, bodyCapacity: body.count) { $0.append(contentsOf: body) }
    }

    /// The frame of `envelope` with `objects` for its body (`HealthObjectsBatch.bodyBytes`), written
    /// in place after the head: writing the body apart and copying it in was ~4 % of the watch's
    /// time on a bulk write (perf, `pairsim-bench sync`: the copy, and the page faults of a second
    /// buffer of a few hundred KB a message).
    public static func encode(_ envelope: Envelope, objects: HealthObjectsBatch) -> WireFrame {
        frame(envelope, bodyCapacity: objects.bodyCapacity) { objects.writeBody(into: &$0) }
    }

    /// The head, the body `writeBody` appends, and the envelope's closing brace, in one buffer.
    private static func frame(_ envelope: Envelope, bodyCapacity: Int, writeBody: (inout [UInt8]) -> Void) -> WireFrame {
        var payload: [UInt8] = []
        payload.reserveCapacity(bodyCapacity + 160)
        writeHead(envelope, into: &payload)
        writeBody(&payload)
        payload.append(UInt8(ascii: "}"))
        return WireFrame(topic: envelope.topic, payload: payload)
    }

    /// An envelope's members before its body, as `JSONWriter` writes the envelope object, up to
    /// and including `"body":`. Written directly rather than through a tree: the tree was ~2 µs
    /// of the phone's one-sample turn, on the way to its ack.
    static func writeHead(_ envelope: Envelope, into out: inout [UInt8]) {
        JSONWriter.writeRaw(#"{"v":"#, into: &out)
        JSONWriter.writeInt(Envelope.version, into: &out)
        JSONWriter.writeRaw(#","from":"#, into: &out)
        JSONWriter.writeString(envelope.from.rawValue, into: &out)
        JSONWriter.writeRaw(#","stream":"#, into: &out)
        JSONWriter.writeString(envelope.stream, into: &out)
        JSONWriter.writeRaw(#","seq":"#, into: &out)
        JSONWriter.writeInt(Int64(envelope.seq), into: &out)
        JSONWriter.writeRaw(#","sentAt":"#, into: &out)
        JSONWriter.writeInt(envelope.sentAt.milliseconds, into: &out)
        if let channel = envelope.channel {
            JSONWriter.writeRaw(#","channel":"#, into: &out)
            JSONWriter.writeString(channel.rawValue, into: &out)
        }
        JSONWriter.writeRaw(#","kind":"#, into: &out)
        JSONWriter.writeString(envelope.kind.rawValue, into: &out)
        JSONWriter.writeRaw(#","body":"#, into: &out)
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

    /// Decodes raw multipart frames as received from ZeroMQ. With `readingObjects`, an `objects`
    /// body in the form nodes write comes already read, in `objects` (the sync engine's way).
    public static func decode(frames: [[UInt8]], limits: WireLimits = .default, readingObjects: Bool = false) throws(WireError) -> Envelope {
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
        return try decode(WireFrame(topic: topic, payload: frames[1]), limits: limits, readingObjects: readingObjects)
    }

    /// Decodes a topic and envelope frame (`readingObjects`: as `decode(frames:limits:readingObjects:)`).
    public static func decode(_ frame: WireFrame, limits: WireLimits = .default, readingObjects: Bool = false) throws(WireError) -> Envelope {
        guard let (topicChannel, topicKind) = Topic.parse(frame.topic) else {
            let shown = frame.topic.count > 40 ? String(frame.topic.prefix(40)) + "…" : frame.topic
            throw WireError(.unknownTopic, "unknown topic \"\(shown)\" (expected one of \(Topic.all.map(\.topic).joined(separator: ", ")))")
        }
        guard frame.payload.count <= limits.maxEnvelopeBytes else {
            throw WireError(.oversized, "envelope of \(frame.payload.count) bytes exceeds the limit of \(limits.maxEnvelopeBytes)")
        }
        if let envelope = decodeCanonical(frame.payload, channel: topicChannel, kind: topicKind, limits: limits, readingObjects: readingObjects) {
            return envelope
        }
        return try decodeTree(frame, channel: topicChannel, kind: topicKind, limits: limits)
    }

    /// Decodes an envelope through a JSON tree, naming what is wrong with it: every frame the
    /// canonical path does not take.
    static func decodeTree(_ frame: WireFrame, channel topicChannel: Channel?, kind topicKind: MessageKind,
                           limits: WireLimits) throws(WireError) -> Envelope {
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
        // The integer 1, written so: `1.0` or `1e0` is another token (docs/PROTOCOL.md).
        guard version.exactIntValue == Envelope.version else {
            if case .double = version {
                throw WireError(.unsupportedVersion, "envelope.v is a number written with a fraction or exponent; this node speaks version \(Envelope.version), written as the integer token 1")
            }
            throw WireError(.unsupportedVersion, "envelope.v is \(JSONWriter.string(version)); this node speaks version \(Envelope.version)")
        }
        let fields = FieldReader(object, path: "envelope")
        do throws(DecodeError) {
            try fields.only(WireKeys.envelope)
            let fromText = try fields.string("from")
            guard let from = NodeName(rawValue: fromText) else {
                throw DecodeError(path: "envelope.from", reason: "unknown node \"\(fromText)\" (expected watch or phone)")
            }
            let stream = try fields.string("stream")
            guard (1...64).contains(stream.utf8.count) else {
                throw DecodeError(path: "envelope.stream", reason: "must be 1 to 64 bytes")
            }
            let seq = try fields.int("seq", min: 0, max: FieldReader.maxTime)
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
