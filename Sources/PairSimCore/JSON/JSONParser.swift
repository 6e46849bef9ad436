/// Why a JSON text was refused, and where (byte offset).
public struct JSONError: Error, Hashable, CustomStringConvertible {
    public var offset: Int
    public var reason: String
    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

/// A strict RFC 8259 parser over UTF-8 bytes with limits against hostile input.
public struct JSONParser {
    /// Deepest nesting accepted (arrays and objects).
    public var maxDepth = 32
    /// Most elements accepted in one array or object.
    public var maxContainerCount = 1_000_000

    public init() {}

    /// Parses one JSON value filling the whole input (surrounding whitespace allowed).
    public func parse(_ bytes: [UInt8]) throws(JSONError) -> JSON {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONError) -> JSON in try parse(buffer) }
    }

    /// Parses one JSON value filling the whole of `buffer` (surrounding whitespace allowed).
    public func parse(_ buffer: UnsafeBufferPointer<UInt8>) throws(JSONError) -> JSON {
        var reader = Reader(bytes: buffer, maxDepth: maxDepth, maxCount: maxContainerCount)
        reader.skipWhitespace()
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        if reader.index != buffer.count { throw reader.error("unexpected data after the value") }
        return value
    }

    /// Parses a UTF-8 string.
    public func parse(_ text: String) throws(JSONError) -> JSON {
        try parse(Array(text.utf8))
    }

    /// The number at `index` in `bytes`, read exactly as `parse` reads it (so the same text gives
    /// the same value), and `index` moved past it; nil where no valid number starts.
    static func number(in bytes: UnsafeBufferPointer<UInt8>, at index: inout Int) -> JSON? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "-") || (48...57).contains(bytes[index]) else { return nil }
        var reader = Reader(bytes: bytes, maxDepth: 0, maxCount: 0)
        reader.index = index
        guard let value = try? reader.number() else { return nil }
        index = reader.index
        return value
    }
}

