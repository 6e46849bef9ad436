/// Writes JSON compactly and deterministically: members in their stored order, shortest
/// round-trip numbers, non-finite doubles as `null`.
public enum JSONWriter {
    /// The UTF-8 bytes of `value`.
    public static func bytes(_ value: JSON) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        write(value, into: &out)
        return out
    }

    /// The text of `value`.
    public static func string(_ value: JSON) -> String {
        String(decoding: bytes(value), as: UTF8.self)
    }

    /// Appends `value` to `out`.
    public static func write(_ value: JSON, into out: inout [UInt8]) {
        switch value {
        // As static strings' bytes: `Array("true".utf8)` allocated an array for every bool written.
        case .null: writeRaw("null", into: &out)
        case .bool(let b): if b { writeRaw("true", into: &out) } else { writeRaw("false", into: &out) }
        case .int(let i): writeInt(i, into: &out)
        case .double(let d): writeDouble(d, into: &out)
        case .string(let s): writeString(s, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                write(element, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (i, member) in object.members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(member.value, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `text`'s bytes as they are (no quotes, no escaping): for the fixed parts of a
    /// spelling written directly. A static string's bytes are copied whole, where appending a
    /// `String`'s UTF-8 view went character by character.
    public static func writeRaw(_ text: StaticString, into out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends a decimal integer.
    public static func writeInt(_ value: Int64, into out: inout [UInt8]) {
        appendInPlace(to: &out, atMost: maxIntBytes) { writeInt(value, at: $0) }
    }

    /// Appends a double: integral values without a fraction, values with up to three decimals
    /// directly (heart rates, weights: the common case), others in Swift's shortest form.
    public static func writeDouble(_ value: Double, into out: inout [UInt8]) {
        appendInPlace(to: &out, atMost: maxDoubleBytes) { writeDouble(value, at: $0) }
    }

    /// Most bytes `writeInt` writes (`-9223372036854775808`).
    static var maxIntBytes: Int { 20 }
    /// Most bytes `writeDouble` writes (Swift's longest shortest form, `-1.7976931348623157e+308`, is 24).
    static var maxDoubleBytes: Int { 32 }

    /// Appends the bytes `write` puts at the pointer it is given (at most `bound`; it returns how
    /// many) in place, with no append per byte: a frame's 10,000 sample times, values and UUIDs
    /// appended byte by byte were a quarter of the watch's time on the sync benchmark (perf).
    @inline(__always)
    static func appendInPlace(to out: inout [UInt8], atMost bound: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        let base = out.count
        out.append(contentsOf: repeatElement(0, count: bound))
        let written = out.withUnsafeMutableBufferPointer { write($0.baseAddress! + base) }
        precondition(written <= bound, "JSONWriter: wrote \(written) bytes into room for \(bound)")
        out.removeLast(bound - written)
    }

    /// Writes `value` in decimal at `p`; returns how many bytes (at most `maxIntBytes`).
    @inline(__always)
    static func writeInt(_ value: Int64, at p: UnsafeMutablePointer<UInt8>) -> Int {
        if value == Int64.min {
            for (i, byte) in "-9223372036854775808".utf8.enumerated() { p[i] = byte }
            return maxIntBytes
        }
        var v = value, n = 0
        if v < 0 { p[0] = UInt8(ascii: "-"); n = 1; v = -v }
        var digits = 1, rest = v / 10
        while rest > 0 { digits += 1; rest /= 10 }
        var i = n + digits
        repeat {
            i -= 1
            p[i] = UInt8(truncatingIfNeeded: 48 + v % 10)
            v /= 10
        } while v > 0
        return n + digits
    }

    /// Writes `value` at `p` as `writeDouble(_:into:)` appends it; returns how many bytes (at most `maxDoubleBytes`).
    static func writeDouble(_ value: Double, at p: UnsafeMutablePointer<UInt8>) -> Int {
        guard value.isFinite else {
            for (i, byte) in "null".utf8.enumerated() { p[i] = byte }
            return 4
        }
        if value.rounded() == value, abs(value) < 1e15 { return writeInt(Int64(value), at: p) }
        if abs(value) < 1e12 {
            var scale = 1.0, divisor: Int64 = 1
            for places in 1...3 {
                scale *= 10
                divisor *= 10
                let scaled = (value * scale).rounded()
                // Only when the short decimal reads back as exactly this double.
                if scaled / scale == value {
                    var units = Int64(scaled), n = 0
                    if units < 0 { p[0] = UInt8(ascii: "-"); n = 1; units = -units }
                    n += writeInt(units / divisor, at: p + n)
                    p[n] = UInt8(ascii: ".")
                    // The fraction's digits, its leading zeros kept.
                    var fraction = units % divisor
                    for place in stride(from: n + places, to: n, by: -1) {
                        p[place] = UInt8(truncatingIfNeeded: 48 + fraction % 10)
                        fraction /= 10
                    }
                    return n + 1 + places
                }
            }
        }
        var n = 0
        for byte in value.description.utf8 { p[n] = byte; n += 1 }
        return n
    }

    /// Appends a quoted, escaped string.
    public static func writeString(_ value: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Fast path: nothing to escape (UUIDs, names), append the bytes whole.
        let plain = value.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            for byte in bytes where byte < 0x20 || byte == 0x22 || byte == 0x5C { return false }
            return true
        } ?? false
        if plain {
            out.append(contentsOf: value.utf8)
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in value.utf8 {
            switch byte {
            case 0x22: out.append(0x5C); out.append(0x22)
            case 0x5C: out.append(0x5C); out.append(0x5C)
            case 0x0A: out.append(0x5C); out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(0x5C); out.append(UInt8(ascii: "r"))
            case 0x09: out.append(0x5C); out.append(UInt8(ascii: "t"))
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
