#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A node process started by the launcher, its output relayed line by line with a prefix.
final class ChildProcess {
    let name: String
    let process: Process
    /// Signalled when the output relay has passed on the child's last line.
    let relayDone = DispatchSemaphore(value: 0)

    /// Starts `executable` with `arguments`; each output line goes to `relay`.
    init(name: String, executable: String, arguments: [String], relay: @escaping @Sendable (String) -> Void,
         onExit: @escaping @Sendable (Int32) -> Void) throws {
        self.name = name
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        process.terminationHandler = { onExit($0.terminationStatus) }
        self.process = process
        do {
            try process.run()
        } catch {
            throw RuntimeError("cannot start \(executable): \(error.localizedDescription)")
        }
        Self.relayLines(from: output.fileHandleForReading.fileDescriptor, to: relay, done: relayDone)
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    func signal(_ signal: Int32) {
        if process.isRunning { kill(pid, signal) }
    }

    /// Reads `fd` on its own thread and hands over complete lines.
    static func relayLines(from fd: Int32, to relay: @escaping @Sendable (String) -> Void, done: DispatchSemaphore) {
        let thread = Thread {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(fd, &buffer, buffer.count)
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                pending.append(contentsOf: buffer[0..<count])
                while let newline = pending.firstIndex(of: 0x0A) {
                    relay(String(decoding: pending[..<newline], as: UTF8.self))
                    pending.removeSubrange(...newline)
                }
            }
            if !pending.isEmpty { relay(String(decoding: pending, as: UTF8.self)) }
            done.signal()
        }
        thread.start()
    }
}
