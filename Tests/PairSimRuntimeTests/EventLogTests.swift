import Foundation
import PairSimCore
import Testing
import TestSupport
@testable import PairSimRuntime

@Suite("Reading event logs")
struct EventLogTests {
    @Test("a last line still being written is left for the next read")  // R: P5
    func partialLastLine() throws {
        let path = NSTemporaryDirectory() + "pairsim-log-\(UInt32.random(in: 0...UInt32.max)).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let event = Event(at: .zero + .seconds(3), node: .phone, .hkSaved, fields: ["kind": "workout"])
        let whole = event.jsonLine + [0x0A]
        try Data(whole + whole + Array(event.jsonLine.prefix(20))).write(to: URL(fileURLWithPath: path))
        expectEqual(EventLog.read(path: path), [event, event])
        try Data(Array(event.jsonLine.prefix(20))).write(to: URL(fileURLWithPath: path))
        expect(EventLog.read(path: path).isEmpty)
    }

    @Test("a corrupt line in the middle is reported with its file, line and a bounded quote; the lines after it are read")  // R: K9, P5
    func corruptLine() throws {
        let path = NSTemporaryDirectory() + "pairsim-log-\(UInt32.random(in: 0...UInt32.max)).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = Event(at: .zero + .seconds(1), node: .phone, .hkSaved, fields: ["kind": "workout"])
        let last = Event(at: .zero + .seconds(9), node: .phone, .nodeStopped)
        let garbage = "{\"t\":1}" + String(repeating: "x", count: 5_000)
        try Data(first.jsonLine + [0x0A] + Array(garbage.utf8) + [0x0A] + [0x0A] + last.jsonLine + [0x0A]).write(to: URL(fileURLWithPath: path))
        var bad: [EventLog.BadLine] = []
        expectEqual(EventLog.read(path: path, badLines: &bad), [first, last])
        expectEqual(bad.map(\.line), [2, 3], "the garbage line and the empty one")
        let text = bad.first?.description ?? ""
        expect(text.hasPrefix("\(path):2: not an event line (") && text.hasSuffix("; skipped, the rest read"), "\(text)")
        expect(text.utf8.count < 400, "the quote is bounded: \(text.utf8.count) bytes")
    }
}
