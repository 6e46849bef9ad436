import Foundation
import Testing
import TestSupport
@testable import PairSimCore
@testable import PairSimKit

/// The platform rules as Apple documents them and the app rules as the seeds say (issue: fidelity).
@Suite("Fidelity: Apple's platform, the seeds' app")
struct FidelityTests {
    @Test("locked (default): no wake, no failed query, no locked notice; the workout is notified at unlock")  // R: H4, D6
    func lockedDefaultDeliversAtUnlock() {
        var driver = PhoneDriver()
        driver.advance(.minutes(2))
        driver.run("lock")
        driver.advance(.minutes(30))
        driver.arrive(HealthObjectsBatch(workouts: [driver.workout()]))
        driver.advance(.hours(2))
        expectEqual(driver.count(.bgdeliveryWake), 0)
        expectEqual(driver.count(.hkQueryFailed), 0)
        expectEqual(driver.count(.notificationPosted), 0)
        let unlockedAt = driver.now
        driver.run("unlock")
        expectEqual(driver.times(.notificationPosted, since: unlockedAt), [.zero], "at unlock, not an hourly window later")
        expectEqual(driver.named(.notificationPosted).first?["title"]?.stringValue, "Workout completed")
    }

    @Test("locked (default) with the app off screen: the deferred wake comes at unlock, its window unused")  // R: H4, O4
    func lockedOffScreenWakesAtUnlock() {
        var driver = BackgroundDeliveryTests.suspended()
        driver.run("lock")
        driver.arrive(HealthObjectsBatch(workouts: [driver.workout()]))
        driver.advance(.hours(3))
        let mark = driver.mark, unlockedAt = driver.now
        driver.run("unlock")
        expectEqual(driver.phone.app, .background, "woken, not brought to the screen: it was not frontmost")
        expectEqual(driver.times(.bgdeliveryWake, from: mark, since: unlockedAt), [.zero])
        expectEqual(driver.count(.notificationPosted, from: mark, "title", "Workout completed"), 1)
    }

    @Test("unlock brings back the app that was on screen; foreground and launch while locked are refused")  // R: L1, C6
    func unlockReturnsToForeground() {
        var driver = RefreshCoordinationTests.settled()
        driver.run("lock")
        driver.advance(.minutes(2))
        expectEqual(driver.phone.app, .suspended)
        expect(driver.refuse("foreground").contains("locked; unlock first"))
        let mark = driver.mark
        driver.run("unlock")
        expectEqual(driver.phone.app, .foreground)
        expectEqual(driver.count(.appState, from: mark, "reason", "unlock"), 1)
        expectEqual(driver.count(.coordinatorRefresh, from: mark, "source", "foreground"), 1, "the return refreshes like any other")
        driver.run("force-quit")
        driver.run("lock")
        expect(driver.refuse("launch").contains("locked; unlock first"))
        driver.run("unlock")
        expectEqual(driver.phone.app, .forceQuit, "an app that was not on screen stays where it was")
    }

    @Test("leaving the screen: suspended within seconds (5 s); a wake lasts until soon after its completion handler (1 s)")  // R: L2, F2
    func leavingTheScreen() {
        var driver = RefreshCoordinationTests.settled()
        let leftAt = driver.now
        driver.run("background")
        driver.advance(.minutes(1))
        let suspended = driver.named(.appState).last { $0["to"]?.stringValue == "suspended" }
        expectEqual(suspended.map { $0.at - leftAt }, .seconds(5))
        let mark = driver.mark
        driver.arrive(HealthObjectsBatch(samples: [driver.sample(.heartRateVariabilitySDNN, 44)]))
        let wokenAt = driver.now
        driver.advance(.minutes(1))
        // The reference app's handler takes 500 ms (handlerDuration); suspended 1 s after it completes.
        expectEqual(driver.named(.appState, from: mark).last.map { $0.at - wokenAt }, .milliseconds(1_500))
    }

    @Test("the app's observer handler runs no anchored query: a background HRV callback queries nothing")  // R: O2, O7
    func noAnchoredQueryPerCallback() {
        var driver = BackgroundDeliveryTests.suspended()
        let queries = driver.phone.counters.queries
        driver.arrive(HealthObjectsBatch(samples: [driver.sample(.heartRateVariabilitySDNN, 44)]))
        driver.advance(.seconds(1))
        expectEqual(driver.count(.observerFired, "trigger", "wake"), 1)
        expectEqual(driver.phone.counters.queries, queries, "it only invalidates the cache (seed 001)")
    }
}
