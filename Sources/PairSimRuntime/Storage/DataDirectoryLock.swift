#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// An exclusive lock on a node's data directory (`<data>/.lock`, flock), held for the process's
/// life, so a second node on the same directory is refused before it touches anything.
final class DataDirectoryLock {
    private let descriptor: Int32

    init(directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/.lock"
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw RuntimeError("cannot open \(path): \(String(cString: strerror(errno)))") }
        // A lock whose recorded holder is this process (a node loop that ended here) or a process
        // that is gone can still be held for a moment by a child another thread is spawning: the
        // child holds a copy of the descriptor from fork until exec closes it. Seen as a 1-in-2000
        // refusal when tests restart a node in one process while others spawn; so those are
        // retried for up to 2 s. A live other process is refused at once.
        var attempts = 0
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let holder = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            let pid = pid_t(holder) ?? 0
            let released = pid == getpid() || (pid > 0 && kill(pid, 0) != 0 && errno == ESRCH)
            attempts += 1
            guard released, attempts < 200 else {
                close(descriptor)
                throw RuntimeError("data directory \(directory) is in use by another node\(holder.isEmpty ? "" : " (pid \(holder))")")
            }
            usleep(10_000)
        }
        let pid = "\(getpid())\n"
        _ = ftruncate(descriptor, 0)
        _ = pid.withCString { write(descriptor, $0, strlen($0)) }
    }

    deinit { close(descriptor) }
}

/// Whether something is listening on a Unix socket path (an ipc endpoint of a live node).
enum UnixSocketProbe {
    static func isListening(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        return result == 0
    }
}
