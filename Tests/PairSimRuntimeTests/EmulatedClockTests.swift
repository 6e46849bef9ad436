#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PairSimCore
import Testing
import TestSupport
@testable import PairSimRuntime

@Suite("Emulated time in real runs")
struct EmulatedClockTests {
    @Test("now is time scale × (wall clock − epoch); two clocks with one epoch agree")  // R: S8
    func scaled() {
        let wall = Int64(EmulatedClock.wallMilliseconds())
        let clock = EmulatedClock(epochUnixMilliseconds: wall - 10_000, timeScale: 60)
        let other = EmulatedClock(epochUnixMilliseconds: wall - 10_000, timeScale: 60)
        let now = clock.now().milliseconds
        expect(now >= 600_000 && now < 600_000 + 60_000)
        expect(abs(other.now().milliseconds - now) < 60_000)
        expectEqual(clock.wallSeconds(.minutes(1)), 1)
    }

    @Test("a node started before the epoch reads zero, never a negative time")  // R: S8
    func beforeEpoch() {
        let clock = EmulatedClock(epochUnixMilliseconds: Int64(EmulatedClock.wallMilliseconds()) + 60_000, timeScale: 1)
        expectEqual(clock.now(), .zero)
    }

    @Test("the wall time until an emulated instant shrinks with the scale")  // R: S8
    func waitUntil() {
        let clock = EmulatedClock(epochUnixMilliseconds: Int64(EmulatedClock.wallMilliseconds()), timeScale: 60)
        let wait = clock.wallMilliseconds(until: clock.now() + .minutes(1))
        expect(wait > 900 && wait <= 1_001)
    }

    @Test("the wall clock is read once and then follows the monotonic clock: it never goes back")  // R: S8
    func monotonic() {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        let realtime = Double(spec.tv_sec) * 1_000 + Double(spec.tv_nsec) / 1_000_000
        expect(abs(EmulatedClock.wallMilliseconds() - realtime) < 1_000, "anchored to Unix time")
        var last = EmulatedClock.wallMilliseconds()
        for _ in 0..<10_000 {
            let now = EmulatedClock.wallMilliseconds()
            expect(now >= last)
            last = now
        }
    }

    @Test("a stepped clock is one value every mapping of its file reads; it only moves when set, and never back")  // R: S8, P6
    func stepped() throws {
        let path = NSTemporaryDirectory() + "pairsim-clock-\(UInt32.random(in: 0...UInt32.max))"
        defer { unlink(path) }
        let launcher = try SharedClock(path: path, create: true)
        let node = EmulatedClock(stepped: try SharedClock(path: path))
        expectEqual(node.now(), .zero)
        expectEqual(node.wallMilliseconds(until: .zero), 0)
        expectEqual(node.wallMilliseconds(until: .zero + .seconds(1)), .infinity, "a deadline ahead waits for the launcher, however long")
        launcher.set(.zero + .minutes(5))
        expectEqual(node.now(), .zero + .minutes(5))
        expectEqual(node.wallMilliseconds(until: .zero + .minutes(5)), 0)
        // The file is the documented 8 bytes: a little-endian count of milliseconds.
        let bytes = try #require(FileManager.default.contents(atPath: path))
        expectEqual(Array(bytes), withUnsafeBytes(of: Int64(300_000).littleEndian) { Array($0) })
        #expect(throws: RuntimeError.self) { try SharedClock(path: path + ".missing") }
        expect(FileManager.default.createFile(atPath: path + ".short", contents: Data([1, 2, 3])))
        defer { unlink(path + ".short") }
        #expect(throws: RuntimeError.self) { try SharedClock(path: path + ".short") }
    }
}
