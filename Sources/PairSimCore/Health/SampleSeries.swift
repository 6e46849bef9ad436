import Foundation

/// The wire's columnar form of samples: one group per type and source with `uuids` (one string,
/// the UUIDs joined by commas: one allocation instead of one per sample), and parallel arrays
/// `start`, `value` and, unless every sample is instantaneous, `end`.
///
/// ```json
/// {"type":"heartRate","source":"watch-app","uuids":"019C…,019C…","start":[5000,10000],"value":[121.4,123]}
/// ```
public struct SampleSeries: Hashable, Sendable {
    public var type: SampleType
    public var source: ObjectSource
    public var samples: [HealthSample]

    /// Groups samples by type and source, keeping their order within each group.
    public static func group(_ samples: [HealthSample]) -> [SampleSeries] {
        // One type and one source, as every batch of a bulk write and most others are: the series
        // shares the samples' storage. Copying them one by one into a growing array was ~12 % of
        // the watch's time on the sync benchmark (perf), most of it page faults on fresh memory.
        if let first = samples.first, samples.allSatisfy({ $0.type == first.type && $0.source == first.source }) {
            return [SampleSeries(type: first.type, source: first.source, samples: samples)]
        }
        var groups: [SampleSeries] = []
        for sample in samples {
            if let index = groups.firstIndex(where: { $0.type == sample.type && $0.source == sample.source }) {
                groups[index].samples.append(sample)
            } else {
                groups.append(SampleSeries(type: sample.type, source: sample.source, samples: [sample]))
            }
        }
        return groups
    }

    public var json: JSON {
        var o = JSONObject()
        o.append("type", .string(type.rawValue))
        o.append("source", .string(source.name))
        var joined: [UInt8] = []
        joined.reserveCapacity(samples.count * 37)
        for (index, sample) in samples.enumerated() {
            if index > 0 { joined.append(UInt8(ascii: ",")) }
            UUIDText.write(sample.uuid, into: &joined)
        }
        o.append("uuids", .string(String(decoding: joined, as: UTF8.self)))
        o.append("start", .array(samples.map { .int($0.start.milliseconds) }))
        if samples.contains(where: { $0.end != $0.start }) {
            o.append("end", .array(samples.map { .int($0.end.milliseconds) }))
        }
        o.append("value", .array(samples.map { .double($0.value) }))
        return .object(o)
    }

