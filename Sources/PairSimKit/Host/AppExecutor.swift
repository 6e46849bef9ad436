import CAppGuard
import Dispatch
import Foundation

@_silgen_name("_dispatch_main_queue_callback_4CF")
private func _dispatch_main_queue_callback_4CF(_ message: UnsafeMutableRawPointer?)

/// Where the app's async code runs (R: A5, A14): the app's queue, whose jobs the driver runs one by
/// one, in the order they were enqueued, on its own thread, until none is left — at each delivery.
///
/// Jobs come from two places. With PairSim's executors installed (`AppExecutors`, every PairSim
/// executable), every job enqueued during a delivery: main-actor code, `Task { }`,
/// `Task.detached`, continuations resumed by the driver, sleeps that ended; and, on the main
/// thread, the blocks the app put on `DispatchQueue.main`, drained here too. Without them (a test
/// process, which has tasks before any code of ours runs), only tasks started with `AppTask`,
/// which name this executor as their preference (SE-0417) — their `async let` and task-group
/// children, default actors they call and continuations resumed by the driver included.
package final class AppExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: jobs may be enqueued from any thread (a continuation resumed elsewhere); the
    // queue is guarded by the lock, and jobs only run on the driver's thread in `drain`.

    /// Which executor a job was enqueued on, and so runs on (run on another, it would only hop
    /// back there: to the end of the queue).
    package enum Kind: Sendable {
        /// The main actor's (`AppMainExecutor`).
        case main
        /// Swift's global executor (`AppDefaultExecutor`): `Task { }`, `Task.detached`.
        case global
        /// This one, named as a task's preference (`AppTask`).
        case preferred
    }

    private let lock = NSLock()
    private var jobs: [(job: UnownedJob, kind: Kind)] = []

    package init() {}

    package func enqueue(_ job: consuming ExecutorJob) {
        enqueue(UnownedJob(job), on: .preferred)
    }

    func enqueue(_ job: UnownedJob, on kind: Kind) {
        lock.lock()
        jobs.append((job, kind))
        lock.unlock()
    }

    /// Runs every queued job, and those they enqueue, in order; on the main thread, then the main
    /// dispatch queue's blocks, and again until both are empty.
    package func drain() {
        let drainsMainQueue = AppExecutors.installed && pairsim_is_main_thread() != 0
        while true {
            lock.lock()
            guard !jobs.isEmpty else {
                lock.unlock()
                guard drainsMainQueue else { return }
                _dispatch_main_queue_callback_4CF(nil)
                if isEmpty { return }
                continue
            }
            let (job, kind) = jobs.removeFirst()
            lock.unlock()
            switch kind {
            case .main: job.runSynchronously(on: AppMainExecutor.shared.asUnownedSerialExecutor())
            case .global: job.runSynchronously(on: AppDefaultExecutor.shared.asUnownedTaskExecutor())
            case .preferred: job.runSynchronously(on: asUnownedTaskExecutor())
            }
        }
    }

    private var isEmpty: Bool {
        lock.lock()
        defer { lock.unlock() }
        return jobs.isEmpty
    }
}
