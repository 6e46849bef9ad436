import Foundation

/// Fast UUID text conversion. Foundation's `uuidString` and `UUID(uuidString:)` go through
/// printf/scanf, which dominated the sync path's profile; these are plain table lookups.
public enum UUIDText {
    /// Upper-case hex digit for 0…15 (arithmetic, not a table: no global access per byte).
    @inline(__always)
    static func hexDigit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 48 + nibble : 55 + nibble }

    /// Appends the canonical upper-case form (36 bytes) to `out`.
    @inline(__always)
    public static func write(_ uuid: UUID, into out: inout [UInt8]) {
        JSONWriter.appendInPlace(to: &out, atMost: 36) { write(uuid, at: $0) }
    }

    /// Writes the canonical upper-case form at `p`; returns 36.
    @inline(__always)
    static func write(_ uuid: UUID, at p: UnsafeMutablePointer<UInt8>) -> Int {
        withUnsafeBytes(of: uuid.uuid) { raw in
            var n = 0
            for i in 0..<16 {
                if i == 4 || i == 6 || i == 8 || i == 10 { p[n] = UInt8(ascii: "-"); n += 1 }
                let byte = raw[i]
                p[n] = hexDigit(byte >> 4)
                p[n + 1] = hexDigit(byte & 0x0F)
                n += 2
            }
            return n
        }
    }

    /// The canonical upper-case form, like `uuidString`.
    public static func string(_ uuid: UUID) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(36)
        write(uuid, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    @inline(__always)
    static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: c - 48
        case 65...70: c - 55
        case 97...102: c - 87
        default: nil
        }
    }

    /// Parses the 36-character form (either case); nil if malformed.
    public static func parse(_ text: some StringProtocol) -> UUID? {
        if let parsed = text.utf8.withContiguousStorageIfAvailable({ parse(bytes: $0) }) { return parsed }
        return parseSlow(text)
    }

    /// Parses 36 bytes of UUID text, eight hex digits at a time (`hexWord`): the phone reads a
    /// frame's 10,000 UUIDs this way, and a table lookup per digit was 8 % of its time on the sync
    /// benchmark (perf, stop 48). Accepts exactly what `parseSlow` accepts (UUIDTextTests).
    public static func parse(bytes: UnsafeBufferPointer<UInt8>) -> UUID? {
        guard bytes.count == 36, let base = bytes.baseAddress,
              base[8] == 0x2D, base[13] == 0x2D, base[18] == 0x2D, base[23] == 0x2D else { return nil }
        let raw = UnsafeRawPointer(base)
        func word(_ offset: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
        func halves(_ first: Int, _ second: Int) -> UInt64 {
            UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: first, as: UInt32.self)))
                | UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: second, as: UInt32.self))) << 32
        }
        guard let a = hexWord(word(0)), let b = hexWord(halves(9, 14)), let c = hexWord(halves(19, 24)), let d = hexWord(word(28)) else {
            return nil
        }
        // Each value holds its four bytes in text order, the first lowest: little-endian in memory.
        var out: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &out) { out in
            out.storeBytes(of: a.littleEndian, toByteOffset: 0, as: UInt32.self)
            out.storeBytes(of: b.littleEndian, toByteOffset: 4, as: UInt32.self)
            out.storeBytes(of: c.littleEndian, toByteOffset: 8, as: UInt32.self)
            out.storeBytes(of: d.littleEndian, toByteOffset: 12, as: UInt32.self)
        }
        return UUID(uuid: out)
    }

    /// Eight ASCII hex digits (either case; the first at the lowest byte) as four bytes, the first
    /// two digits at the lowest byte; nil when any byte is not a hex digit.
    @inline(__always)
    static func hexWord(_ w: UInt64) -> UInt32? {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        guard w & highs == 0 else { return nil }
        // Every byte is below 0x80 now, so adding up to 0x80 to one never carries into the next.
        let lower = w | (ones &* 0x20)  // 'A'…'F' as 'a'…'f'; digits have bit 0x20 already
        func atLeast(_ x: UInt64, _ bound: UInt64) -> UInt64 { (x &+ ones &* (0x80 &- bound)) & highs }
        func atMost(_ x: UInt64, _ bound: UInt64) -> UInt64 { ~(x &+ ones &* (0x7F &- bound)) & highs }
        let digit = atLeast(lower, 0x30) & atMost(lower, 0x39)
        let letter = atLeast(lower, 0x61) & atMost(lower, 0x66)
        // Bytes 0x10…0x19 fold into digits: a hex digit has bit 0x20 or 0x40 of its own.
        let own = ((w & (ones &* 0x60)) &+ ones &* 0x7F) & highs
        guard (digit | letter) & own == highs else { return nil }
        // Each byte's value, 0…15: its low four bits, plus 9 for a letter (bit 0x40).
        let nibbles = (lower & (ones &* 0x0F)) &+ ((lower >> 6) & ones) &* 9
        // Pairs of digits into bytes (the first digit high), then the four bytes together.
        var packed = ((nibbles & 0x000F_000F_000F_000F) << 4) | ((nibbles & 0x0F00_0F00_0F00_0F00) >> 8)
        packed = (packed | packed >> 8) & 0x0000_FFFF_0000_FFFF
        packed = (packed | packed >> 16) & 0x0000_0000_FFFF_FFFF
        return UInt32(truncatingIfNeeded: packed)
    }

    static func parseSlow(_ text: some StringProtocol) -> UUID? {
        var utf8 = text.utf8.makeIterator()
        var bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let ok: Bool = withUnsafeMutableBytes(of: &bytes) { out in
            for i in 0..<16 {
                if i == 4 || i == 6 || i == 8 || i == 10 {
                    guard utf8.next() == UInt8(ascii: "-") else { return false }
                }
                guard let high = utf8.next().flatMap(nibble), let low = utf8.next().flatMap(nibble) else { return false }
                out[i] = high << 4 | low
            }
            return utf8.next() == nil
        }
        return ok ? UUID(uuid: bytes) : nil
    }
}

extension UUID {
    /// The canonical upper-case text, like `uuidString` but without printf.
    public var text: String { UUIDText.string(self) }

    /// Parses UUID text without scanf.
    public init?(text: some StringProtocol) {
        guard let uuid = UUIDText.parse(text) else { return nil }
        self = uuid
    }
}
