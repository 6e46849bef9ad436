import Foundation
import PairSimCore

/// Reads nodes' `events.jsonl` files back, for `topology log`, `run`, `compare` and tests.
public enum EventLog {
    /// A line that is not an event (a disk error, an edit by hand): where it is and why, quoting
    /// at most 80 bytes of it. It is skipped; the lines after it are read (R: K9).
    public struct BadLine: Hashable, Sendable, CustomStringConvertible {
        public var path: String
        public var line: Int
        public var reason: String
        public var description: String { "\(path):\(line): not an event line (\(reason)); skipped, the rest read" }
    }

    /// All events in the file at `path` (a missing file is empty); a line that is not an event
    /// goes to `badLines` and the rest are read. A last line without its newline is a write in
    /// progress and is left for the next read.
    public static func read(path: String, badLines: inout [BadLine]) -> [Event] {
        guard var data = FileManager.default.contents(atPath: path) else { return [] }
        if let lastNewline = data.lastIndex(of: 0x0A) {
            data = data[..<data.index(after: lastNewline)]
        } else {
            return []
        }
        var events: [Event] = []
        var lineNumber = 0
        // Line by line, empty lines counted, so the number is the one an editor shows.
        for line in data.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast() {
            lineNumber += 1
            do {
                events.append(try Event(jsonLine: Array(line)))
            } catch {
                var end = min(line.count, 80)
                while end > 0, end < line.count, line[line.startIndex + end] & 0xC0 == 0x80 { end -= 1 } // not inside a character
                let quoted = Event.visible(String(decoding: line.prefix(end), as: UTF8.self)) + (end < line.count ? "…" : "")
                badLines.append(BadLine(path: path, line: lineNumber, reason: "\(error); the line begins \"\(quoted)\""))
            }
        }
        return events
    }

    /// The same, each bad line written to standard error.
    public static func read(path: String) -> [Event] {
        var bad: [BadLine] = []
        let events = read(path: path, badLines: &bad)
        report(bad)
        return events
    }

    /// Both nodes' events merged by emulated time (stable: watch before phone at equal times);
    /// bad lines go to `badLines`.
    public static func merged(_ topology: Topology, badLines: inout [BadLine]) -> [Event] {
        var all: [(Int, Event)] = []
        for node in NodeName.allCases {
            let events = read(path: topology.nodes[node]!.data + "/events.jsonl", badLines: &badLines)
            all += events.enumerated().map { ($0.offset * 2 + (node == .watch ? 0 : 1), $0.element) }
        }
        return all.sorted { ($0.1.at, $0.0) < ($1.1.at, $1.0) }.map(\.1)
    }

    /// The same, each bad line written to standard error.
    public static func merged(_ topology: Topology) -> [Event] {
        var bad: [BadLine] = []
        let events = merged(topology, badLines: &bad)
        report(bad)
        return events
    }

    /// Writes each bad line to standard error, as `warning: PATH:LINE: …`.
    public static func report(_ badLines: [BadLine]) {
        for bad in badLines { FileHandle.standardError.write(Data("warning: \(bad)\n".utf8)) }
    }
}
