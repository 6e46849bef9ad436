import Foundation
import PairSimApps
@testable import PairSimConfig
@testable import PairSimCore
import PairSimKit
import Testing
import TestSupport
@testable import PairSimulation

/// The seeds' watch app on PairSimKit (R: A10), driven as a node's loop drives it: its actions as
/// the user's, time passing through every deadline of the watch (the sensor's readings included).
struct WatchDriver {
    var watch: WatchNode
    var now = EmulatedInstant.zero
    var events: [Event] = []

    init(topology: Topology = ReferenceWatchAppTests.topology) throws {
        watch = WatchNode(topology: topology, boot: "b", app: try AppCatalog.watchApp(for: topology))
        events += watch.start(now: now).events
    }

    /// Runs `text` at `seconds` of emulated time, after everything due before it.
    @discardableResult
    mutating func at(_ seconds: Int64, _ text: String) -> CommandResult {
        advance(to: .zero + .seconds(seconds))
        let result = watch.handle(commandText: text, now: now)
        events += result.actions.events
        return result
    }

    mutating func advance(to target: EmulatedInstant) {
        while let next = watch.nextDeadline, next <= target {
            now = max(now, next)
            events += watch.advance(to: now).events
        }
        now = max(now, target)
        events += watch.advance(to: now).events
    }

    static func run(_ commands: [(Int64, String)]) throws -> (WatchDriver, [CommandResult]) {
        var driver = try WatchDriver()
        let results = commands.map { driver.at($0.0, $0.1) }
        return (driver, results)
    }
}

@Suite("The reference watch app")
struct ReferenceWatchAppTests {
    static let topology = Topology(name: "t", nodes: [
        .watch: NodeEndpoints(publish: "ipc://w", control: "ipc://wc", data: "w"),
        .phone: NodeEndpoints(publish: "ipc://p", control: "ipc://pc", data: "p"),
    ])

    @Test("finishing saves the workout its builder collected, and one record per exercise linked to its UUID")  // R: W1, W3, A10
    func finish() throws {
        let (driver, results) = try WatchDriver.run([(0, "start-workout strength"), (1_800, "finish-workout")])
        expect(results.allSatisfy { $0.ok }, "\(results.map(\.reply))")
        let workout = try #require(driver.watch.store.latestWorkout)
        expectEqual(workout.activeDuration, .minutes(30))
        expect(workout.activeEnergy! > 0)
        // The sensor read at the start and every 5 s of active time, each reading saved as it came.
        expectEqual(driver.watch.store.sampleCount(.heartRate), 361)
        expectEqual(driver.events.filter { $0.name == "workout.collected" }.count, 361)
        expectEqual(driver.watch.records.records.map(\.exercise).sorted(), ["Bench Press", "Deadlift", "Squat"])
        expect(driver.watch.records.records.allSatisfy { $0.healthKitWorkoutID == workout.uuid && $0.source == .watchApp })
        expect(driver.events.contains { $0.name == "workout.finished" && $0["samples"] == .int(361) })
        expect(results[1].reply.contains("workout=\(workout.uuid.text)") && results[1].reply.contains("records=3"), "\(results[1].reply)")
    }

