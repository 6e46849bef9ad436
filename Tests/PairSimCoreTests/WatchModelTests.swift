import Foundation
import Testing
@testable import PairSimCore

@Suite("Watch model")
struct WatchModelTests {
    static let topology = CommandGrammarTests.topology

    static func finished(_ commands: [(Int64, String)]) -> (WatchModel, [CommandResult]) {
        var watch = WatchModel(topology: topology, boot: "b")
        _ = watch.start(now: .zero)
        var results: [CommandResult] = []
        for (seconds, text) in commands {
            results.append(watch.handle(commandText: text, now: .zero + .seconds(seconds)))
        }
        return (watch, results)
    }

    @Test("finishing yields a workout with samples, energy and linked records")  // R: W1, W3
    func finish() throws {
        let (watch, results) = Self.finished([(0, "start-workout strength"), (1_800, "finish-workout")])
        #expect(results.allSatisfy { $0.ok })
        let workout = try #require(watch.store.latestWorkout)
        #expect(workout.activeDuration == .minutes(30))
        #expect(workout.activeEnergy! > 0)
        #expect(watch.store.sampleCount(.heartRate) == 361)
        #expect(watch.records.count == 3)
        #expect(watch.records.records.allSatisfy { $0.healthKitWorkoutID == workout.uuid })
        let events = results[1].actions.events.map(\.name)
        #expect(events.contains("workout.finished"))
        #expect(results[1].reply.contains("workout=\(workout.uuid.text)"))
    }

    @Test("pause and resume exclude the pause from active time")  // R: W1
    func pauseResume() throws {
        let (watch, results) = Self.finished([(0, "start-workout running"), (600, "pause"), (900, "resume"), (1_200, "finish-workout")])
        #expect(results.allSatisfy { $0.ok })
        #expect(try #require(watch.store.latestWorkout).activeDuration == .minutes(15))
    }

    @Test("the same seed and commands give the same workout")  // R: W2, P6
    func deterministic() {
        let a = Self.finished([(0, "start-workout running"), (600, "finish-workout")]).0
        let b = Self.finished([(0, "start-workout running"), (600, "finish-workout")]).0
        #expect(a.store.latestWorkout == b.store.latestWorkout)
        #expect(a.store.samples(.heartRate) == b.store.samples(.heartRate))
    }

    @Test("a failed finish saves records with a nil workout ID")  // R: W4
    func failedFinish() {
        let (watch, results) = Self.finished([(0, "start-workout running"), (10, "fail-finish"), (600, "finish-workout")])
        #expect(results.allSatisfy { $0.ok })
        #expect(watch.store.workoutCount == 0)
        #expect(watch.records.count == 1)
        #expect(watch.records.records[0].healthKitWorkoutID == nil)
    }

    @Test("crash and recover resume the session; without a builder no workout is made")  // R: W4
    func crashRecover() {
        let kept = Self.finished([(0, "start-workout running"), (300, "crash"), (400, "recover"), (700, "finish-workout")])
        #expect(kept.1.allSatisfy { $0.ok })
        #expect(kept.0.store.latestWorkout?.activeDuration == .minutes(10))
        let lost = Self.finished([(0, "start-workout running"), (300, "crash"), (400, "recover --no-builder"), (700, "finish-workout")])
        #expect(lost.1.allSatisfy { $0.ok })
        #expect(lost.0.store.workoutCount == 0)
        #expect(lost.0.records.records.allSatisfy { $0.healthKitWorkoutID == nil })
    }

    @Test("write-sample saves each observed type", arguments: ["hrv 48", "rhr 55", "sleep deep", "steps 1200",
                                                              "weight 70.5", "bodyfat 0.18", "bmi 22.1"])  // R: W5
    func writeSample(arguments: String) {
        let (watch, results) = Self.finished([(0, "write-sample \(arguments)")])
        #expect(results[0].ok, "\(results[0].reply)")
        #expect(watch.store.sampleCount == 1)
        #expect(results[0].actions.frames.count == 1)
    }

    @Test("an import whose check stops the watch three times at one place is given up, not run again on every restart")  // R: E4
    func importGivenUpAfterThreeStops() throws {
        var job = HealthImportJob(request: HealthImportRequest(path: "/nowhere/export.xml"), fingerprint: "")
        job.done = 20_000
        var state = PersistedState()
        state.values.insert(.watchImport(job))
        var watch = WatchModel(topology: Self.topology, boot: "w")
        for restart in 1...3 {
            try watch.restore(state, now: .zero)
            #expect(watch.healthImport?.stops == restart)
            state.values.insert(.watchImport(watch.healthImport!))
        }
        let actions = watch.advance(to: .zero + .seconds(1))
        let failed = try #require(actions.events.first { $0.name == EventName.importFailed.rawValue })
        #expect(failed["reason"]?.stringValue?.contains("stopped 3 times in a row") == true, "\(failed)")
        #expect(watch.healthImport == nil)
        // Stopped at another place, the count starts again.
        var moved = job
        (moved.stops, moved.stoppedAt, moved.done) = (2, 20_000, 40_000)
        state.values.insert(.watchImport(moved))
        var other = WatchModel(topology: Self.topology, boot: "w")
        try other.restore(state, now: .zero)
        #expect(other.healthImport?.stops == 1 && other.healthImport?.stoppedAt == 40_000)
    }
}
