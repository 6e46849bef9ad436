#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Reads commands from stdin, one per line, and prints each reply (`> ` lines) after the events
/// the command caused.
enum StdinReader {
    static func start(mailbox: Mailbox) {
        let thread = Thread {
            while let line = readLine(strippingNewline: true) {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
                mailbox.post(.command(trimmed) { result in
                    let prefix = result.ok ? "> " : "> error: "
                    let text = result.reply.split(separator: "\n", omittingEmptySubsequences: false)
                        .enumerated().map { ($0.offset == 0 ? prefix : "> ") + $0.element }.joined(separator: "\n") + "\n"
                    var bytes = Array(text.utf8)
                    bytes.withUnsafeMutableBytes { EventSink.writeAll(STDOUT_FILENO, UnsafeRawBufferPointer($0)) }
                })
            }
            // End of input is not a reason to stop: nodes run under launchers with stdin closed.
        }
        thread.name = "stdin"
        thread.start()
    }
}
