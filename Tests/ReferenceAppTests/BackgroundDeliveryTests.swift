import Foundation
import Testing
import TestSupport
@testable import PairSimCore
@testable import PairSimKit

@Suite("Phone: observers and background delivery, in emulated time")
struct BackgroundDeliveryTests {
    /// A launched app, sent to the background and suspended.
    static func suspended(_ configure: (inout PhoneConfig) -> Void = { _ in }) -> PhoneDriver {
        var driver = PhoneDriver(configure)
        driver.advance(.minutes(2))
        driver.run("background")
        driver.advance(.minutes(1))
        precondition(driver.phone.app == .suspended)
        return driver
    }

    @Test("observers register at launch for the 8 types and fire once on execute")  // R: O1, O2
    func registerAtLaunch() {
        let driver = PhoneDriver()
        expectEqual(driver.observers, ObjectType.observed)
        expectEqual(driver.count(.observerFired, "trigger", "execute"), 8)
        expectEqual(driver.count(.bgdeliveryEnabled), 8)
    }

    @Test("a change fires the observer at once while the app runs, told only the type")  // R: O2, O3
    func changeWhileRunning() {
        var driver = PhoneDriver()
        driver.advance(.minutes(2))
        let mark = driver.mark
        driver.arrive(HealthObjectsBatch(samples: [driver.sample(.bodyMass, 71)]))
        expectEqual(driver.named(.observerFired, from: mark).map { $0["type"]?.stringValue }, ["bodyMass"])
        expectEqual(driver.count(.bgdeliveryWake, from: mark), 0)
    }

    @Test("an immediate type wakes the app for each change a minute apart")  // R: O4
    func immediate() {
        var driver = Self.suspended()
        let origin = driver.now
        let mark = driver.mark
        for _ in 0..<3 {
            driver.arrive(HealthObjectsBatch(samples: [driver.sample(.heartRateVariabilitySDNN, 50)]))
            driver.advance(.minutes(1))
        }
        expectEqual(driver.times(.bgdeliveryWake, from: mark, since: origin), [.zero, .minutes(1), .minutes(2)])
    }

    @Test("an hourly type's second wake waits for the hour; changes in between coalesce")  // R: O4
    func hourlyCeiling() {
        var driver = Self.suspended()
        let origin = driver.now
        let mark = driver.mark
        driver.arrive(HealthObjectsBatch(workouts: [driver.workout()]))
        driver.advance(.minutes(10))
        driver.arrive(HealthObjectsBatch(workouts: [driver.workout()]))
        driver.advance(.minutes(10))
        driver.arrive(HealthObjectsBatch(workouts: [driver.workout()]))
        driver.advance(.hours(2))
        expectEqual(driver.times(.bgdeliveryWake, from: mark, since: origin), [.zero, .hours(1)])
    }

    @Test("no change, no wake")  // R: O4
    func onlyWhenChanged() {
        var driver = Self.suspended()
        let mark = driver.mark
        driver.advance(.days(2))
        expectEqual(driver.count(.bgdeliveryWake, from: mark), 0)
    }

    @Test("iOS caps step count at hourly even when immediate is asked")  // R: O4
    func stepCountCap() {
        var driver = Self.suspended { $0.backgroundDelivery.frequencies[.sample(.stepCount)] = .immediate }
        expectEqual(driver.named(.bgdeliveryEnabled, "type", "stepCount").first?["frequency"], "hourly")
        expect(driver.named(.bgdeliveryEnabled, "type", "stepCount").first?["capped"] != nil)
        let origin = driver.now
        let mark = driver.mark
        for _ in 0..<4 {
            driver.arrive(HealthObjectsBatch(samples: [driver.sample(.stepCount, 500)]))
            driver.advance(.minutes(5))
        }
        driver.advance(.hours(1))
        expectEqual(driver.times(.bgdeliveryWake, from: mark, since: origin), [.zero, .hours(1)])
    }

    @Test("a wake resumes a suspended app in the background with a budget, then it suspends again")  // R: O5, L2
    func wakeBudget() {
        var driver = Self.suspended()
        let mark = driver.mark
        driver.arrive(HealthObjectsBatch(samples: [driver.sample(.heartRateVariabilitySDNN, 44)]))
        expectEqual(driver.phone.app, .background)
        expectEqual(driver.count(.observerFired, from: mark, "trigger", "wake"), 1)
        expectEqual(driver.count(.cacheInvalidated, from: mark, "reason", "backgroundDelivery"), 1)
        expectEqual(driver.count(.coordinatorRefresh, from: mark), 0)
        driver.advance(.seconds(1))
        expectEqual(driver.count(.bgdeliveryCompletion, from: mark), 1)
        driver.advance(.seconds(30))
        expectEqual(driver.phone.app, .suspended)
    }