private struct Reader {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    let maxCount: Int
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, maxCount: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        self.maxCount = maxCount
    }

    func error(_ reason: String) -> JSONError { JSONError(offset: index, reason: reason) }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func value(depth: Int) throws(JSONError) -> JSON {
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw error("unexpected character '\(printable(bytes[index]))'")
        }
    }

    func printable(_ byte: UInt8) -> String {
        (0x20..<0x7F).contains(byte) ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16)
    }

    mutating func literal(_ word: StaticString) throws(JSONError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("unexpected end of input") }
        for i in 0..<count where bytes[index + i] != word.utf8Start[i] {
            throw error("invalid literal")
        }
        index += count
    }

    mutating func object(depth: Int) throws(JSONError) -> JSON {
        if depth > maxDepth { throw error("nesting deeper than \(maxDepth)") }
        index += 1
        var object = JSONObject()
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(object) }
        // Duplicate keys are refused: parsers disagree on which one wins (first or last), so a frame
        // that means different things to different readers is not accepted. Small objects (all the
        // wire's) are checked by a scan; a set takes over past 16 members so a hostile object with
        // many keys stays linear.
        var seen: Set<String>? = nil
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let keyOffset = index
            let key = try string()
            if seen != nil {
                if !seen!.insert(key).inserted { throw JSONError(offset: keyOffset, reason: "duplicate key \"\(key.prefix(40))\"") }
            } else if object.members.contains(where: { $0.key == key }) {
                throw JSONError(offset: keyOffset, reason: "duplicate key \"\(key.prefix(40))\"")
            } else if object.count == 16 {
                seen = Set(object.keys + [key])
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':' after key") }
            index += 1
            skipWhitespace()
            object.append(key, try value(depth: depth))
            if object.count > maxCount { throw error("more than \(maxCount) members") }
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in object") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(object) }
            throw error("expected ',' or '}' in object")
        }
    }

    mutating func array(depth: Int) throws(JSONError) -> JSON {
        if depth > maxDepth { throw error("nesting deeper than \(maxDepth)") }
        index += 1
        var elements: [JSON] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
        while true {
            skipWhitespace()
            elements.append(try value(depth: depth))
            if elements.count > maxCount { throw error("more than \(maxCount) elements") }
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in array") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
            throw error("expected ',' or ']' in array")
        }
    }

    /// Reads a number in one pass, its digits' value gathered as they are checked. Checking first
    /// and reading the digits again after was ~7 % of the phone's time on the sync benchmark (perf:
    /// a frame holds 20,000 numbers).
    mutating func number() throws(JSONError) -> JSON {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
        // The digits' value, exact while there are at most 18 of them (later ones are only counted:
        // no fast path below takes more).
        var mantissa: Int64 = 0, digits = 0, fractionDigits = 0
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            digits = 1
            if index < bytes.count, isDigit(bytes[index]) { throw error("leading zero in number") }
        } else {
            while index < bytes.count, isDigit(bytes[index]) {
                if digits < 18 { mantissa = mantissa * 10 + Int64(bytes[index] - 48) }
                digits += 1
                index += 1
            }
        }
        var isInteger = true, hasExponent = false
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("digit expected after '.'") }
            while index < bytes.count, isDigit(bytes[index]) {
                if digits < 18 { mantissa = mantissa * 10 + Int64(bytes[index] - 48) }
                digits += 1
                fractionDigits += 1
                index += 1
            }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            hasExponent = true
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("digit expected in exponent") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        // 18 characters (at most 18 digits) always fit in Int64.
        if isInteger, index - start <= 18 { return .int(negative ? -mantissa : mantissa) }
        // `-123.45`-style numbers with at most 15 digits and no exponent: the digits and the power
        // of ten are both exact doubles, so one division gives the correctly rounded result, as
        // strtod would.
        if !isInteger, !hasExponent, digits <= 15 {
            let value = Double(mantissa) / Self.powersOfTen[fractionDigits]
            return .double(negative ? -value : value)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if isInteger, let value = Int64(text) { return .int(value) }
        guard let value = Double(text), value.isFinite else { throw JSONError(offset: start, reason: "number out of range") }
        return .double(value)
    }

    @inline(__always) func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }

    static let powersOfTen: [Double] = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15]

    mutating func string() throws(JSONError) -> String {
        index += 1 // opening quote
        let start = index
        // Fast path: no escapes. The bytes' high bits are gathered on the way, so ASCII (keys,
        // UUIDs, names: the common case, and a frame's 370 KB `uuids`) needs no second pass.
        var high: UInt8 = 0
        while index < bytes.count {
            // Eight bytes at a time while none of them ends the string, escapes, is a control
            // character or is not ASCII; the first word with one goes byte by byte below. A
            // frame's 370 KB `uuids` went byte by byte: 6 % of the phone's time on the sync
            // benchmark (perf).
            while index &+ 8 <= bytes.count, Self.isPlainASCII(UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self)) {
                index &+= 8
            }
            guard index < bytes.count else { break }
            let byte = bytes[index]
            high |= byte
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                if high < 0x80 { return String(decoding: slice, as: UTF8.self) }
                guard let text = String(validating: slice, as: UTF8.self) else {
                    throw JSONError(offset: start, reason: "string is not valid UTF-8")
                }
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("control character in string") }
            index += 1
        }
        var scratch = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: scratch, as: UTF8.self) else {
                    throw JSONError(offset: start, reason: "string is not valid UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw error("unexpected end of input in escape") }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""): scratch.append(0x22)
                case UInt8(ascii: "\\"): scratch.append(0x5C)
                case UInt8(ascii: "/"): scratch.append(0x2F)
                case UInt8(ascii: "b"): scratch.append(0x08)
                case UInt8(ascii: "f"): scratch.append(0x0C)
                case UInt8(ascii: "n"): scratch.append(0x0A)
                case UInt8(ascii: "r"): scratch.append(0x0D)
                case UInt8(ascii: "t"): scratch.append(0x09)
                case UInt8(ascii: "u"): try unicodeEscape(into: &scratch)
                default: throw error("invalid escape")
                }
            default:
                if byte < 0x20 { throw error("control character in string") }
                scratch.append(byte)
                index += 1
            }
        }
        throw error("unterminated string")
    }

    /// True when none of the word's eight bytes is a quote, a backslash, below 0x20 or above 0x7F (each
    /// test is the classic "some byte is less than n" word trick, exact for presence).
    @inline(__always)
    static func isPlainASCII(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        func hasByteBelow(_ x: UInt64, _ n: UInt64) -> UInt64 { (x &- ones &* n) & ~x & highs }
        let special = hasByteBelow(word, 0x20) | hasByteBelow(word ^ (ones &* 0x22), 1)
            | hasByteBelow(word ^ (ones &* 0x5C), 1) | (word & highs)
        return special == 0
    }

    mutating func hex4() throws(JSONError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[index]
            let digit: UInt32
            switch b {
            case 48...57: digit = UInt32(b - 48)
            case 65...70: digit = UInt32(b - 55)
            case 97...102: digit = UInt32(b - 87)
            default: throw error("invalid \\u escape")
            }
            value = value * 16 + digit
            index += 1
        }
        return value
    }

    mutating func unicodeEscape(into scratch: inout [UInt8]) throws(JSONError) {
        var scalar = try hex4()
        if (0xD800..<0xDC00).contains(scalar) {
            guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw error("unpaired surrogate")
            }
            index += 2
            let low = try hex4()
            guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00..<0xE000).contains(scalar) {
            throw error("unpaired surrogate")
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid code point") }
        scratch.append(contentsOf: Array(String(Character(unicode)).utf8))
    }
}
