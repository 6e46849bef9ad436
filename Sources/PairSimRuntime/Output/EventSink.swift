#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import PairSimCore

/// Writes events: JSON lines to `events.jsonl` in the data directory, readable lines to stdout
/// (coloured on a terminal).
///
/// Events are held as they are emitted and rendered and written by `flush`, which the node loop
/// calls once it has had a millisecond with nothing to do, and `flushIfDue` while it is busy
/// (`maxHeld` events or `maxHeldNanoseconds`). Rendering and writing the watch's two events right
/// after it published a sample's frame took the CPU the phone needed for that frame: with the
/// watch's events not written at all, the single-sample probe's p50 fell from 198 to 171 µs
/// (4 interleaved runs each), so they wait until the exchange is over.
final class EventSink {
    private let file: Int32
    private var held: [Event] = []
    private var heldSince: UInt64 = 0
    private var fileBuffer: [UInt8] = []
    private var stdoutBuffer = ""
    private let echo: Bool
    private let color: Bool
    /// Events emitted so far (held or written).
    private(set) var count = 0

    /// Monotonic nanoseconds, for how long events have been held.
    private let clock: () -> UInt64

    /// Opens (appends to) `path`; `echo` also prints readable lines to stdout.
    init(path: String, echo: Bool, color: Bool, clock: @escaping () -> UInt64 = { DispatchTime.now().uptimeNanoseconds }) throws(RuntimeError) {
        self.clock = clock
        file = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard file >= 0 else { throw RuntimeError("cannot open event log \(path): \(String(cString: strerror(errno)))") }
        Self.dropTornTail(file)
        self.echo = echo
        self.color = color

        fileBuffer.reserveCapacity(64 * 1024)
    }

    deinit {
        flush()
        close(file)
    }

    /// The most events held before `flushIfDue` writes them, and the longest the oldest is held.
    static let maxHeld = 1_024
    static let maxHeldNanoseconds: UInt64 = 10_000_000
    /// Rendered bytes written out at once while rendering, and the most buffer kept between flushes.
    static let chunkBytes = 1 << 20

    /// A kill -9 during a write can leave a last line without its newline; appending to it would
    /// make one corrupt line of two events. That event never reached the log whole: cut it off.
    static func dropTornTail(_ fd: Int32) {
        let size = lseek(fd, 0, SEEK_END)
        guard size > 0 else { return }
        var chunk = [UInt8](repeating: 0, count: 4_096)
        var end = size
        while end > 0 {
            let start = max(0, end - off_t(chunk.count))
            let length = Int(end - start)
            guard pread(fd, &chunk, length, start) == length else { return }
            if let newline = chunk[0..<length].lastIndex(of: 0x0A) {
                if start + off_t(newline) + 1 < size { _ = ftruncate(fd, start + off_t(newline) + 1) }
                return
            }
            end = start
        }
        _ = ftruncate(fd, 0)
    }

    /// Holds `event` until the next `flush`.
    func write(_ event: Event) {
        count += 1
        if held.isEmpty { heldSince = clock() }
        held.append(event)
    }

    /// Whether anything waits to be written.
    var isEmpty: Bool { held.isEmpty && fileBuffer.isEmpty && stdoutBuffer.isEmpty }

    /// Writes what is held if there is a lot of it or it has waited too long (a busy node).
    func flushIfDue() {
        guard !held.isEmpty else { return }
        if held.count >= Self.maxHeld || clock() - heldSince >= Self.maxHeldNanoseconds { flush() }
    }

    /// Prints a line that is not an event in order with the events.
    func printLine(_ text: String) {
        render()
        stdoutBuffer += text + "\n"
    }

    /// Renders what is held into the buffers, writing them out each `chunkBytes` (a bulk turn can
    /// hold tens of thousands of events).
    private func render() {
        for event in held {
            event.writeJSONLine(into: &fileBuffer)
            fileBuffer.append(0x0A)
            if echo { stdoutBuffer += colored(event) + "\n" }
            if fileBuffer.count >= Self.chunkBytes || stdoutBuffer.utf8.count >= Self.chunkBytes { writeBuffers() }
        }
        held.removeAll(keepingCapacity: held.count <= Self.maxHeld)
    }

    private func writeBuffers() {
        if !fileBuffer.isEmpty {
            fileBuffer.withUnsafeBytes { Self.writeAll(file, $0) }
            fileBuffer.removeAll(keepingCapacity: fileBuffer.capacity <= Self.chunkBytes * 2)
        }
        if !stdoutBuffer.isEmpty {
            var text = stdoutBuffer
            text.withUTF8 { Self.writeAll(STDOUT_FILENO, UnsafeRawBufferPointer($0)) }
            stdoutBuffer = ""
        }
    }

    func flush() {
        render()
        writeBuffers()
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