    @Test("missed completions back off exponentially and stop delivery after three")  // R: O5
    func threeStrikes() {
        var driver = Self.suspended()
        driver.run("miss-completion hrv 3")
        let origin = driver.now
        let mark = driver.mark
        driver.arrive(HealthObjectsBatch(samples: [driver.sample(.heartRateVariabilitySDNN, 44)]))
        driver.advance(.hours(1))
        // Wake at 0; missed when the 30 s budget ends; retries after 1 min and 2 min of backoff.
        expectEqual(driver.times(.bgdeliveryWake, from: mark, since: origin), [.zero, .seconds(90), .seconds(240)])
        expectEqual(driver.named(.bgdeliveryBackoff, from: mark).map { $0["delay"]?.stringValue }, ["1m", "2m"])
        expectEqual(driver.count(.bgdeliveryMissed, from: mark), 3)
        expectEqual(driver.count(.bgdeliveryStopped, from: mark), 1)
        // Stopped: further changes bring no wake until the next launch.
        let after = driver.mark
        driver.arrive(HealthObjectsBatch(samples: [driver.sample(.heartRateVariabilitySDNN, 45)]))
        driver.advance(.hours(1))
        expectEqual(driver.count(.bgdeliveryWake, from: after), 0)
        driver.run("foreground")
        driver.run("force-quit")
        driver.run("launch")
        driver.run("background")
        driver.advance(.minutes(1))
        let relaunched = driver.mark
        driver.arrive(HealthObjectsBatch(samples: [driver.sample(.heartRateVariabilitySDNN, 46)]))
        expectEqual(driver.count(.bgdeliveryWake, from: relaunched), 1)
    }

    @Test("a wake launches a terminated app in the background, but never a force-quit one")  // R: O5, O6
    func terminatedVersusForceQuit() {
        var driver = Self.suspended()
        driver.run("terminate")
        var mark = driver.mark
        driver.arrive(HealthObjectsBatch(samples: [driver.sample(.restingHeartRate, 52)]))
        expectEqual(driver.named(.bgdeliveryWake, from: mark).first?["launched"], .bool(true))
        expectEqual(driver.phone.app, .background)
        driver.advance(.minutes(1))
        driver.run("force-quit")
        mark = driver.mark
        driver.arrive(HealthObjectsBatch(samples: [driver.sample(.restingHeartRate, 53)]))
        driver.advance(.hours(2))
        expectEqual(driver.count(.bgdeliveryWake, from: mark), 0)
        expectEqual(driver.count(.bgdeliverySkipped, from: mark), 1)
        driver.run("launch")
        expectEqual(driver.count(.bgdeliveryEnabled, from: mark), 8)
        expectEqual(driver.observers.count, 8)
    }

    @Test("registering observers only when the UI appears leaves background launches deaf")  // R: O1
    func lateRegistration() {
        var driver = PhoneDriver {
            $0.app.initialState = .notRunning
            $0.app.registerObserversAtLaunch = false
        }
        driver.run("launch")
        driver.run("background")
        driver.advance(.minutes(1))
        driver.run("terminate")
        let mark = driver.mark
        driver.arrive(HealthObjectsBatch(samples: [driver.sample(.heartRateVariabilitySDNN, 40)]))
        expectEqual(driver.count(.observerMissing, from: mark), 1)
        expectEqual(driver.count(.observerFired, from: mark), 0)
        driver.advance(.minutes(1))
        expectEqual(driver.count(.bgdeliveryMissed, from: mark), 1)
    }

