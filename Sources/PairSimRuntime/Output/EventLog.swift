import Foundation
import PairSimCore

/// Reads nodes' `events.jsonl` files back, for `topology log`, scenario checks and tests.
public enum EventLog {
    /// All events in the file at `path` (a missing file is empty; a bad line is an error naming it).
    /// A last line without its newline is a write in progress and is left for the next read.
    public static func read(path: String) throws -> [Event] {
        guard var data = FileManager.default.contents(atPath: path) else { return [] }
        if let lastNewline = data.lastIndex(of: 0x0A) {
            data = data[..<data.index(after: lastNewline)]
        } else {
            return []
        }
        var events: [Event] = []
        var lineNumber = 0
        for line in data.split(separator: 0x0A, omittingEmptySubsequences: true) {
            lineNumber += 1
            do {
                events.append(try Event(jsonLine: Array(line)))
            } catch {
                throw RuntimeError("\(path):\(lineNumber): \(error)")
            }
        }
        return events
    }

    /// Both nodes' events merged by emulated time (stable: watch before phone at equal times).
    public static func merged(_ topology: Topology) throws -> [Event] {
        var all: [(Int, Event)] = []
        for node in NodeName.allCases {
            let events = try read(path: topology.nodes[node]!.data + "/events.jsonl")
            all += events.enumerated().map { ($0.offset * 2 + (node == .watch ? 0 : 1), $0.element) }
        }
        return all.sorted { ($0.1.at, $0.0) < ($1.1.at, $1.0) }.map(\.1)
    }
}
