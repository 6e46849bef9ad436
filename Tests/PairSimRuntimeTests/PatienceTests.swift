#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TestSupport
@testable import PairSimRuntime

@Suite("Hang guards that a stalled machine does not spend")
struct PatienceTests {
    // R: P2 — the launcher's and `topology down`'s waits for a process to stop are counted this way.
    @Test("a stall counts for one step at most; the budget still runs out")
    func stallCountsOnce() {
        final class Clock: @unchecked Sendable { var nanoseconds: UInt64 = 1_000 }
        let clock = Clock()
        var patience = Patience(seconds: 0.2, longestStep: 0.01, clock: { clock.nanoseconds })
        clock.nanoseconds += 300_000_000  // the process stands still longer than the whole budget
        expect(patience.count(), "one stall spent at most 0.01 s of 0.2 s")
        var steps = 1
        repeat { clock.nanoseconds += 1_000_000; steps += 1 } while patience.count()
        // Each step counts at least its own 1 ms, and at most 10 ms.
        expect(steps >= 19 && steps <= 200, "\(steps) steps")
        expect(!patience.remains)
    }
}

@Suite("topology down knows a process by its pid and its start")
struct PairDownIdentityTests {
    // R: P2 — a pid given to another process since is neither waited for nor killed.
    @Test("the same pid with another start time is another process")
    func pidComeRound() throws {
        let started = try #require(PairDown.startTime(getpid()))
        expectEqual(PairDown.startTime(getpid()), started)
        // Field 22 and no other: after the parent's start, before now (clock ticks after boot).
        let parent = try #require(PairDown.startTime(getppid()))
        let uptime = try #require(Double(try String(contentsOfFile: "/proc/uptime", encoding: .utf8).split(separator: " ")[0]))
        expect(started > 0 && started >= parent && Double(started) <= uptime * Double(sysconf(Int32(_SC_CLK_TCK))) + 1,
               "\(started) against parent \(parent), uptime \(uptime) s")
        expect(PairDown.Known(pid: getpid(), started: started).isAlive)
        expect(!PairDown.Known(pid: getpid(), started: started + 1).isAlive)
        expect(PairDown.startTime(Int32.max) == nil)
        // This test process is not one of PairSim's programs: down would not touch it.
        expect(PairDown.Known(getpid()) == nil)
    }
}

@Suite("A control reply's wait")
struct ControlReplyWaitTests {
    // R: P3 — `topology ctl --timeout` ends when its waits are spent, in slices of at most 250 ms.
    @Test("a node that never answers: the wait ends, and says so", .timeLimit(.minutes(1)))
    func nobodyAnswers() {
        let client = ControlClient(endpoint: "ipc://\(NSTemporaryDirectory())pairsim-nobody-\(UInt32.random(in: 0...UInt32.max)).ctl",
                                   timeoutMilliseconds: 600)
        do {
            _ = try client.send("ping")
            Issue.record("a reply from nobody")
        } catch {
            expect("\(error)".contains("no reply from"), "\(error)")
        }
    }
}
