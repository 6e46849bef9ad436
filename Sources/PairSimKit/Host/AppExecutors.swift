@_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency
import Foundation
internal import PairSimCore

/// The process's main and default executors, installed by PairSim's executables before any task
/// exists (R: A14). App code — `@MainActor` classes, `Task { }`, `Task.detached`, `await
/// MainActor.run`, `Task.sleep` — then runs where PairSim runs it: a job enqueued while an app
/// delivery is in progress on this thread goes to that app's queue (`AppExecutor`), and runs
/// there, in order, on the driver's thread, in emulated time; a sleep becomes a timer on the
/// app's clock. Everything else (PairSim's own async code, other threads) goes to the platform's
/// executors as before.
///
/// Swift 6.3.1 offers this through `ExecutorFactory` and `_createExecutors(factory:)`, still
/// SPI (`@_spi(ExperimentalCustomExecutors)`). Measured on this toolchain (Linux) before relying
/// on it: main-actor jobs, unstructured and detached tasks, hops to the main actor and
/// `Task.sleep` (which asks the executor to run a job at a `ContinuousClock` instant) all reach
/// these executors, and `MainActor.assumeIsolated` asks `checkIsolated()`. docs/APPS.md lists what
/// still escapes: threads of the app's own, `DispatchQueue.global()`, `asyncAfter`.
///
/// Every process that links PairSimKit installs them before `main` runs (a constructor in
/// CAppClock calls `install()`), so an executable, a developer's own included, needs nothing.
public enum AppExecutors {
    nonisolated(unsafe) private static var isInstalled = false

    /// True once they are installed (before `main`, in any process that links PairSimKit).
    public static var installed: Bool { isInstalled }

    /// Installs PairSim's executors if nothing has made a task yet; returns whether they are in place.
    @discardableResult
    public static func install() -> Bool {
        guard !isInstalled else { return true }
        guard withUnsafeCurrentTask(body: { $0 == nil }) else { return false }
        _createExecutors(factory: Factory.self)
        isInstalled = true
        return true
    }

    struct Factory: ExecutorFactory {
        static let mainExecutor: any MainExecutor = AppMainExecutor.shared
        static let defaultExecutor: any TaskExecutor = AppDefaultExecutor.shared
    }
}

/// The main actor's executor: the delivering app's queue during a delivery, the platform's
/// main executor otherwise.
final class AppMainExecutor: MainExecutor, SchedulingExecutor, @unchecked Sendable {
    static let shared = AppMainExecutor()
    let platform = PlatformExecutorFactory.mainExecutor

    func enqueue(_ job: consuming ExecutorJob) {
        if let runtime = AppRuntime.current {
            runtime.executor.enqueue(UnownedJob(job), on: .main)
        } else {
            platform.enqueue(job)
        }
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C) {
        if let runtime = AppRuntime.current {
            AppSleeps.schedule(UnownedJob(job), on: .main, runtime: runtime, after: AppSleeps.milliseconds(delay))
        } else {
            platform.enqueue(job)
        }
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C) {
        if let runtime = AppRuntime.current {
            AppSleeps.schedule(UnownedJob(job), on: .main, runtime: runtime, at: instant, clock: clock)
        } else {
            platform.enqueue(job)
        }
    }

    func run() throws { try platform.run() }
    func stop() { platform.stop() }
    func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }
    func isSameExclusiveExecutionContext(other: AppMainExecutor) -> Bool { true }

    /// App code on the main actor is app code being delivered: `MainActor.assumeIsolated` and
    /// `dispatchPrecondition`-style checks pass there, as on a device's main thread.
    func checkIsolated() {
        if AppRuntime.current != nil { return }
        platform.checkIsolated()
    }

    func isIsolatingCurrentContext() -> Bool? {
        AppRuntime.current != nil ? true : platform.isIsolatingCurrentContext()
    }
}

/// The global concurrent executor: the delivering app's queue during a delivery, the platform's
/// default executor otherwise.
final class AppDefaultExecutor: TaskExecutor, SchedulingExecutor, @unchecked Sendable {
    static let shared = AppDefaultExecutor()
    let platform = PlatformExecutorFactory.defaultExecutor

    func enqueue(_ job: consuming ExecutorJob) {
        if let runtime = AppRuntime.current {
            runtime.executor.enqueue(UnownedJob(job), on: .global)
        } else {
            platform.enqueue(job)
        }
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C) {
        if let runtime = AppRuntime.current {
            AppSleeps.schedule(UnownedJob(job), on: .global, runtime: runtime, after: AppSleeps.milliseconds(delay))
        } else {
            platformSchedule(job, after: delay, tolerance: tolerance, clock: clock)
        }
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C) {
        if let runtime = AppRuntime.current {
            AppSleeps.schedule(UnownedJob(job), on: .global, runtime: runtime, at: instant, clock: clock)
        } else {
            platformSchedule(job, at: instant, tolerance: tolerance, clock: clock)
        }
    }

    func platformSchedule<C: Clock>(_ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C) {
        if let scheduling = platform as? any SchedulingExecutor {
            scheduling.enqueue(job, after: delay, tolerance: tolerance, clock: clock)
        } else {
            platform.enqueue(job)
        }
    }

    func platformSchedule<C: Clock>(_ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C) {
        if let scheduling = platform as? any SchedulingExecutor {
            scheduling.enqueue(job, at: instant, tolerance: tolerance, clock: clock)
        } else {
            platform.enqueue(job)
        }
    }
}

/// `Task.sleep` in app code: a timer on the app's clock that enqueues the job again.
enum AppSleeps {
    /// Schedules `job` at `instant` of `clock` on the app's clock. The instant was read from the
    /// clock during this delivery, when the C clocks answer with emulated time (CAppClock): `now`
    /// here is that same instant, so the delay is exact.
    static func schedule<C: Clock>(_ job: UnownedJob, on kind: AppExecutor.Kind, runtime: AppRuntime, at instant: C.Instant, clock: C) {
        schedule(job, on: kind, runtime: runtime, after: milliseconds(clock.now.duration(to: instant)))
    }

    static func schedule(_ job: UnownedJob, on kind: AppExecutor.Kind, runtime: AppRuntime, after milliseconds: Int64) {
        let executor = runtime.executor
        runtime.schedule(at: runtime.now + .milliseconds(max(0, milliseconds))) { executor.enqueue(job, on: kind) }
    }

    /// A clock's duration in whole milliseconds (rounded up: a sleep never ends early).
    static func milliseconds<D: DurationProtocol>(_ duration: D) -> Int64 {
        guard let duration = duration as? Duration else { return 0 }
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    }
}

/// Called by CAppClock's constructor, before `main`.
@_cdecl("pairsim_install_executors")
func pairsimInstallExecutors() { AppExecutors.install() }
