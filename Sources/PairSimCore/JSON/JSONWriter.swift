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
        case .null: out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
        case .bool(let b): out.append(contentsOf: b ? Array("true".utf8) : Array("false".utf8))
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

    /// Appends a decimal integer.
    public static func writeInt(_ value: Int64, into out: inout [UInt8]) {
        if value == 0 { out.append(48); return }
        if value == Int64.min { out.append(contentsOf: Array("-9223372036854775808".utf8)); return }
        var v = value
        if v < 0 { out.append(UInt8(ascii: "-")); v = -v }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        // Digits from the end of the buffer, then appended at once (one append per digit was
        // most of this function's time when a frame carries 10,000 sample times).
        withUnsafeMutableBytes(of: &digits) { buffer in
            var first = buffer.count
            while v > 0 {
                first -= 1
                buffer[first] = UInt8(48 + v % 10)
                v /= 10
            }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[first...]))
        }
    }

    /// Appends a double: integral values without a fraction, values with up to three decimals
    /// directly (heart rates, weights: the common case), others in Swift's shortest form.
    public static func writeDouble(_ value: Double, into out: inout [UInt8]) {
        guard value.isFinite else { out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C]); return }
        if value.rounded() == value, abs(value) < 1e15 {
            writeInt(Int64(value), into: &out)
            return
        }
        if abs(value) < 1e12 {
            var scale = 1.0, divisor: Int64 = 1
            for _ in 1...3 {
                scale *= 10
                divisor *= 10
                let scaled = (value * scale).rounded()
                // Only when the short decimal reads back as exactly this double.
                if scaled / scale == value {
                    var units = Int64(scaled)
                    if units < 0 { out.append(UInt8(ascii: "-")); units = -units }
                    // The fraction's digits with a leading 1 (so its zeros are kept), then the 1 dropped.
                    writeInt(units / divisor, into: &out)
                    out.append(UInt8(ascii: "."))
                    let mark = out.count
                    writeInt(divisor + units % divisor, into: &out)
                    out.remove(at: mark)
                    return
                }
            }
        }
        out.append(contentsOf: Array(value.description.utf8))
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
