#if canImport(Glibc)
import Glibc
#endif
import PairSimCore

/// Real-run emulated time: `now = timeScale × (wall clock − epoch)`. Both nodes get the same epoch
/// and scale from the launcher, so their clocks agree (R: S8). Or, stepped: the launcher moves a
/// `SharedClock` from one deadline to the next and time stands still in between.
public struct EmulatedClock: Sendable {
    /// Wall-clock Unix time (ms) of emulated time zero (from the epoch file, when there is one:
    /// 0 until the launcher writes it).
    public var epochUnixMilliseconds: Int64 { epochFile?.raw ?? fixedEpoch }
    let fixedEpoch: Int64
    /// The launcher's epoch file (`--epoch-file`): emulated time stands at zero until the
    /// launcher writes the epoch there — when both nodes are up and paired (R: K9).
    public let epochFile: SharedClock?
    /// Emulated seconds per wall second.
    public let timeScale: Double
    /// The launcher's clock, when time is stepped rather than scaled from the wall clock.
    public let stepped: SharedClock?

    public init(epochUnixMilliseconds: Int64, timeScale: Double) {
        precondition(timeScale > 0, "Invalid time scale \(timeScale)")
        fixedEpoch = epochUnixMilliseconds
        self.timeScale = timeScale
        stepped = nil
        epochFile = nil
    }

    /// A clock that reads the launcher's stepped clock.
    public init(stepped clock: SharedClock) {
        fixedEpoch = 0
        timeScale = 1
        stepped = clock
        epochFile = nil
    }

    /// A wall clock whose epoch the launcher writes in `epochFile` once the pair is ready; until
    /// then emulated time stands at zero.
    public init(epochFile: SharedClock, timeScale: Double) {
        precondition(timeScale > 0, "Invalid time scale \(timeScale)")
        fixedEpoch = 0
        self.timeScale = timeScale
        stepped = nil
        self.epochFile = epochFile
    }

    /// Emulated time runs (false only before the launcher writes the epoch file).
    public var isRunning: Bool { epochFile.map { $0.raw != 0 } ?? true }

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
        let epoch = epochUnixMilliseconds
        if epoch == 0, epochFile != nil { return .zero }
        let elapsed = Self.wallMilliseconds() - Double(epoch)
        return EmulatedInstant(milliseconds: max(0, Int64((elapsed * timeScale).rounded(.down))))
    }

    /// Wall milliseconds from now until `instant` (0 if it has passed; stepped, infinity until the
    /// launcher moves the clock there).
    public func wallMilliseconds(until instant: EmulatedInstant) -> Double {
        if let stepped { return instant <= stepped.now ? 0 : .infinity }
        let epoch = epochUnixMilliseconds
        // Not started: look again soon (the launcher writes the epoch within moments of the pair's readiness).
        if epoch == 0, epochFile != nil { return instant <= .zero ? 0 : 2 }
        let target = Double(epoch) + Double(instant.milliseconds) / timeScale
        return max(0, target - Self.wallMilliseconds())
    }

    /// Wall time that `duration` of emulated time takes.
    public func wallSeconds(_ duration: EmulatedDuration) -> Double {
        duration.seconds / timeScale
    }
}
