import Testing
import TestSupport
@testable import PairSimCore
@testable import PairSimKit

/// Seed 000's edge-case table, row by row, plus the coordinator's rules (R: C1–C12).
@Suite("Phone: refresh coordination")
struct RefreshCoordinationTests {
    /// A launched app a few minutes in, with every launch load done.
    static func settled(_ configure: (inout PhoneConfig) -> Void = { _ in }) -> PhoneDriver {
        var driver = PhoneDriver(configure)
        driver.advance(.minutes(3))
        return driver
    }

    @Test("the first minute after launch is throttled")  // R: C2
    func throttledAfterLaunch() {
        var driver = PhoneDriver()
        // The execute callbacks at launch all ask, and are throttled.
        expectEqual(driver.count(.coordinatorThrottled), 8)
        driver.advance(.seconds(30))
        let mark = driver.mark
        driver.arrive(HealthObjectsBatch(samples: [driver.sample(.bodyMass, 70)]))
        expectEqual(driver.count(.coordinatorThrottled, from: mark), 1)
        expectEqual(driver.count(.coordinatorRefresh, from: mark), 0)
    }

    @Test("an accepted refresh invalidates the cache and reloads every tab")  // R: C1, C3
    func acceptedRefresh() {
        var driver = Self.settled()
        let mark = driver.mark
        driver.arrive(HealthObjectsBatch(samples: [driver.sample(.heartRateVariabilitySDNN, 50)]))
        expectEqual(driver.count(.coordinatorRefresh, from: mark), 1)
        expectEqual(driver.count(.cacheInvalidated, from: mark), 1)
        expectEqual(Set(driver.named(.tabReload, from: mark).compactMap { $0["tab"]?.stringValue }), ["today", "train", "wellness"])
        driver.advance(.seconds(5))
        expectEqual(driver.named(.tabLoaded, from: mark, "tab", "today").first?["hrv"]?.doubleValue, 50)
    }

    @Test("observer callbacks of one type within a minute: only the first is handled")  // R: C7
    func perTypeThrottle() {
        var driver = Self.settled()
        let mark = driver.mark
        driver.arrive(HealthObjectsBatch(samples: [driver.sample(.bodyMass, 70)]))
        driver.advance(.seconds(20))
        driver.arrive(HealthObjectsBatch(samples: [driver.sample(.bodyMass, 71)]))
        let throttled = driver.named(.coordinatorThrottled, from: mark)
        expectEqual(driver.count(.coordinatorRefresh, from: mark), 1)
        expectEqual(throttled.count, 1)
        expectEqual(throttled[0]["reason"]?.stringValue?.contains("bodyMass observer handled 20s ago"), true)
        expectEqual(throttled[0]["remaining"], "40s")
    }

    @Test("edge case: several types changing together — one refresh, the rest throttled")  // R: C8
    func manyTypesAtOnce() {
        var driver = Self.settled()
        let mark = driver.mark
        driver.arrive(HealthObjectsBatch(samples: [driver.sample(.heartRateVariabilitySDNN, 50), driver.sample(.restingHeartRate, 55),
                                                   driver.sample(.sleepAnalysis, 4, at: .hours(1)), driver.sample(.bodyMass, 70)]))
        expectEqual(driver.count(.coordinatorRefresh, from: mark), 1)
        expectEqual(driver.count(.coordinatorThrottled, from: mark), 3)
        expectEqual(driver.count(.snapshotFetch, from: mark, "joined", "false"), 1)
    }

    @Test("edge case: two foreground returns within a minute — the second is throttled")  // R: C2, C6
    func twoForegroundReturns() {
        var driver = Self.settled()
        driver.run("background")
        driver.advance(.minutes(2))
        let mark = driver.mark
        driver.run("foreground")
        expectEqual(driver.count(.coordinatorRefresh, from: mark, "source", "foreground"), 1)
        driver.run("background")
        driver.advance(.seconds(10))
        driver.run("foreground")
        expectEqual(driver.count(.coordinatorRefresh, from: mark), 1)
    }

