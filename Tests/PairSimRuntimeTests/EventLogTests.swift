import Foundation
import PairSimCore
import Testing
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
        #expect(try EventLog.read(path: path) == [event, event])
        try Data(Array(event.jsonLine.prefix(20))).write(to: URL(fileURLWithPath: path))
        #expect(try EventLog.read(path: path).isEmpty)
    }

    @Test("a corrupt complete line is an error naming the file and line")  // R: P5
    func corruptLine() throws {
        let path = NSTemporaryDirectory() + "pairsim-log-\(UInt32.random(in: 0...UInt32.max)).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("{\"t\":1}\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect { try EventLog.read(path: path) } throws: { "\($0)".contains("\(path):1") }
    }
}
