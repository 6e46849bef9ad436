#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport
@testable import PairSimRuntime

@Suite("Hang guards that a stalled machine does not spend")
struct PatienceTests {
    // R: P2 — the launcher's and `topology down`'s waits for a process to stop are counted this way.
    @Test("a stall counts for one step at most; the budget still runs out")
    func stallCountsOnce() {
        var patience = Patience(seconds: 0.2, longestStep: 0.01)
        usleep(300_000)  // the process stands still longer than the whole budget
        expect(patience.wait(microseconds: 1_000), "one stall spent at most 0.01 s of 0.2 s")
        var steps = 1
        while patience.wait(microseconds: 1_000) { steps += 1 }
        // Each step counts at least its own 1 ms sleep, and at most 10 ms.
        expect(steps >= 19 && steps <= 200, "\(steps) steps")
        expect(!patience.remains)
    }
}