    @Test("a return to the foreground is throttled on the last refresh, not on the time away")  // R: C6, C2
    func foregroundOnLastRefresh() {
        var driver = Self.settled() // three minutes after launch, which counts as the last refresh
        driver.run("background")
        driver.advance(.seconds(30))
        var mark = driver.mark
        driver.run("foreground")
        expectEqual(driver.count(.coordinatorRefresh, from: mark, "source", "foreground"), 1, "a 30-second trip away refreshes")
        driver.advance(.seconds(20))
        driver.run("background")
        driver.advance(.minutes(5))
        mark = driver.mark
        driver.run("foreground")
        // Five minutes away, but the last refresh was 5 min 20 s ago: accepted; 10 s later, throttled.
        expectEqual(driver.count(.coordinatorRefresh, from: mark, "source", "foreground"), 1)
        driver.advance(.seconds(5))
        driver.run("background")
        driver.advance(.seconds(5))
        mark = driver.mark
        driver.run("foreground")
        expectEqual(driver.count(.coordinatorThrottled, from: mark, "source", "foreground"), 1)
    }

    @Test("option timeAway: back after less than a minute: nothing; after a minute or more: a refresh")  // R: C6
    func foregroundThreshold() {
        var driver = Self.settled { $0.refresh.foregroundRule = .timeAway }
        driver.run("background")
        driver.advance(.seconds(59))
        var mark = driver.mark
        driver.run("foreground")
        expectEqual(driver.count(.coordinatorRefresh, from: mark) + driver.count(.coordinatorThrottled, from: mark), 0)
        driver.advance(.minutes(2))
        driver.run("background")
        driver.advance(.seconds(60))
        mark = driver.mark
        driver.run("foreground")
        expectEqual(driver.count(.coordinatorRefresh, from: mark, "source", "foreground"), 1)
    }

    @Test("pull-to-refresh bypasses the throttle and reloads only its tab")  // R: C4
    func pullToRefresh() {
        var driver = PhoneDriver()
        driver.advance(.seconds(5))
        let mark = driver.mark
        driver.run("pull-to-refresh wellness")
        expectEqual(driver.count(.coordinatorThrottled, from: mark), 0)
        expectEqual(driver.count(.cacheInvalidated, from: mark), 1)
        expectEqual(driver.named(.tabReload, from: mark).map { $0["tab"]?.stringValue }, ["wellness"])
        expectEqual(driver.phone.counters.app["refresh.pullToRefresh"], 1)
    }

    @Test("edge case: an observer firing as the app goes to background — completion called, only invalidation")  // R: C5, O7
    func observerWhileBackgrounding() {
        var driver = Self.settled()
        driver.run("background")
        let mark = driver.mark
        driver.arrive(HealthObjectsBatch(samples: [driver.sample(.restingHeartRate, 54)]))
        expectEqual(driver.count(.observerFired, from: mark, "trigger", "change"), 1)
        expectEqual(driver.count(.cacheInvalidated, from: mark, "reason", "backgroundDelivery"), 1)
        expectEqual(driver.count(.coordinatorRefresh, from: mark), 0)
        expectEqual(driver.count(.tabReload, from: mark), 0)
        let completions = driver.phone.counters.completions
        driver.advance(.seconds(1))
        expectEqual(driver.phone.counters.completions, completions + 1)
    }

    @Test("edge case: invalidation during an in-flight fetch lets it finish and marks it expired")  // R: C9
    func invalidationDuringFetch() {
        var driver = Self.settled()
        driver.run("pull-to-refresh today")
        let mark = driver.mark
        driver.advance(.milliseconds(300))
        driver.run("pull-to-refresh train") // invalidates while today's fetch is in flight
        expect(driver.named(.cacheInvalidated, from: mark).first?["inFlight"] != nil)
        driver.advance(.seconds(5))
        let fetched = driver.named(.snapshotFetched, from: mark)
        expectEqual(fetched.first?["expired"], true)
        expectEqual(driver.count(.tabLoaded, from: mark, "tab", "today"), 1)
        expectEqual(driver.count(.tabLoaded, from: mark, "tab", "train"), 1)
        // The expired result is not served from the cache: the next load queries again.
        let again = driver.mark
        driver.run("pull-to-refresh wellness")
        expectEqual(driver.count(.snapshotFetch, from: again, "joined", "false"), 1)
    }

