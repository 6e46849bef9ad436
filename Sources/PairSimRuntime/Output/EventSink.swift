#if canImport(Glibc)
import Glibc
#endif
import PairSimCore

/// Writes events: JSON lines to `events.jsonl` in the data directory, readable lines to stdout
/// (coloured on a terminal). Buffered per loop turn.
final class EventSink {
    private let file: Int32
    private var fileBuffer: [UInt8] = []
    private var stdoutBuffer = ""
    private let echo: Bool
    private let color: Bool
    /// Events written so far.
    private(set) var count = 0

    /// Opens (appends to) `path`; `echo` also prints readable lines to stdout.
    init(path: String, echo: Bool, color: Bool) throws(RuntimeError) {
        file = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard file >= 0 else { throw RuntimeError("cannot open event log \(path): \(String(cString: strerror(errno)))") }
        self.echo = echo
        self.color = color

        fileBuffer.reserveCapacity(64 * 1024)
    }

    deinit {
        flush()
        close(file)
    }

    func write(_ event: Event) {
        count += 1
        fileBuffer.append(contentsOf: event.jsonLine)
        fileBuffer.append(0x0A)
        if echo { stdoutBuffer += colored(event) + "\n" }
        if fileBuffer.count > 1 << 20 { flush() }
    }

    /// Prints a line that is not an event (command replies) in order with the events.
    func printLine(_ text: String) {
        stdoutBuffer += text + "\n"
    }

    func flush() {
        if !fileBuffer.isEmpty {
            fileBuffer.withUnsafeBytes { Self.writeAll(file, $0) }
            fileBuffer.removeAll(keepingCapacity: true)
        }
        if !stdoutBuffer.isEmpty {
            var text = stdoutBuffer
            text.withUTF8 { Self.writeAll(STDOUT_FILENO, UnsafeRawBufferPointer($0)) }
            stdoutBuffer = ""
        }
    }

    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return // stdout closed or disk full: the event is lost from this sink only, never from the stores
            }
            offset += written
        }
    }

    private func colored(_ event: Event) -> String {
        let line = event.humanLine
        guard color else { return line }
        switch event.level {
        case .warning: return ANSI.yellow(line)
        case .error: return ANSI.red(line)
        case .info:
            let time = event.at.description
            let rest = line.dropFirst(time.count)
            return ANSI.dim(time) + String(rest)
        }
    }
}
