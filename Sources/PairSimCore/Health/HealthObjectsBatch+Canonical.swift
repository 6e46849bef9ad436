import Foundation

extension HealthObjectsBatch {
    /// An `objects` message's batch: as the decoder read it (`Envelope.objects`), or from its body.
    public init(envelope: Envelope, limits: WireLimits) throws(DecodeError) {
        if let objects = envelope.objects { self = objects } else { try self.init(body: envelope.body, limits: limits) }
    }

    /// The batch in `body` when it is exactly what `bodyBytes` writes for samples alone —
    /// `{"series":[…]}`, each series' members in `SampleSeries.write`'s order, plain ASCII
    /// strings — and it passes every check `init(body:limits:)` makes; nil for anything else,
    /// which is then read through a JSON tree and accepted or refused with its reason.
    ///
    /// Building the tree and reading it through `FieldReader` was ~7 % of a simulated week
    /// (perf, `pairsim-bench simulate`: most messages carry one resting heart-rate sample). A
    /// differential test holds the two paths to the same batch on valid and mutated bodies.
    static func readCanonical(_ body: UnsafeBufferPointer<UInt8>, limits: WireLimits) -> HealthObjectsBatch? {
        var scanner = CanonicalScanner(bytes: body)
        guard scanner.take(#"{"series":["#) else { return nil }
        let limit = limits.maxItemsPerMessage
        var samples: [HealthSample] = []
        var series = 0
        repeat {
            series += 1
            guard series <= 100, readSeries(&scanner, limit: max(limit - samples.count, 0), into: &samples) else { return nil }
        } while scanner.take(",")
        guard scanner.take("]}"), scanner.index == body.count, samples.count <= limit else { return nil }
        return HealthObjectsBatch(samples: samples)
    }

    /// One series (at least one sample), appended to `samples`; false where the tree must read it.
    private static func readSeries(_ s: inout CanonicalScanner, limit: Int, into samples: inout [HealthSample]) -> Bool {
        guard s.take(#"{"type":"#), let typeName = s.string(), let type = SampleType(rawValue: typeName),
              s.take(#","source":"#), let sourceName = s.string(), let source = ObjectSource.parse(sourceName),
              s.take(#","uuids":"#), let uuids = s.uuidsBytes()
        else { return false }
        let count = (uuids.count + 1) / 37
        guard count > 0, count <= limit, count * 37 - 1 == uuids.count else { return false }
        // The lists, each exactly `count` numbers long, read as the tree reads them.
        func list(_ key: StaticString, _ each: (Int, JSON) -> Bool) -> Bool {
            guard s.take(key) else { return false }
            for index in 0..<count {
                guard index == 0 || s.take(","), let value = JSONParser.number(in: s.bytes, at: &s.index), each(index, value) else { return false }
            }
            return s.take("]")
        }
        var starts = [Int64](repeating: 0, count: count)
        guard list(#","start":["#, { index, value in
            guard let start = value.exactIntValue, start >= 0, start <= FieldReader.maxTime else { return false }
            starts[index] = start
            return true
        }) else { return false }
        var ends = starts
        var probe = s
        if probe.take(#","end":["#) {
            guard list(#","end":["#, { index, value in
                guard let end = value.exactIntValue, end >= starts[index], end <= FieldReader.maxTime else { return false }
                ends[index] = end
                return true
            }) else { return false }
        }
        let range = type.validRange
        let first = samples.count
        samples.reserveCapacity(first + count)
        for index in 0..<count {
            let start = index * 37
            if index > 0, uuids[start - 1] != UInt8(ascii: ",") { return false }
            guard let uuid = UUIDText.parse(bytes: UnsafeBufferPointer(rebasing: uuids[start..<(start + 36)])) else { return false }
            samples.append(HealthSample(uuid: uuid, type: type, start: EmulatedInstant(milliseconds: starts[index]),
                                        end: EmulatedInstant(milliseconds: ends[index]), value: 0, source: source))
        }
        return list(#","value":["#, { index, value in
            guard let number = value.doubleValue, range.contains(number), type.acceptsValue(number) else { return false }
            samples[first + index].value = number
            return true
        }) && s.take("}")
    }
}

extension CanonicalScanner {
    /// The bytes of the `uuids` string, up to its closing quote, unchecked: every byte of it is
    /// then checked by reading the UUIDs and their commas, which refuse a quote, an escape or
    /// anything else. Checking each byte here too was 9 % of the phone's time on the sync
    /// benchmark (perf: a frame's string is 370 kB).
    mutating func uuidsBytes() -> UnsafeBufferPointer<UInt8>? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let base = bytes.baseAddress else { return nil }
        let start = index + 1
        guard let quote = memchr(base + start, Int32(UInt8(ascii: "\"")), bytes.count - start) else { return nil }
        let end = base.distance(to: quote.assumingMemoryBound(to: UInt8.self))
        index = end + 1
        return UnsafeBufferPointer(rebasing: bytes[start..<end])
    }
}
