import Foundation
import PairSimKit
import Testing
import TestSupport

/// docs/APPS.md's recipe for code under `#if os(iOS)` (R: A15): on Linux `os(iOS)` is false, so a
/// delegate method inside it silently disappears; `|| PAIRSIM_IOS`, defined by the package that
/// builds the app under PairSim (this test target does, as docs/APPS.md says), keeps it.
@Suite("#if os(iOS) code under PairSim")
struct ConditionalCompilationTests {
    final class Delegate: NSObject, WCSessionDelegate {
        var calls: [String] = []
        func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: Error?) {}

        #if os(iOS) || PAIRSIM_IOS
        func sessionDidDeactivate(_ session: WCSession) { calls.append("sessionDidDeactivate") }
        #endif

        #if os(iOS)
        func sessionDidBecomeInactive(_ session: WCSession) { calls.append("sessionDidBecomeInactive") }
        #endif
    }

    @Test("a delegate method under #if os(iOS) || PAIRSIM_IOS is compiled and called; under #if os(iOS) alone it is not")  // R: A15
    func recipeKeepsTheBranch() {
        let delegate = Delegate()
        let asDelegate: any WCSessionDelegate = delegate
        asDelegate.sessionDidDeactivate(WCSession.default)
        asDelegate.sessionDidBecomeInactive(WCSession.default)
        expectEqual(delegate.calls, ["sessionDidDeactivate"], "the os(iOS)-only one fell to PairSimKit's default, as docs/APPS.md warns")
    }
}
