import Foundation

/// A compact binary form of sample batches for storage: a table of source names, then per sample
/// a 16-byte UUID, type, source index, start, end, value. Much faster than JSON for the millions of heart-rate samples a benchmark writes.
public enum SampleCodec {
    /// Packs `samples` into bytes.
    public static func pack(_ samples: [HealthSample]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(samples.count * 48)
        // Source names in first-seen order; a batch from the wire may carry up to one per sample.
        // Keyed by the inline 24-byte source, looked up only when it changes: hashing each sample's
        // name as a String (NFC-normalised, for names like `Kim’s Apple Watch`) was ~3% of an import.
        var sources: [ObjectSource] = []
        var sourceIndex: [ObjectSource: Int] = [:]
        var previous: ObjectSource?
        for sample in samples where sample.source != previous {
            previous = sample.source
            if sourceIndex[sample.source] == nil {
                sourceIndex[sample.source] = sources.count
                sources.append(sample.source)
            }
        }
        append16(UInt16(sources.count), to: &out)
        for source in sources {
            let bytes = Array(source.name.utf8.prefix(255))
            out.append(UInt8(bytes.count))
            out.append(contentsOf: bytes)
        }
        // The fixed-size records are stored in place: six appends per sample were ~7% of the sync
        // benchmark's time on each node.
        var lastSource = samples.first?.source, lastIndex = 0
        var offset = out.count
        out.append(contentsOf: repeatElement(0, count: samples.count * 43))
        out.withUnsafeMutableBytes { raw in
            for sample in samples {
                raw.storeBytes(of: sample.uuid.uuid, toByteOffset: offset, as: uuid_t.self)
                raw[offset + 16] = UInt8(sample.type.index)
                if sample.source != lastSource { // batches are usually one source: look up only on change
                    lastSource = sample.source
                    lastIndex = sourceIndex[sample.source]!
                }
                raw.storeBytes(of: UInt16(lastIndex).littleEndian, toByteOffset: offset + 17, as: UInt16.self)
                raw.storeBytes(of: UInt64(bitPattern: sample.start.milliseconds).littleEndian, toByteOffset: offset + 19, as: UInt64.self)
                raw.storeBytes(of: UInt64(bitPattern: sample.end.milliseconds).littleEndian, toByteOffset: offset + 27, as: UInt64.self)
                raw.storeBytes(of: sample.value.bitPattern.littleEndian, toByteOffset: offset + 35, as: UInt64.self)
                offset += 43
            }
        }
        return out
    }

    /// Unpacks bytes written by `pack`.
    public static func unpack(_ bytes: [UInt8]) throws(DecodeError) -> [HealthSample] {
        var index = 0
        func need(_ count: Int) throws(DecodeError) {
            guard index + count <= bytes.count else { throw DecodeError(path: "samples", reason: "truncated packed samples") }
        }
        try need(2)
        let sourceCount = Int(read16(bytes, index)); index += 2
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
        samples.reserveCapacity((bytes.count - index) / 43)
        while index < bytes.count {
            try need(43)
            let uuid = bytes.withUnsafeBytes { raw in
                UUID(uuid: raw.loadUnaligned(fromByteOffset: index, as: uuid_t.self))
            }
            let typeIndex = Int(bytes[index + 16]), sourceIndex = Int(read16(bytes, index + 17))
            guard typeIndex < types.count, sourceIndex < sources.count else {
                throw DecodeError(path: "samples", reason: "bad type or source index in packed samples")
            }
            let start = Int64(bitPattern: read(bytes, index + 19))
            let end = Int64(bitPattern: read(bytes, index + 27))
            let value = Double(bitPattern: read(bytes, index + 35))
            samples.append(HealthSample(uuid: uuid, type: types[typeIndex], start: EmulatedInstant(milliseconds: start),
                                        end: EmulatedInstant(milliseconds: end), value: value, source: sources[sourceIndex]))
            index += 43
        }
        return samples
    }

    @inline(__always) static func append16(_ value: UInt16, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }

    @inline(__always) static func read16(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
        bytes.withUnsafeBytes { UInt16(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt16.self)) }
    }

    @inline(__always) static func read(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
        bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
    }
}
