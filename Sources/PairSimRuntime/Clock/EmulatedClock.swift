#if canImport(Glibc)
import Glibc
#endif
import PairSimCore

/// Real-run emulated time: `now = timeScale × (wall clock − epoch)`. Both nodes get the same epoch
/// and scale from the launcher, so their clocks agree (R: S8). Or, stepped: the launcher moves a
/// `SharedClock` from one deadline to the next and time stands still in between.
public struct EmulatedClock: Sendable {
    /// Wall-clock Unix time (ms) of emulated time zero.
    public let epochUnixMilliseconds: Int64
    /// Emulated seconds per wall second.
    public let timeScale: Double
    /// The launcher's clock, when time is stepped rather than scaled from the wall clock.
    public let stepped: SharedClock?

    public init(epochUnixMilliseconds: Int64, timeScale: Double) {
        precondition(timeScale > 0, "Invalid time scale \(timeScale)")
        self.epochUnixMilliseconds = epochUnixMilliseconds
        self.timeScale = timeScale
        stepped = nil
    }

    /// A clock that reads the launcher's stepped clock.
    public init(stepped clock: SharedClock) {
        epochUnixMilliseconds = 0
        timeScale = 1
        stepped = clock
    }

    /// The wall clock as Unix time in (fractional) milliseconds, read once per process and then
    /// advanced by the monotonic clock: an NTP step after start (a second is a minute at 60×) or a
    /// clock set backwards cannot move emulated time. Two processes agree to within how far their
    /// wall clocks agreed when each started.
    public static func wallMilliseconds() -> Double {
        anchor.realtime + (milliseconds(CLOCK_MONOTONIC) - anchor.monotonic)
    }

    /// The wall clock and the monotonic clock, read together once.
    static let anchor = (realtime: milliseconds(CLOCK_REALTIME), monotonic: milliseconds(CLOCK_MONOTONIC))

    static func milliseconds(_ clock: clockid_t) -> Double {
        var spec = timespec()
        clock_gettime(clock, &spec)
        return Double(spec.tv_sec) * 1_000 + Double(spec.tv_nsec) / 1_000_000
    }

    /// The current emulated instant (never before zero: a node started just ahead of the epoch
    /// waits at zero rather than stamping negative times).
    public func now() -> EmulatedInstant {
        if let stepped { return stepped.now }
        let elapsed = Self.wallMilliseconds() - Double(epochUnixMilliseconds)
        return EmulatedInstant(milliseconds: max(0, Int64((elapsed * timeScale).rounded(.down))))
    }

    /// Wall milliseconds from now until `instant` (0 if it has passed; stepped, infinity until the
    /// launcher moves the clock there).
    public func wallMilliseconds(until instant: EmulatedInstant) -> Double {
        if let stepped { return instant <= stepped.now ? 0 : .infinity }
        let target = Double(epochUnixMilliseconds) + Double(instant.milliseconds) / timeScale
        return max(0, target - Self.wallMilliseconds())
    }

    /// Wall time that `duration` of emulated time takes.
    public func wallSeconds(_ duration: EmulatedDuration) -> Double {
        duration.seconds / timeScale
    }
}
