extension WireCodec {
    /// The envelope in `payload` when it is exactly what `encode` writes — its members in
    /// `encode`'s order, no whitespace, plain ASCII strings, integers without sign or exponent —
    /// and it passes every check `decode` makes; nil for anything else, which `decode` then reads
    /// through a JSON tree and accepts or refuses with its reason.
    ///
    /// Only the body is parsed into a tree here. Parsing the whole envelope and reading its seven
    /// members through `FieldReader` was ~8 µs of the phone's one-sample turn, on the way to its
    /// ack (`perf`, single-sample probe); this is ~3 µs. A differential test holds the two paths
    /// to the same result on valid and mutated frames. With `readingObjects`, an `objects` body is
    /// read without a tree too, when it is in the form nodes write (`HealthObjectsBatch.readCanonical`).
    static func decodeCanonical(_ payload: [UInt8], channel topicChannel: Channel?, kind topicKind: MessageKind,
                                limits: WireLimits, readingObjects: Bool = false) -> Envelope? {
        payload.withUnsafeBufferPointer { bytes -> Envelope? in
            var scanner = CanonicalScanner(bytes: bytes)
            guard scanner.take(#"{"v":"#), scanner.integer() == Envelope.version,
                  scanner.take(#","from":"#), let fromText = scanner.string(), let from = NodeName(rawValue: fromText),
                  scanner.take(#","stream":"#), let stream = scanner.string(), (1...64).contains(stream.utf8.count),
                  scanner.take(#","seq":"#), let seq = scanner.integer(), seq <= FieldReader.maxTime,
                  scanner.take(#","sentAt":"#), let sentAt = scanner.integer(), sentAt <= FieldReader.maxTime
            else { return nil }
            var channelText: String?
            if scanner.take(#","channel":"#) {
                guard let text = scanner.string() else { return nil }
                channelText = text
            }
            guard channelText == topicChannel?.rawValue,
                  scanner.take(#","kind":"#), scanner.string() == topicKind.rawValue,
                  topicKind.isData ? seq >= 1 : seq == 0,
                  scanner.take(#","body":"#), bytes.last == UInt8(ascii: "}"), scanner.index < bytes.count - 1
            else { return nil }
            // The body is one level deeper inside the envelope than on its own.
            var parser = JSONParser()
            parser.maxDepth -= 1
            parser.maxContainerCount = limits.maxItemsPerMessage * 8
            // The envelope's own eight members must fit the same limit.
            guard parser.maxContainerCount >= 8 else { return nil }
            let bodyBytes = UnsafeBufferPointer(rebasing: bytes[scanner.index..<(bytes.count - 1)])
            if readingObjects, topicKind == .objects, let batch = HealthObjectsBatch.readCanonical(bodyBytes, limits: limits) {
                var envelope = Envelope(from: from, stream: stream, seq: UInt64(seq), sentAt: EmulatedInstant(milliseconds: sentAt),
                                        channel: topicChannel, kind: topicKind, body: [:])
                envelope.objects = batch
                return envelope
            }
            guard case .object(let body)? = try? parser.parse(bodyBytes) else { return nil }
            return Envelope(from: from, stream: stream, seq: UInt64(seq), sentAt: EmulatedInstant(milliseconds: sentAt),
                            channel: topicChannel, kind: topicKind, body: body)
        }
    }
}

/// Reads the fixed text of an envelope `encode` wrote (and of a body `HealthObjectsBatch.bodyBytes`
/// wrote); any departure makes a read fail.
struct CanonicalScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    /// Consumes `text` if the bytes go on with it.
    mutating func take(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] { return false }
        index += count
        return true
    }

    /// A non-negative integer in JSON's own form (no leading zero) that fits in Int64; nil for
    /// anything else, including a fraction or an exponent after it.
    mutating func integer() -> Int64? {
        let start = index
        var value: Int64 = 0
        while index < bytes.count, (48...57).contains(bytes[index]) {
            let (times10, over1) = value.multipliedReportingOverflow(by: 10)
            let (sum, over2) = times10.addingReportingOverflow(Int64(bytes[index] - 48))
            if over1 || over2 { return nil }
            value = sum
            index += 1
        }
        let digits = index - start
        guard digits > 0, digits == 1 || bytes[start] != 48, index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: ","), UInt8(ascii: "}"): return value
        default: return nil
        }
    }

    /// A string of printable ASCII without escapes, quotes included.
    mutating func string() -> String? {
        stringBytes().map { String(decoding: $0, as: UTF8.self) }
    }

    /// The bytes of a string of printable ASCII without escapes, read as `string()` reads it.
    mutating func stringBytes() -> UnsafeBufferPointer<UInt8>? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        index += 1
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return UnsafeBufferPointer(rebasing: bytes[start..<(index - 1)])
            }
            guard (0x20..<0x7F).contains(byte), byte != UInt8(ascii: "\\") else { return nil }
            index += 1
        }
        return nil
    }
}
