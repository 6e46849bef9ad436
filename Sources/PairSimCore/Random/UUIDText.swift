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

    /// Hex value of each byte, 0xFF for non-hex.
    static let hexValues: [UInt8] = (0..<256).map { nibble(UInt8($0)) ?? 0xFF }

    /// Parses the 36-character form (either case); nil if malformed.
    public static func parse(_ text: some StringProtocol) -> UUID? {
        if let parsed = text.utf8.withContiguousStorageIfAvailable({ parse(bytes: $0) }) { return parsed }
        return parseSlow(text)
    }

    /// Parses 36 bytes of UUID text.
    public static func parse(bytes: UnsafeBufferPointer<UInt8>) -> UUID? {
        guard bytes.count == 36, bytes[8] == 0x2D, bytes[13] == 0x2D, bytes[18] == 0x2D, bytes[23] == 0x2D else { return nil }
        var out: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let ok = hexValues.withUnsafeBufferPointer { table -> Bool in
            withUnsafeMutableBytes(of: &out) { raw in
                var position = 0
                var bad: UInt8 = 0
                for i in 0..<16 {
                    if position == 8 || position == 13 || position == 18 || position == 23 { position += 1 }
                    let high = table[Int(bytes[position])], low = table[Int(bytes[position + 1])]
                    bad |= high | low
                    raw[i] = high << 4 | (low & 0x0F)
                    position += 2
                }
                return bad & 0xF0 == 0
            }
        }
        return ok ? UUID(uuid: out) : nil
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
