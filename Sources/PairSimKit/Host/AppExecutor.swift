import Foundation

/// Where the app's async code runs (R: A5): a task executor whose jobs the driver runs one by one,
/// in the order they were enqueued, on its own thread, until none is left — at each delivery.
///
/// Measured on this toolchain (Swift 6.3.1, Linux): with a task executor preference
/// (SE-0417, `Task(executorPreference:)`), a task's own jobs, its `async let` and task-group
/// children, default actors it calls, and continuations resumed by the driver all run here, so the
/// same seed gives the same order. An unstructured `Task {}` or `Task.detached` does not inherit
/// the preference and runs on the global concurrent executor: not deterministic (PairSim reports
/// such code when it reaches the API). Swift 6.3's `ExecutorFactory` (custom global and main
/// executors) is still SPI (`@_spi(ExperimentalCustomExecutors)`) here, so PairSim does not rely on it.
package final class AppExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: jobs may be enqueued from any thread (a continuation resumed elsewhere); the
    // queue is guarded by the lock, and jobs only run on the driver's thread in `drain`.
    private let lock = NSLock()
    private var jobs: [UnownedJob] = []

    package init() {}

    package func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        lock.lock()
        jobs.append(unowned)
        lock.unlock()
    }

    /// Runs every queued job, and those they enqueue, in order.
    package func drain() {
        while true {
            lock.lock()
            guard !jobs.isEmpty else { lock.unlock(); return }
            let job = jobs.removeFirst()
            lock.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
