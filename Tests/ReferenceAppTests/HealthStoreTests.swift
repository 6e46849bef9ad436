import Foundation
import Testing
import TestSupport
@testable import PairSimCore
@testable import PairSimKit

@Suite("HealthKit store and the app's lifecycle")
struct HealthStoreTests {
    @Test("holds every observed type, heart rate and workouts; saves by UUID once; deletes", arguments: SampleType.allCases)  // R: H1
    func everyType(type: SampleType) {
        var store = HealthStore()
        let sample = HealthSample(uuid: UUID(), type: type, start: .zero, end: .zero + .minutes(1),
                                  value: type.validRange.lowerBound, source: .other("scale-app"))
        let (first, ops) = store.save(workouts: [], samples: [sample])
        expectEqual(first.samples, [sample])
        expectEqual(first.changedTypes, [.sample(type)])
        expectEqual(ops.count, 1)
        let (again, _) = store.save(workouts: [], samples: [sample])
        expect(again.samples.isEmpty && again.ignored == 1)
        expectEqual(store.latestSample(type), sample)
        let (deleted, _) = store.delete([DeletedObject(uuid: sample.uuid, type: .sample(type))], now: .zero + .hours(1))
        expectEqual(deleted.map(\.uuid), [sample.uuid])
        expectEqual(store.sampleCount, 0)
    }

    @Test("workouts keep their source; the latest is by end date")  // R: H1
    func workouts() {
        var store = HealthStore()
        let early = Workout(uuid: UUID(), activity: "walking", start: .zero, end: .zero + .minutes(30), activeDuration: .minutes(30),
                            activeEnergy: 100, source: .phoneApp)
        let late = Workout(uuid: UUID(), activity: "yoga", start: .zero + .minutes(10), end: .zero + .hours(1), activeDuration: .minutes(50),
                           activeEnergy: nil, source: .other("yoga-app"))
        _ = store.save(workouts: [late, early], samples: [])
        expectEqual(store.latestWorkout, late)
        expectEqual(store.workouts, [early, late])
        expectEqual(store.workout(late.uuid)?.source.name, "yoga-app")
        expect(!late.source.isOwnAppGroup && early.source.isOwnAppGroup)
    }

    @Test("the app moves through its states by command, the lock apart from them")  // R: L1, L2
    func lifecycle() {
        var driver = PhoneDriver { $0.app.initialState = .notRunning }
        expectEqual(driver.phone.app, .notRunning)
        driver.run("launch")
        expectEqual(driver.phone.app, .foreground)
        driver.run("inactive")
        expectEqual(driver.phone.app, .inactive)
        driver.run("foreground")
        driver.run("background")
        expectEqual(driver.phone.app, .background)
        driver.advance(.seconds(6))
        expectEqual(driver.phone.app, .suspended)
        driver.run("terminate")
        expectEqual(driver.phone.app, .notRunning)
        driver.run("foreground")
        expectEqual(driver.phone.app, .foreground)
        driver.run("lock")
        expect(driver.phone.locked && driver.phone.app == .background)
        driver.run("unlock")
        expect(!driver.phone.locked && driver.phone.app == .foreground, "the app on screen at lock comes back")
        driver.run("force-quit")
        expectEqual(driver.phone.app, .forceQuit)
        expect(driver.refuse("terminate").contains("only ends apps in the background"))
        expect(driver.refuse("background").contains("not on screen"))
        let states = driver.named(.appState).compactMap { $0["to"]?.stringValue }
        expectEqual(states, ["foreground", "inactive", "foreground", "background", "suspended", "notRunning", "foreground", "background",
                           "foreground", "forceQuit"])
    }
}

@Suite("Store and app edge cases")
struct StoreEdgeCaseTests {
    @Test("deleting an unknown UUID reports nothing but refuses its late copy")  // R: S6, H2
    func deleteBeforeArrival() {
        var store = HealthStore()
        let sample = HealthSample(uuid: UUID(), type: .bodyMass, start: .zero, end: .zero, value: 70, source: .watchApp)
        let (deleted, ops) = store.delete([DeletedObject(uuid: sample.uuid, type: .sample(.bodyMass))], now: .zero)
        expect(deleted.isEmpty)
        expectEqual(ops, [.blockIDs([sample.uuid])])
        expect(store.tombstones.isEmpty)
        expect(store.save(workouts: [], samples: [sample]).0.samples.isEmpty)
    }

    @Test("a batch deleting many samples removes exactly those")  // R: H1
    func batchDelete() {
        var store = HealthStore()
        let samples = (0..<1_000).map { i in
            HealthSample(uuid: UUID(), type: i % 2 == 0 ? .heartRate : .stepCount, start: .zero, end: .zero, value: 100, source: .watchApp)
        }
        _ = store.save(workouts: [], samples: samples)
        let doomed = samples.enumerated().filter { $0.offset % 3 == 0 }.map { DeletedObject(uuid: $0.element.uuid, type: .sample($0.element.type)) }
        let (deleted, _) = store.delete(doomed, now: .zero)
        expectEqual(Set(deleted.map(\.uuid)), Set(doomed.map(\.uuid)))
        expectEqual(store.sampleCount, 1_000 - doomed.count)
    }

    @Test("packed samples keep hundreds of distinct sources")  // R: S7
    func manySources() throws {
        let samples = (0..<600).map { i in
            HealthSample(uuid: UUID(), type: .heartRate, start: .zero, end: .zero, value: 90, source: .other("app-\(i)"))
        }
        try expectEqual(SampleCodec.unpack(SampleCodec.pack(samples)), samples)
    }

    @Test("locked: a deferred wake comes after unlock, and later changes still wake")  // R: H4, O4
    func deferredWakeNotStuck() {
        var driver = BackgroundDeliveryTests.suspended()
        driver.arrive(HealthObjectsBatch(samples: [driver.sample(.heartRateVariabilitySDNN, 40)]))
        driver.advance(.minutes(5))
        driver.run("lock")
        let mark = driver.mark
        driver.arrive(HealthObjectsBatch(samples: [driver.sample(.heartRateVariabilitySDNN, 41)]))
        driver.advance(.minutes(5))
        driver.run("unlock")
        driver.advance(.minutes(5))
        driver.arrive(HealthObjectsBatch(samples: [driver.sample(.heartRateVariabilitySDNN, 42)]))
        driver.advance(.minutes(5))
        expectEqual(driver.count(.bgdeliveryWake, from: mark), 2)
    }

    @Test("a fetch frozen by suspension does not leave the tabs loading forever")  // R: C9, C10
    func fetchCutBySuspension() {
        var driver = PhoneDriver {
            $0.refresh.queryCost = .seconds(10) // 80 s per snapshot: longer than the background budget
        }
        driver.advance(.minutes(3))
        driver.run("pull-to-refresh today")
        driver.run("background")
        driver.advance(.minutes(2))
        expectEqual(driver.phone.app, .suspended)
        driver.run("foreground")
        driver.run("pull-to-refresh today")
        driver.advance(.minutes(3))
        // The frozen fetch resumed with the app; the newest load is the one the tab shows.
        expectEqual(driver.named(.tabLoaded, "tab", "today").last!["load"], driver.named(.tabReload, "tab", "today").last!["load"])
    }
}