    @Test("read denied: another source's data and its change are hidden; the phone app's own are not")  // R: H3, O2, O4
    func deniedReads() {
        var driver = BackgroundDeliveryTests.suspended { $0.healthKit.denied = [.sample(.heartRateVariabilitySDNN)] }
        expect(driver.observers.contains(.sample(.heartRateVariabilitySDNN)))
        var mark = driver.mark
        let foreign = HealthSample(uuid: UUID(), type: .heartRateVariabilitySDNN, start: driver.now, end: driver.now, value: 60,
                                   source: .other("oura"))
        driver.arrive(HealthObjectsBatch(samples: [foreign]))
        driver.advance(.minutes(2))
        expectEqual(driver.count(.hkHidden, from: mark, "type", "heartRateVariabilitySDNN"), 1)
        expectEqual(driver.count(.bgdeliveryPending, from: mark) + driver.count(.bgdeliveryWake, from: mark), 0, "no wake for a hidden change")
        expectEqual(driver.phone.store.sampleCount(.heartRateVariabilitySDNN), 1, "the store has it; the app cannot see it")
        driver.run("foreground")
        driver.advance(.minutes(2))
        driver.run("pull-to-refresh today")
        driver.advance(.seconds(5))
        expectEqual(driver.named(.tabLoaded, "tab", "today").last!["hrv"], .null, "reads as no data")
        expectEqual(driver.count(.hkQueryFailed), 0, "never an error")
        // Even the watch app's sample is another app's here ("only samples that your app saved").
        mark = driver.mark
        driver.arrive(HealthObjectsBatch(samples: [driver.sample(.heartRateVariabilitySDNN, 52)]))
        expectEqual(driver.count(.hkHidden, from: mark), 1)
        // The phone app's own sample of the same type is seen, and its change is noticed.
        driver.run("write-sample hrv 48 --source phone-app")
        expectEqual(driver.count(.observerFired, from: mark, "trigger", "change"), 1)
        driver.advance(.minutes(2))
        driver.run("pull-to-refresh today")
        driver.advance(.seconds(5))
        expectEqual(driver.named(.tabLoaded, "tab", "today").last!["hrv"]?.doubleValue, 48)
    }

    @Test("locked, seed 004's reading: arrivals are held, wakes come, reads fail, everything merges at unlock")  // R: H4
    func lockBuffering() {
        var driver = PhoneDriver { $0.healthKit.wakeWhileLocked = true }
        driver.advance(.minutes(2))
        driver.run("lock")
        expectEqual(driver.phone.app, .background)
        let mark = driver.mark
        driver.arrive(HealthObjectsBatch(workouts: [driver.workout()], samples: [driver.sample(.bodyMass, 72)]))
        expectEqual(driver.count(.hkBuffered, from: mark), 1)
        expectEqual(driver.phone.store.sampleCount, 0)
        driver.advance(.minutes(5))
        expect(driver.count(.hkQueryFailed, from: mark) >= 1, "the workout callback's latest-workout query fails")
        driver.run("unlock")
        expect(driver.phone.store.sampleCount == 1 && driver.phone.store.workoutCount == 1)
        expectEqual(driver.count(.hkMerged, from: mark), 1)
    }

    @Test("locked (the default, Apple's reading): no wake until unlock delivers it")  // R: H4
    func noWakeWhileLocked() {
        var driver = Self.suspended()
        driver.run("lock")
        let mark = driver.mark
        driver.arrive(HealthObjectsBatch(samples: [driver.sample(.heartRateVariabilitySDNN, 41)]))
        driver.advance(.hours(1))
        expectEqual(driver.count(.bgdeliveryWake, from: mark), 0)
        driver.run("unlock")
        expectEqual(driver.count(.bgdeliveryWake, from: mark), 1)
        expectEqual(driver.count(.hkQueryFailed, from: mark), 0)
    }

    @Test("anchored queries report deletions; tombstones are purged after retention")  // R: H2
    func anchoredAndTombstones() {
        var driver = PhoneDriver { $0.healthKit.tombstoneRetention = .hours(2) }
        driver.advance(.minutes(2))
        let sample = driver.sample(.bodyMass, 70)
        driver.arrive(HealthObjectsBatch(samples: [sample]))
        let (_, _, anchor) = driver.phone.store.anchoredQuery(.sample(.bodyMass), since: 0)
        driver.arrive(HealthObjectsBatch(deleted: [DeletedObject(uuid: sample.uuid, type: .sample(.bodyMass))]))
        let (added, deleted, _) = driver.phone.store.anchoredQuery(.sample(.bodyMass), since: anchor)
        expect(added.isEmpty && deleted.map(\.uuid) == [sample.uuid])
        expectEqual(driver.phone.store.tombstones.count, 1)
        driver.advance(.hours(4))
        expect(driver.phone.store.tombstones.isEmpty)
        expectEqual(driver.count(.hkTombstonesPurged), 1)
        // A late copy of the deleted object is not resurrected.
        driver.arrive(HealthObjectsBatch(samples: [sample]))
        expectEqual(driver.phone.store.sampleCount, 0)
    }
}
