/// A span of emulated time, in milliseconds. Every duration in topologies, commands and logs is one.
public struct EmulatedDuration: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Length in emulated milliseconds (may be negative only as the result of arithmetic).
    public var milliseconds: Int64

    /// Creates a duration of `milliseconds` emulated milliseconds.
    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    public static let zero = EmulatedDuration(milliseconds: 0)
    public static func milliseconds(_ value: Int64) -> Self { Self(milliseconds: value) }
    public static func seconds(_ value: Int64) -> Self { Self(milliseconds: value * 1_000) }
    /// A duration of `value` (fractional) seconds, rounded to the millisecond.
    public init(seconds value: Double) { self.init(milliseconds: Int64((value * 1_000).rounded())) }
    public static func minutes(_ value: Int64) -> Self { Self(milliseconds: value * 60_000) }
    public static func hours(_ value: Int64) -> Self { Self(milliseconds: value * 3_600_000) }
    public static func days(_ value: Int64) -> Self { Self(milliseconds: value * 86_400_000) }

    /// The duration in (fractional) seconds.
    public var seconds: Double { Double(milliseconds) / 1_000 }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.milliseconds < rhs.milliseconds }
    public static func + (lhs: Self, rhs: Self) -> Self { Self(milliseconds: lhs.milliseconds + rhs.milliseconds) }
    public static func - (lhs: Self, rhs: Self) -> Self { Self(milliseconds: lhs.milliseconds - rhs.milliseconds) }
    public static func * (lhs: Self, rhs: Int64) -> Self { Self(milliseconds: lhs.milliseconds * rhs) }
    public static func += (lhs: inout Self, rhs: Self) { lhs.milliseconds += rhs.milliseconds }

    /// The shortest exact spelling in the duration grammar: `90s` → `1m30s`, `0` → `0s`.
    /// Written into a buffer on the stack: every `sync.sent` names its latency, and building the
    /// text from an array of units and interpolated pieces was ~0.5 % of a simulated week (perf).
    public var description: String {
        if milliseconds == 0 { return "0s" }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer in
            let p = buffer.baseAddress!
            var n = 0
            if milliseconds < 0 { p[0] = UInt8(ascii: "-"); n = 1 }
            var rest = milliseconds.magnitude
            func part(_ size: UInt64, _ unit: UInt8, _ second: UInt8? = nil) {
                guard rest >= size else { return }
                // Every quotient fits in Int64 (even from Int64.min: by the last part the rest is under a second).
                n += JSONWriter.writeInt(Int64(rest / size), at: p + n)
                p[n] = unit
                n += 1
                if let second { p[n] = second; n += 1 }
                rest %= size
            }
            part(86_400_000, UInt8(ascii: "d"))
            part(3_600_000, UInt8(ascii: "h"))
            part(60_000, UInt8(ascii: "m"))
            part(1_000, UInt8(ascii: "s"))
            part(1, UInt8(ascii: "m"), UInt8(ascii: "s"))
            return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
        }
    }

    /// The duration grammar with an optional sign: `-90s`, `+2m`, `5m`.
    public init?(parsingSigned text: String) {
        let negative = text.hasPrefix("-")
        guard let amount = EmulatedDuration(parsing: negative || text.hasPrefix("+") ? String(text.dropFirst()) : text) else { return nil }
        self = negative ? .zero - amount : amount
    }

    /// Parses the duration grammar: one or more `<number><unit>` parts with units
    /// `ms`, `s`, `m`, `h`, `d`, e.g. `250ms`, `5s`, `1.5m`, `1h30m`, `7d`. A bare `0` is allowed.
    public init?(parsing text: String) {
        let trimmed = text.trimmingWhitespace()
        if trimmed == "0" { self = .zero; return }
        var total = 0.0
        var index = trimmed.startIndex
        var sawPart = false
        while index < trimmed.endIndex {
            let numberStart = index
            while index < trimmed.endIndex, trimmed[index].isNumber || trimmed[index] == "." {
                index = trimmed.index(after: index)
            }
            guard let number = Double(trimmed[numberStart..<index]), number.isFinite else { return nil }
            let unitStart = index
            while index < trimmed.endIndex, trimmed[index].isLetter { index = trimmed.index(after: index) }
            let scale: Double
            switch trimmed[unitStart..<index] {
            case "ms": scale = 1
            case "s": scale = 1_000
            case "m", "min": scale = 60_000
            case "h": scale = 3_600_000
            case "d": scale = 86_400_000
            default: return nil
            }
            total += number * scale
            sawPart = true
        }
        guard sawPart, total <= 9.0e15 else { return nil }
        self.init(milliseconds: Int64(total.rounded()))
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace { slice.removeFirst() }
        while let last = slice.last, last.isWhitespace { slice.removeLast() }
        return String(slice)
    }
}
