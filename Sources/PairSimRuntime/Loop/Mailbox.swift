#if canImport(Glibc)
import Glibc
#endif
import PairSimCore
import Synchronization

/// Hands work to a node's loop thread from other threads (stdin reader, service, tests) and wakes
/// its `zmq_poll` through a pipe.
public final class Mailbox: Sendable {
    /// Something for the loop to do.
    public enum Input: Sendable {
        /// Run a command; `reply` is called on the loop thread with the result.
        case command(String, reply: @Sendable (CommandResult) -> Void)
        /// Stop gracefully.
        case stop
    }

    private let queue = Mutex<[Input]>([])
    /// Readable when inputs are waiting (the pipe's read end).
    public let fileDescriptor: Int32
    private let writeEnd: Int32

    public init() {
        var fds: [Int32] = [0, 0]
        let rc = pipe(&fds)
        precondition(rc == 0, "pipe failed: errno \(errno)")
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        fileDescriptor = fds[0]
        writeEnd = fds[1]
    }

    deinit {
        close(fileDescriptor)
        close(writeEnd)
    }

    /// Queues `input` and wakes the loop.
    public func post(_ input: Input) {
        queue.withLock { $0.append(input) }
        var one: UInt8 = 1
        _ = write(writeEnd, &one, 1) // a full pipe already means "wake up"
    }

    /// Takes everything queued (called by the loop thread).
    func drain() -> [Input] {
        var scratch = [UInt8](repeating: 0, count: 256)
        while read(fileDescriptor, &scratch, scratch.count) > 0 {}
        return queue.withLock { inputs in
            defer { inputs.removeAll() }
            return inputs
        }
    }
}