    @Test("pause and resume exclude the pause from active time; the sensor rests meanwhile")  // R: W1, A10
    func pauseResume() throws {
        let (driver, results) = try WatchDriver.run([(0, "start-workout running"), (600, "pause"), (900, "resume"), (1_200, "finish-workout")])
        expect(results.allSatisfy { $0.ok }, "\(results.map(\.reply))")
        try expectEqual(#require(driver.watch.store.latestWorkout).activeDuration, .minutes(15))
        expectEqual(driver.watch.store.sampleCount(.heartRate), 181)
        let paused = driver.watch.store.samples(.heartRate).filter { $0.start > .zero + .seconds(600) && $0.start < .zero + .seconds(900) }
        expect(paused.isEmpty)
    }

    @Test("the same seed and actions give the same workout, samples and records")  // R: W2, P6, A10
    func deterministic() throws {
        let a = try WatchDriver.run([(0, "start-workout running"), (600, "finish-workout")]).0
        let b = try WatchDriver.run([(0, "start-workout running"), (600, "finish-workout")]).0
        expectEqual(a.watch.store.latestWorkout, b.watch.store.latestWorkout)
        expectEqual(a.watch.store.samples(.heartRate), b.watch.store.samples(.heartRate))
        expectEqual(a.watch.records.records, b.watch.records.records)
    }

    @Test("a failed finishWorkout saves the records with a nil workout ID")  // R: W4, A10
    func failedFinish() throws {
        let (driver, results) = try WatchDriver.run([(0, "start-workout running"), (10, "fail-finish"), (600, "finish-workout")])
        expect(results.allSatisfy { $0.ok })
        expectEqual(driver.watch.store.workoutCount, 0)
        expectEqual(driver.watch.records.records.map(\.healthKitWorkoutID), [nil])
        expect(results[2].reply.contains("without a workout"), "\(results[2].reply)")
    }

    @Test("crash and recover: the relaunched app recovers the session (the crash gap is not active time); without its builder no workout is saved")  // R: W4, A9, A10
    func crashRecover() throws {
        let (kept, keptResults) = try WatchDriver.run([(0, "start-workout running"), (300, "crash"), (400, "recover"), (700, "finish-workout")])
        expect(keptResults.allSatisfy { $0.ok }, "\(keptResults.map(\.reply))")
        expectEqual(kept.watch.store.latestWorkout?.activeDuration, .minutes(10))
        expect(kept.watch.records.records.count == 1 && kept.watch.records.records[0].healthKitWorkoutID == kept.watch.store.latestWorkout?.uuid)
        expect(kept.events.contains { $0.name == "workout.session" && $0["recovered"] == .bool(true) }, "the app called recoverActiveWorkoutSession")
        let (lost, lostResults) = try WatchDriver.run([(0, "start-workout running"), (300, "crash"), (400, "recover --no-builder"), (700, "finish-workout")])
        expect(lostResults.allSatisfy { $0.ok }, "\(lostResults.map(\.reply))")
        expectEqual(lost.watch.store.workoutCount, 0)
        expectEqual(lost.watch.records.records.map(\.healthKitWorkoutID), [nil])
        expect(lost.events.contains { $0.name == "workout.finish.failed" && $0["reason"] == "recovered session has no workout builder" })
        // Nothing to crash or recover without a session.
        var idle = try WatchDriver()
        expect(!idle.at(0, "crash").ok && !idle.at(1, "recover").ok)
    }

    @Test("an action on the app off screen opens it, as the user raising the wrist does, and leaves it after")  // R: A10
    func actionOpensTheApp() throws {
        var driver = try WatchDriver()
        expectEqual(driver.watch.platform.appState, .suspended, "launched off screen with nothing to do")
        let result = driver.at(60, "start-workout walking")
        expect(result.ok, "\(result.reply)")
        let screen = driver.events.filter { $0.name == "watch.app" }.map { $0["onScreen"] }
        expectEqual(screen, [.bool(true), .bool(false)])
        // Off screen again, the running session keeps it running in the background.
        expectEqual(driver.watch.platform.appState, .background)
        expect(driver.at(120, "finish-workout").ok)
        driver.advance(to: .zero + .seconds(200))
        expectEqual(driver.watch.platform.appState, .suspended)
        // An unknown activity is the app's refusal, with its usage.
        let refused = driver.at(300, "start-workout swim")
        expect(!refused.ok && refused.reply.contains("activity must be one of"), "\(refused.reply)")
        expect(!driver.at(301, "start-workout").reply.contains("ok"))
        expect(driver.at(302, "pause").reply.contains("no running session"))
    }

    @Test("generate-workouts: each workout is started and finished in the app as the user's actions, the sensor reading live between")  // R: A10
    func streamThroughTheApp() throws {
        var driver = try WatchDriver()
        expect(driver.at(0, "generate-workouts 3 --every 10m --duration 5m").ok)
        driver.advance(to: .zero + .minutes(40))
        expectEqual(driver.watch.store.workoutCount, 3)
        expectEqual(driver.watch.store.workouts.map(\.activeDuration), [.minutes(5), .minutes(5), .minutes(5)])
        expectEqual(driver.events.filter { $0.name == "workout.started" }.compactMap { $0["activity"]?.stringValue }, ["running", "walking", "cycling"])
        expectEqual(driver.watch.records.records.count, 3)
        expectEqual(driver.events.filter { $0.name == "workout.collected" }.count, 3 * 61)
        expect(!driver.events.contains { $0.name == "command.failed" })
        // A session the user started holds the stream's next start: refused, reported, and the stream goes on.
        expect(driver.at(41 * 60, "generate-workouts 2 --every 10m --duration 5m").ok)
        expect(driver.at(45 * 60, "start-workout yoga").ok)
        driver.advance(to: .zero + .minutes(70))
        expect(driver.events.contains { $0.name == "command.failed" && $0["command"] == "start-workout" && $0["source"] == "generate-workouts" })
    }

    @Test("the app's new records never reuse an id after its node restarts")  // R: A10, S5
    func idsAcrossRestarts() throws {
        var simulator = Simulator(try ScenarioLoader.parse(yaml: """
            name: restarts
            duration: 1h
            topology: { name: t, nodes: { watch: { publish: "ipc://w", control: "ipc://wc", data: "w" }, phone: { publish: "ipc://p", control: "ipc://pc", data: "p" } } }
            timeline:
              - { at: 1m, watch: start-workout strength }
              - { at: 5m, watch: finish-workout }
              - { at: 10m, watch: kill-node }
              - { at: 11m, watch: restart-node }
              - { at: 12m, watch: start-workout strength }
              - { at: 15m, watch: finish-workout }
            """, file: "inline"))
        simulator.run()
        expect(simulator.failedCommands.isEmpty, "\(simulator.failedCommands)")
        expect(simulator.watch.records.records.count == 6 && simulator.phoneRecords.records.count == 6)
    }

    @Test("with watch.workoutMessage the app tells the phone: sendMessage while reachable, transferUserInfo when not")  // R: X4, A10
    func workoutMessage() throws {
        func run(_ extra: String) throws -> [Event] {
            var simulator = Simulator(try ScenarioLoader.parse(yaml: """
                name: message
                duration: 1h
                topology: { name: t, nodes: { watch: { publish: "ipc://w", control: "ipc://wc", data: "w" }, phone: { publish: "ipc://p", control: "ipc://pc", data: "p" } }, watch: { workoutMessage: true } }
                timeline:
                  - { at: 1m, watch: start-workout running }
                \(extra)
                  - { at: 10m, watch: finish-workout }
                  - { at: 20m, watch: in-range }
                """, file: "inline"))
            simulator.run()
            expect(simulator.failedCommands.isEmpty, "\(simulator.failedCommands)")
            return simulator.events.filter { $0.node == .phone && $0.name == "watch.workoutFinished" }
        }
        try expectEqual(run("").map { $0["via"] }, [.string("message")])
        let late = try run("  - { at: 9m, watch: out-of-range }")
        expect(late.map { $0["via"] } == [.string("userInfo")] && late[0].at >= .zero + .minutes(20), "\(late.map(\.humanLine))")
    }
}
