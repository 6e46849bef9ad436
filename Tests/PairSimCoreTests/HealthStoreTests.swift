import Foundation
import Testing
@testable import PairSimCore

@Suite("HealthKit store and the app's lifecycle")
struct HealthStoreTests {
    @Test("holds every observed type, heart rate and workouts; saves by UUID once; deletes", arguments: SampleType.allCases)  // R: H1
    func everyType(type: SampleType) {
        var store = HealthStore()
        let sample = HealthSample(uuid: UUID(), type: type, start: .zero, end: .zero + .minutes(1),
                                  value: type.validRange.lowerBound, source: .other("scale-app"))
        let (first, ops) = store.save(workouts: [], samples: [sample])
        #expect(first.samples == [sample])
        #expect(first.changedTypes == [.sample(type)])
        #expect(ops.count == 1)
        let (again, _) = store.save(workouts: [], samples: [sample])
        #expect(again.samples.isEmpty && again.ignored == 1)
        #expect(store.latestSample(type) == sample)
        let (deleted, _) = store.delete([DeletedObject(uuid: sample.uuid, type: .sample(type))], now: .zero + .hours(1))
        #expect(deleted.map(\.uuid) == [sample.uuid])
        #expect(store.sampleCount == 0)
    }

    @Test("workouts keep their source; the latest is by end date")  // R: H1
    func workouts() {
        var store = HealthStore()
        let early = Workout(uuid: UUID(), activity: "walking", start: .zero, end: .zero + .minutes(30), activeDuration: .minutes(30),
                            activeEnergy: 100, source: .phoneApp)
        let late = Workout(uuid: UUID(), activity: "yoga", start: .zero + .minutes(10), end: .zero + .hours(1), activeDuration: .minutes(50),
                           activeEnergy: nil, source: .other("yoga-app"))
        _ = store.save(workouts: [late, early], samples: [])
        #expect(store.latestWorkout == late)
        #expect(store.workouts == [early, late])
        #expect(store.workout(late.uuid)?.source.name == "yoga-app")
        #expect(!late.source.isOwnAppGroup && early.source.isOwnAppGroup)
    }

    @Test("the app moves through its states by command, the lock apart from them")  // R: L1, L2
    func lifecycle() {
        var driver = PhoneDriver { $0.app.initialState = .notRunning }
        #expect(driver.phone.app == .notRunning)
        driver.run("launch")
        #expect(driver.phone.app == .foreground)
        driver.run("inactive")
        #expect(driver.phone.app == .inactive)
        driver.run("foreground")
        driver.run("background")
        #expect(driver.phone.app == .background)
        driver.advance(.seconds(31))
        #expect(driver.phone.app == .suspended)
        driver.run("terminate")
        #expect(driver.phone.app == .notRunning)
        driver.run("foreground")
        #expect(driver.phone.app == .foreground)
        driver.run("lock")
        #expect(driver.phone.locked && driver.phone.app == .background)
        driver.run("unlock")
        #expect(!driver.phone.locked && driver.phone.app == .background)
        driver.run("force-quit")
        #expect(driver.phone.app == .forceQuit)
        #expect(driver.refuse("terminate").contains("only ends apps in the background"))
        #expect(driver.refuse("background").contains("not on screen"))
        let states = driver.named(.appState).compactMap { $0["to"]?.stringValue }
        #expect(states == ["foreground", "inactive", "foreground", "background", "suspended", "notRunning", "foreground", "background", "forceQuit"])
    }
}
