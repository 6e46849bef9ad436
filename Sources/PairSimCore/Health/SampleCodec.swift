import Foundation

/// A compact binary form of sample batches for storage: 16-byte UUID, type, start, end, value,
/// source. Much faster than JSON for the millions of heart-rate samples a benchmark writes.
public enum SampleCodec {
    /// Packs `samples` into bytes.
    public static func pack(_ samples: [HealthSample]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(samples.count * 48)
        var sources: [String] = []
        for sample in samples where !sources.contains(sample.source.name) { sources.append(sample.source.name) }
        out.append(UInt8(sources.count))
        for source in sources {
            let bytes = Array(source.utf8.prefix(255))
            out.append(UInt8(bytes.count))
            out.append(contentsOf: bytes)
        }
        let types = SampleType.allCases
        for sample in samples {
            withUnsafeBytes(of: sample.uuid.uuid) { out.append(contentsOf: $0) }
            out.append(UInt8(types.firstIndex(of: sample.type)!))
            out.append(UInt8(sources.firstIndex(of: sample.source.name)!))
            append(UInt64(bitPattern: sample.start.milliseconds), to: &out)
            append(UInt64(bitPattern: sample.end.milliseconds), to: &out)
            append(sample.value.bitPattern, to: &out)
        }
        return out
    }

    /// Unpacks bytes written by `pack`.
    public static func unpack(_ bytes: [UInt8]) throws(DecodeError) -> [HealthSample] {
        var index = 0
        func need(_ count: Int) throws(DecodeError) {
            guard index + count <= bytes.count else { throw DecodeError(path: "samples", reason: "truncated packed samples") }
        }
        try need(1)
        let sourceCount = Int(bytes[index]); index += 1
        var sources: [ObjectSource] = []
        for _ in 0..<sourceCount {
            try need(1)
            let length = Int(bytes[index]); index += 1
            try need(length)
            sources.append(ObjectSource(name: String(decoding: bytes[index..<index + length], as: UTF8.self)))
            index += length
        }
        let types = SampleType.allCases
        var samples: [HealthSample] = []
        samples.reserveCapacity((bytes.count - index) / 42)
        while index < bytes.count {
            try need(42)
            let uuid = bytes.withUnsafeBytes { raw in
                UUID(uuid: raw.loadUnaligned(fromByteOffset: index, as: uuid_t.self))
            }
            let typeIndex = Int(bytes[index + 16]), sourceIndex = Int(bytes[index + 17])
            guard typeIndex < types.count, sourceIndex < sources.count else {
                throw DecodeError(path: "samples", reason: "bad type or source index in packed samples")
            }
            let start = Int64(bitPattern: read(bytes, index + 18))
            let end = Int64(bitPattern: read(bytes, index + 26))
            let value = Double(bitPattern: read(bytes, index + 34))
            samples.append(HealthSample(uuid: uuid, type: types[typeIndex], start: EmulatedInstant(milliseconds: start),
                                        end: EmulatedInstant(milliseconds: end), value: value, source: sources[sourceIndex]))
            index += 42
        }
        return samples
    }

    @inline(__always) static func append(_ value: UInt64, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }

    @inline(__always) static func read(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
        bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
    }
}
