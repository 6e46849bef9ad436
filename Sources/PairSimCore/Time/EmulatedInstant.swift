/// A point in emulated time: milliseconds since the topology's epoch (emulated time zero).
///
/// In a real run `now = timeScale × (wall clock − epoch)`; in the simulator it is the event queue's
/// clock. Core code never reads a clock: every method that needs the time takes `now`.
public struct EmulatedInstant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Milliseconds since emulated time zero.
    public var milliseconds: Int64

    /// Creates the instant `milliseconds` after emulated time zero.
    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    /// Emulated time zero.
    public static let zero = EmulatedInstant(milliseconds: 0)
    /// Later than any real instant; used as "never".
    public static let distantFuture = EmulatedInstant(milliseconds: Int64.max / 4)

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.milliseconds < rhs.milliseconds }
    public static func + (lhs: Self, rhs: EmulatedDuration) -> Self { Self(milliseconds: lhs.milliseconds + rhs.milliseconds) }
    public static func - (lhs: Self, rhs: EmulatedDuration) -> Self { Self(milliseconds: lhs.milliseconds - rhs.milliseconds) }
    public static func - (lhs: Self, rhs: Self) -> EmulatedDuration { EmulatedDuration(milliseconds: lhs.milliseconds - rhs.milliseconds) }
    public static func += (lhs: inout Self, rhs: EmulatedDuration) { lhs.milliseconds += rhs.milliseconds }

    /// `HH:MM:SS.mmm` since time zero, with a `Nd ` day prefix from the first day on: `1d 07:00:00.000`.
    public var description: String {
        var text: [UInt8] = []
        text.reserveCapacity(24)
        writeDescription(into: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends `description`'s bytes to `out`: every event's line carries it, and building it by
    /// string interpolation was ~2.5 % of `pairsim-bench simulate`, writing each week's log (perf).
    public func writeDescription(into out: inout [UInt8]) {
        if milliseconds < 0 { out.append(UInt8(ascii: "-")) }
        var rest = milliseconds.magnitude
        let ms = rest % 1_000; rest /= 1_000
        let s = rest % 60; rest /= 60
        let m = rest % 60; rest /= 60
        let h = rest % 24
        let d = rest / 24
        if d > 0 {
            JSONWriter.writeInt(Int64(d), into: &out)
            JSONWriter.writeRaw("d ", into: &out)
        }
        func digits(_ value: UInt64, _ count: Int) {
            var divisor: UInt64 = count == 3 ? 100 : 10
            while divisor > 0 {
                out.append(UInt8(48 + (value / divisor) % 10))
                divisor /= 10
            }
        }
        digits(h, 2)
        out.append(UInt8(ascii: ":"))
        digits(m, 2)
        out.append(UInt8(ascii: ":"))
        digits(s, 2)
        out.append(UInt8(ascii: "."))
        digits(ms, 3)
    }
}

extension Optional where Wrapped == EmulatedInstant {
    /// The earlier of two optional instants (nil: none); for deadlines read every loop turn,
    /// without building an array to take its `min()`.
    public func earliest(_ other: EmulatedInstant?) -> EmulatedInstant? {
        guard let self else { return other }
        guard let other else { return self }
        return Swift.min(self, other)
    }
}
