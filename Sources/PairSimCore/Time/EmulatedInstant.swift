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
        let negative = milliseconds < 0
        var rest = milliseconds.magnitude
        let ms = rest % 1_000; rest /= 1_000
        let s = rest % 60; rest /= 60
        let m = rest % 60; rest /= 60
        let h = rest % 24
        let d = rest / 24
        func two(_ v: UInt64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let msText = ms < 10 ? "00\(ms)" : ms < 100 ? "0\(ms)" : "\(ms)"
        let clock = "\(two(h)):\(two(m)):\(two(s)).\(msText)"
        return (negative ? "-" : "") + (d > 0 ? "\(d)d \(clock)" : clock)
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