    @Test("edge case: background delivery and foreground at the same moment — one fetch")  // R: C9
    func wakeAndForegroundTogether() {
        var driver = Self.settled()
        driver.run("background")
        driver.advance(.minutes(2))
        let mark = driver.mark
        driver.arrive(HealthObjectsBatch(samples: [driver.sample(.heartRateVariabilitySDNN, 48)]))
        driver.run("foreground")
        driver.advance(.seconds(5))
        expectEqual(driver.count(.bgdeliveryWake, from: mark), 1)
        expectEqual(driver.count(.cacheInvalidated, from: mark), 2)
        expectEqual(driver.count(.snapshotFetch, from: mark, "joined", "false"), 1)
    }

    @Test("edge case: no permission at all — observers still register and fire at execute; pull-to-refresh and foreground work")  // R: H3, C4, C6
    func noPermission() {
        var driver = Self.settled { $0.healthKit.denied = Set(ObjectType.all) }
        expectEqual(driver.observers, ObjectType.observed, "the app cannot know; HealthKit accepts the queries")
        expectEqual(driver.count(.observerFired, "trigger", "execute"), 8)
        expectEqual(driver.count(.bgdeliveryEnabled), 8)
        var mark = driver.mark
        driver.run("pull-to-refresh today")
        driver.advance(.seconds(5))
        expectEqual(driver.count(.tabLoaded, from: mark, "tab", "today"), 1)
        driver.run("background")
        driver.advance(.minutes(2))
        mark = driver.mark
        driver.run("foreground")
        expectEqual(driver.count(.coordinatorRefresh, from: mark, "source", "foreground"), 1)
    }

    @Test("edge case: force-quit then relaunch — delivery re-registered, tabs load fresh")  // R: O6, C2
    func forceQuitRelaunch() {
        var driver = Self.settled()
        driver.run("force-quit")
        expect(driver.observers.isEmpty)
        let mark = driver.mark
        driver.run("launch")
        expectEqual(driver.count(.bgdeliveryEnabled, from: mark), 8)
        expectEqual(driver.count(.tabReload, from: mark, "source", "launch"), 3)
        expectEqual(driver.count(.coordinatorThrottled, from: mark), 8)
    }

    @Test("a new reload cancels the tab's previous load, which never updates the tab")  // R: C10
    func cancelBeforeSpawn() {
        var driver = Self.settled()
        let mark = driver.mark
        driver.run("pull-to-refresh today")
        driver.advance(.milliseconds(100))
        driver.run("pull-to-refresh today")
        driver.advance(.seconds(5))
        expectEqual(driver.count(.tabLoadCancelled, from: mark), 1)
        let loaded = driver.named(.tabLoaded, from: mark, "tab", "today")
        expectEqual(loaded.count, 1)
        expectEqual(loaded.first?["load"], driver.named(.tabReload, from: mark, "tab", "today").last?["load"], "the newest load")
        expectEqual(driver.appCount("cancelledLoads"), 1)
    }

    @Test("with tab mapping, an HRV change reloads only Today and Train")  // R: C11
    func tabMapping() {
        var driver = Self.settled { $0.refresh.tabMapping = true }
        let mark = driver.mark
        driver.arrive(HealthObjectsBatch(samples: [driver.sample(.heartRateVariabilitySDNN, 50)]))
        expectEqual(Set(driver.named(.tabReload, from: mark).compactMap { $0["tab"]?.stringValue }), ["today", "train"])
    }

    @Test("the cache serves within its TTL and queries again after")  // R: C9, C12
    func cacheTTL() {
        var driver = Self.settled()
        let hits = driver.appCount("cacheHits")
        driver.advance(.minutes(1))
        driver.run("pull-to-refresh today")
        driver.advance(.seconds(5))
        let queries = driver.phone.counters.queries, misses = driver.appCount("cacheMisses")
        // Train reloading within the TTL (records imported: SwiftData's live query) reads the cache.
        driver.arrive(RecordsBatch(saved: [WorkoutFeatureTests.record(0, linkedTo: nil)]))
        expectEqual(driver.appCount("cacheHits"), hits + 1)
        expectEqual(driver.phone.counters.queries, queries)
        driver.advance(.minutes(6))
        driver.arrive(RecordsBatch(saved: [WorkoutFeatureTests.record(10, linkedTo: nil)]))
        expectEqual(driver.appCount("cacheMisses"), misses + 1, "after the TTL it queries again")
    }
}
