#if canImport(Glibc)
import Glibc
#endif

/// A hang guard for a process waiting on another: it counts the time its own waits took, at most
/// `longestStep` for any one of them, so a machine that stops running this process for a while (a
/// loaded host, a paused VM) does not spend the budget.
///
/// A plain wall-clock deadline did spend it. In one CI run the end-to-end tests all stood still at
/// once (none finished for 7 s, then 45 within 1.2 s). `topology down` woke after its 15 s deadline
/// to find the launcher, which had stood still too, still running; it killed it and failed. A pair
/// normally stops in ~0.1 s. Stopping the launcher, its nodes and `down` with SIGSTOP for 20 s
/// reproduces that failure; counted this way, `down` then stops the pair cleanly. Wherever the
/// launcher waits for a node, and `topology down` for the launcher, the wait is counted this way.
public struct Patience {
    public let seconds: Double
    let budget: UInt64
    let longestStep: UInt64
    var spent: UInt64 = 0
    var last: UInt64
    /// Monotonic nanoseconds (a test's own clock in tests).
    let clock: () -> UInt64

    /// `seconds` of waiting; a step (one wait and whatever was done since the last) counts for
    /// at most `longestStep` seconds.
    public init(seconds: Double, longestStep: Double = 1) {
        self.init(seconds: seconds, longestStep: longestStep, clock: Self.now)
    }

    init(seconds: Double, longestStep: Double = 1, clock: @escaping () -> UInt64) {
        self.clock = clock
        self.seconds = seconds
        // At most a year: a bigger (or infinite) budget would not fit the count.
        budget = UInt64(min(max(0, seconds), 31_536_000) * 1e9)
        self.longestStep = UInt64(min(max(0, longestStep), 31_536_000) * 1e9)
        last = clock()
    }

    /// Whether any of the budget is left.
    public var remains: Bool { spent < budget }

    /// The budget left, in whole milliseconds.
    public var millisecondsLeft: Int32 { Int32(clamping: (budget - min(spent, budget)) / 1_000_000) }

    /// Sleeps `microseconds`, then counts the time since the last step; false once the budget is spent.
    public mutating func wait(microseconds: UInt32) -> Bool {
        usleep(microseconds)
        return count()
    }

    /// Counts the time since the last step (at most `longestStep` of it); false once the budget is spent.
    @discardableResult
    public mutating func count() -> Bool {
        let now = clock()
        spent += min(now - last, longestStep)
        last = now
        return remains
    }

    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