    /// Appends exactly the bytes `JSONWriter.write(json)` would, without building the JSON tree:
    /// three arrays of 10,000 JSON values per full frame, built and walked, were ~12% of the
    /// watch's time on the sync benchmark.
    public func write(into out: inout [UInt8]) {
        // `{"type":` for the first member, `,"name":` for the others: constant bytes (writing each
        // key as an escaped string was a quarter of this on one-sample messages, perf).
        JSONWriter.writeRaw(#"{"type":"#, into: &out)
        JSONWriter.writeString(type.rawValue, into: &out)
        JSONWriter.writeRaw(#","source":"#, into: &out)
        JSONWriter.writeString(source.name, into: &out)
        // Each list — the uuids, comma-joined in one string; the numbers, in an array — is written
        // in place, in room for its longest form (JSONWriter.appendInPlace).
        func list(_ name: StaticString, _ open: Unicode.Scalar, _ close: Unicode.Scalar, atMost each: Int,
                  _ write: (HealthSample, UnsafeMutablePointer<UInt8>) -> Int) {
            JSONWriter.writeRaw(name, into: &out)
            JSONWriter.appendInPlace(to: &out, atMost: 2 + samples.count * (each + 1)) { p in
                p[0] = UInt8(ascii: open)
                var n = 1
                for (index, sample) in samples.enumerated() {
                    if index > 0 { p[n] = UInt8(ascii: ","); n += 1 }
                    n += write(sample, p + n)
                }
                p[n] = UInt8(ascii: close)
                return n + 1
            }
        }
        list(#","uuids":"#, "\"", "\"", atMost: 36) { UUIDText.write($0.uuid, at: $1) }
        list(#","start":"#, "[", "]", atMost: JSONWriter.maxIntBytes) { JSONWriter.writeInt($0.start.milliseconds, at: $1) }
        if samples.contains(where: { $0.end != $0.start }) {
            list(#","end":"#, "[", "]", atMost: JSONWriter.maxIntBytes) { JSONWriter.writeInt($0.end.milliseconds, at: $1) }
        }
        list(#","value":"#, "[", "]", atMost: JSONWriter.maxDoubleBytes) { JSONWriter.writeDouble($0.value, at: $1) }
        out.append(UInt8(ascii: "}"))
    }

    /// The comma-joined `uuids` string, each one checked (`body.series[0].uuids[7]` names a bad one).
    static func uuids(_ r: FieldReader, limit: Int) throws(DecodeError) -> [UUID] {
        let text = try r.string("uuids")
        if text.isEmpty { return [] }
        var result: [UUID] = []
        var failure: Int?
        var utf8 = text
        utf8.withUTF8 { bytes in
            let count = (bytes.count + 1) / 37
            guard count <= limit, count * 37 - 1 == bytes.count else { failure = -1; return }
            result.reserveCapacity(count)
            for index in 0..<count {
                if index > 0, bytes[index * 37 - 1] != UInt8(ascii: ",") { failure = index; return }
                guard let uuid = UUIDText.parse(bytes: UnsafeBufferPointer(rebasing: bytes[(index * 37)..<(index * 37 + 36)])) else {
                    failure = index
                    return
                }
                result.append(uuid)
            }
        }
        if let failure {
            if failure < 0 {
                throw DecodeError(path: "\(r.path).uuids", reason: "expected UUIDs joined by commas (at most \(limit))")
            }
            throw DecodeError(path: "\(r.path).uuids[\(failure)]", reason: "invalid UUID")
        }
        return result
    }

    /// Reads one series, naming the element at fault (`body.series[0].start[7]`).
    static func read(_ r: FieldReader, limit: Int) throws(DecodeError) -> [HealthSample] {
        try r.only(WireKeys.series)
        let typeName = try r.string("type")
        guard let type = SampleType(rawValue: typeName) else {
            throw DecodeError(path: "\(r.path).type", reason: "unknown sample type \"\(typeName.prefix(40))\"")
        }
        let source = try r.source("source")
        let uuids = try Self.uuids(r, limit: max(limit, 0))
        let starts = try r.array("start", limit: uuids.count)
        let values = try r.array("value", limit: uuids.count)
        let ends = r.has("end") ? try r.array("end", limit: uuids.count) : nil
        guard starts.count == uuids.count, values.count == uuids.count, ends == nil || ends!.count == uuids.count else {
            throw DecodeError(path: r.path, reason: "uuids, start, value (and end) must have the same length")
        }
        let range = type.validRange
        var samples: [HealthSample] = []
        samples.reserveCapacity(uuids.count)
        for index in 0..<uuids.count {
            let uuid = uuids[index]
            guard let start = starts[index].exactIntValue, start >= 0, start <= FieldReader.maxTime else {
                throw DecodeError(path: "\(r.path).start[\(index)]", reason: "expected a time ≥ 0")
            }
            var end = start
            if let ends {
                guard let value = ends[index].exactIntValue, value >= start, value <= FieldReader.maxTime else {
                    throw DecodeError(path: "\(r.path).end[\(index)]", reason: "expected a time ≥ start")
                }
                end = value
            }
            guard let value = values[index].doubleValue, range.contains(value), type.acceptsValue(value) else {
                throw DecodeError(path: "\(r.path).value[\(index)]", reason: "expected a number within \(range.lowerBound)…\(range.upperBound)\(type == .sleepAnalysis ? ", a whole category number" : "")")
            }
            samples.append(HealthSample(uuid: uuid, type: type, start: EmulatedInstant(milliseconds: start),
                                        end: EmulatedInstant(milliseconds: end), value: value, source: source))
        }
        return samples
    }
}
