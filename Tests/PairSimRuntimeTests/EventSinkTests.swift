import Foundation
import PairSimCore
import Testing
import TestSupport
@testable import PairSimRuntime

/// The node loop writes held events when it idles; these check what the sink itself promises.
@Suite("Writing event logs")
struct EventSinkTests {
    /// A clock the test moves by hand.
    final class Clock: @unchecked Sendable { var nanoseconds: UInt64 = 1_000 }

    static func withSink(_ body: (EventSink, String, Clock) throws -> Void) throws {
        let path = NSTemporaryDirectory() + "pairsim-sink-\(UInt32.random(in: 0...UInt32.max)).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let clock = Clock()
        let sink = try EventSink(path: path, echo: false, color: false, clock: { clock.nanoseconds })
        try body(sink, path, clock)
    }

    static func event(_ n: Int) -> Event {
        Event(at: .zero + .milliseconds(Int64(n)), node: .watch, .sampleWritten, fields: ["value": .int(Int64(n))])
    }

    @Test("events are held until a flush, then written whole and in order")  // R: P5
    func heldUntilFlush() throws {
        try Self.withSink { sink, path, _ throws in
            for n in 0..<5 { sink.write(Self.event(n)) }
            expect(!sink.isEmpty)
            expect(EventLog.read(path: path).isEmpty)
            sink.flushIfDue()
            expect(EventLog.read(path: path).isEmpty, "five events just emitted are not due yet")
            sink.flush()
            expect(sink.isEmpty)
            expectEqual(EventLog.read(path: path), (0..<5).map(Self.event))
            expectEqual(sink.count, 5)
        }
    }

    @Test("a busy node writes its events once enough are held or the oldest has waited long enough")  // R: P5
    func dueWhileBusy() throws {
        try Self.withSink { sink, path, clock throws in
            for n in 0..<(EventSink.maxHeld - 1) { sink.write(Self.event(n)) }
            sink.flushIfDue()
            expect(EventLog.read(path: path).isEmpty)
            sink.write(Self.event(EventSink.maxHeld - 1))
            sink.flushIfDue()
            expectEqual(EventLog.read(path: path).count, EventSink.maxHeld)
            sink.write(Self.event(0))
            clock.nanoseconds += EventSink.maxHeldNanoseconds - 1
            sink.flushIfDue()
            expectEqual(EventLog.read(path: path).count, EventSink.maxHeld)
            clock.nanoseconds += 1
            sink.flushIfDue()
            expectEqual(EventLog.read(path: path).count, EventSink.maxHeld + 1)
        }
    }

    @Test("the time limit runs from the oldest event held, and starts again after a flush")  // R: P5
    func ageFromTheOldest() throws {
        try Self.withSink { sink, path, clock throws in
            sink.write(Self.event(1))
            clock.nanoseconds += EventSink.maxHeldNanoseconds / 2
            sink.write(Self.event(2))
            clock.nanoseconds += EventSink.maxHeldNanoseconds / 2
            sink.flushIfDue()
            expectEqual(EventLog.read(path: path), [Self.event(1), Self.event(2)], "due by the first event's age")
            clock.nanoseconds += EventSink.maxHeldNanoseconds
            sink.write(Self.event(3))
            sink.flushIfDue()
            expectEqual(EventLog.read(path: path).count, 2, "a new first event starts the time again")
        }
    }

    @Test("a line left half-written by a killed node is cut off when the log is opened again")  // R: P5
    func tornTail() throws {
        let path = NSTemporaryDirectory() + "pairsim-sink-\(UInt32.random(in: 0...UInt32.max)).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let whole = Self.event(1).jsonLine + [0x0A]
        try Data(whole + Array(Self.event(2).jsonLine.prefix(17))).write(to: URL(fileURLWithPath: path))
        do {
            let sink = try EventSink(path: path, echo: false, color: false)
            sink.write(Self.event(3))
        }
        expectEqual(EventLog.read(path: path), [Self.event(1), Self.event(3)])
        // Only a torn line: nothing is left of it. A whole log: nothing is cut.
        try Data(Array(Self.event(2).jsonLine.prefix(17))).write(to: URL(fileURLWithPath: path))
        _ = try EventSink(path: path, echo: false, color: false)
        try expect(Data(contentsOf: URL(fileURLWithPath: path)).isEmpty)
        let long: [UInt8] = (0..<200).flatMap { Self.event($0).jsonLine + [0x0A] }
        try Data(long).write(to: URL(fileURLWithPath: path))
        _ = try EventSink(path: path, echo: false, color: false)
        expectEqual(EventLog.read(path: path).count, 200)
    }

    @Test("the last events are written when the sink goes away")  // R: P5
    func writtenAtTheEnd() throws {
        let path = NSTemporaryDirectory() + "pairsim-sink-\(UInt32.random(in: 0...UInt32.max)).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let sink = try EventSink(path: path, echo: false, color: false)
            sink.write(Self.event(1))
        }
        expectEqual(EventLog.read(path: path), [Self.event(1)])
    }
}
