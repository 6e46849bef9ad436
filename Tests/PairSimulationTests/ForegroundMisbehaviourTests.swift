import Foundation
import PairSimApps
@testable import PairSimCore
import PairSimKit
import Testing
import TestSupport
@testable import PairSimConfig
@testable import PairSimulation

/// Misbehaviour the app shows while on screen is reported as it is in the background (R: F8).
@Suite("Foreground misbehaviour is visible")
struct ForegroundMisbehaviourTests {
    /// Observes workouts with background delivery and never calls a completion handler; with
    /// `late`, sets its query up only when its screen first becomes active.
    final class Careless: PairSimApp {
        let store = HKHealthStore()
        let late: Bool
        var observing = false
        init(late: Bool) { self.late = late }
        func didFinishLaunching(_ options: LaunchOptions) { if !late { observe() } }
        func scenePhaseDidChange(to phase: AppScenePhase) { if late, phase == .active, !observing { observe() } }
        func observe() {
            observing = true
            store.enableBackgroundDelivery(for: .workoutType(), frequency: .immediate) { _, _ in }
            store.execute(HKObserverQuery(sampleType: .workoutType(), predicate: nil) { _, _, _ in })
        }
    }

    static func run(late: Bool, _ timeline: String) throws -> Simulator {
        let scenario = try ScenarioLoader.parse(yaml: """
            name: careless
            duration: 2h
            topology: default
            timeline:
            \(timeline)
            """, file: Repository.scenarios + "/inline.yaml")
        var simulator = Simulator(scenario: scenario, app: AppRegistration(name: "careless", summary: "", actions: [], make: { Careless(late: late) }), watchApp: try! AppCatalog.watchApp(for: scenario.topology))
        simulator.run()
        return simulator
    }

    static func counter(_ simulator: Simulator, _ name: String) -> JSON? {
        simulator.events.last { $0.node == .phone && $0.name == "node.stopped" }?[name]
    }

    @Test("an observer callback on screen never completed: observer.completion.missed 30 s later, counted, not in the backoff")  // R: F8
    func onScreenCompletionMissed() throws {
        let run = try Self.run(late: false, """
              - { at: 10m, watch: start-workout running }
              - { at: 20m, watch: finish-workout }
            """)
        let missed = run.events.filter { $0.name == "observer.completion.missed" }
        // The execute callback at launch and the workout's change callback, each 30 s after it came.
        let fired = run.events.filter { $0.node == .phone && $0.name == "observer.fired" }
        expect(fired.count == 2 && missed.count == 2, "\(fired.map(\.humanLine)) \(missed.map(\.humanLine))")
        expect(zip(fired, missed).allSatisfy { $1.at == $0.at + .seconds(30) && $1["type"] == "workout" })
        expectEqual(Self.counter(run, "onScreenMissedCompletions"), 2)
        expectEqual(Self.counter(run, "missedCompletions"), 0)
        expect(!run.events.contains { $0.name.hasPrefix("bgdelivery.missed") })
    }

    @Test("a callback the app completes, or one it gets off screen, is not reported here")  // R: F8
    func notReported() throws {
        let run = try Self.run(late: false, """
              - { at: 1m, phone: background }
              - { at: 10m, watch: start-workout running }
              - { at: 20m, watch: finish-workout }
            """)
        // The launch's callback came on screen; the workout's is a wake (its miss is HealthKit's).
        expectEqual(run.events.filter { $0.name == "observer.completion.missed" }.count, 1)
        expectEqual(Self.counter(run, "missedCompletions"), 3)
    }

    @Test("an observer set up after launching: the background launch's wake finds none, reported and counted")  // R: F8
    func registeredLate() throws {
        let run = try Self.run(late: true, """
              - { at: 1m, phone: background }
              - { at: 5m, phone: terminate }
              - { at: 10m, watch: start-workout running }
              - { at: 20m, watch: finish-workout }
            """)
        let missing = run.events.filter { $0.name == "observer.missing" }
        expectEqual(missing.count, 3, "the wake and HealthKit's two retries")
        expectEqual(Self.counter(run, "missingObservers"), 3)
        expect(run.events.contains { $0.name == "bgdelivery.stopped" })
    }
}
