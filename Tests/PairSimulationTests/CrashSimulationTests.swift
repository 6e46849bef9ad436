import Foundation
import PairSimApps
@testable import PairSimCore
import PairSimKit
import Testing
import TestSupport
@testable import PairSimConfig
@testable import PairSimulation

/// The simulator runs the whole program, crashes included (R: V1–V3).
@Suite("Simulation with crashes and a nemesis")
struct CrashSimulationTests {
    /// A workout stream with a node killed mid-stream: the chaos e2e test's setting, in virtual time.
    static func stream(_ extra: String) throws -> Scenario {
        try ScenarioLoader.parse(yaml: """
            name: stream-with-kills
            duration: 3h
            topology:
              name: t
              seed: 5
              nodes:
                watch: { publish: "ipc://w", control: "ipc://wc", data: "w" }
                phone: { publish: "ipc://p", control: "ipc://pc", data: "p" }
              channels:
                healthkit: { latency: { uniform: [0s, 2s] }, loss: 0.2, duplicate: 0.1, reorder: 0.2 }
                cloudkit: { latency: { uniform: [0s, 5s] }, exportInterval: 5s, loss: 0.2 }
              watch:
                heartRate: { restingInterval: off }
            timeline:
              - { at: 1m, watch: "generate-workouts 24 --every 5m --duration 3m --first 5m" }
            \(extra)
            """, file: "inline")
    }

    /// Both nodes killed twice, once at nearly the same time.
    static let kills = """
          - { at: 20m, phone: kill-node }
          - { at: 26m, phone: restart-node }
          - { at: 40m, watch: kill-node }
          - { at: 41m, watch: restart-node }
          - { at: 70m, phone: kill-node }
          - { at: 71m, watch: kill-node }
          - { at: 90m, watch: restart-node }
          - { at: 95m, phone: restart-node }
        """

    static func ids(_ store: HealthStore) -> (Set<UUID>, Set<UUID>) {
        (Set(store.workouts.map(\.uuid)), Set(SampleType.allCases.flatMap { store.samples($0).map(\.uuid) }))
    }

    @Test("a node killed mid-stream restarts from what it committed: the stream goes on, and the phone ends with exactly what the watch has")  // R: V1, S5, A10
    func killAndRestart() throws {
        var calm = Simulator(try Self.stream(""))
        calm.run()
        var crashed = Simulator(try Self.stream(Self.kills))
        crashed.run()
        expect(crashed.failedCommands.isEmpty, "\(crashed.failedCommands)")
        expect(crashed.kills == [.watch: 2, .phone: 2] && crashed.down.isEmpty)
        expectEqual(crashed.events.filter { $0.name == "node.killed" }.count, 4)
        expectEqual(crashed.events.filter { $0.name == "node.started" && $0["restored"] == .bool(true) }.count, 4)
        // The stream is the user's workouts in the reference watch app, its sensor reading live:
        // a watch that is down reads nothing, so the kills change the samples (and the UUIDs drawn
        // after them), not the stream: every workout happens, and each reaches the phone once.
        expect(Self.ids(calm.watchStore).0.count == 24 && Self.ids(crashed.watchStore).0.count == 24, "the plan survives a watch kill")
        expectEqual(Self.ids(calm.phoneStore), Self.ids(calm.watchStore))
        expectEqual(Self.ids(crashed.phoneStore), Self.ids(crashed.watchStore), "nothing lost, nothing twice")
        expectEqual(Set(crashed.phoneRecords.records.map(\.id)), Set(crashed.watch.records.records.map(\.id)))
        expectEqual(crashed.phoneRecords.records.count, calm.phoneRecords.records.count)
        let saved = crashed.events.filter { $0.node == .phone && $0.name == "hk.saved" && $0["kind"] == "workout" }.compactMap { $0["uuid"]?.stringValue }
        expectEqual(saved.count, Set(saved).count, "no workout saved twice on the phone")
        // Same scenario and seed, same bytes, crashes included.
        var again = Simulator(try Self.stream(Self.kills))
        again.run()
        expectEqual(again.eventLog, crashed.eventLog)
    }

    @Test("commands for a node that is down wait for its restart")  // R: V1
    func postponed() throws {
        var simulator = Simulator(try ScenarioLoader.parse(yaml: """
            name: postponed
            duration: 1h
            topology: ../../Topologies/instant.yaml
            timeline:
              - { at: 1m, watch: kill-node }
              - { at: 2m, watch: "start-workout running" }
              - { at: 20m, watch: restart-node }
              - { at: 40m, watch: finish-workout }
            """, file: Repository.scenarios + "/inline.yaml"))
        simulator.run()
        expect(simulator.failedCommands.isEmpty, "\(simulator.failedCommands)")
        let started = try #require(simulator.events.first { $0.name == "workout.started" })
        expectEqual(started.at, .zero + .minutes(20))
        expectEqual(simulator.phoneStore.workouts.count, 1)
    }

    @Test("a watch killed while out of range comes back out of range: what it makes waits for in-range, which ends the partition as documented")  // R: K9
    func outOfRangeSurvivesKill() throws {
        var simulator = Simulator(try ScenarioLoader.parse(yaml: """
            name: out-of-range-kill
            duration: 2h
            topology: ../../Topologies/instant.yaml
            timeline:
              - { at: 1m, watch: out-of-range }
              - { at: 2m, watch: kill-node }
              - { at: 3m, watch: restart-node }
              - { at: 5m, watch: "write-sample weight 70.5" }
              - { at: 1h, watch: in-range }
            """, file: Repository.scenarios + "/inline.yaml"))
        simulator.run()
        expect(simulator.failedCommands.isEmpty, "\(simulator.failedCommands)")
        let saved = try #require(simulator.events.first { $0.node == .phone && $0.name == "hk.saved" && $0["type"] == "bodyMass" })
        expect(saved.at >= .zero + .hours(1), "held until in-range, not sent after the restart at 3m")
        let ends = simulator.events.filter { $0.node == .watch && $0.name == "sync.partition.end" }
        expect(ends.count == 2 && ends.allSatisfy { $0.at == .zero + .hours(1) && $0["reason"] == "out-of-range" }, "\(ends)")
    }

    @Test("the nemesis is drawn from the seed, stays in the first 90% of the run, and a correct build passes its invariants")  // R: V2, V3
    func nemesisInvariants() throws {
        let week = try ScenarioLoader.load(path: Repository.scenarios + "/week-of-normal-life.yaml")
        let spec = NemesisSpec(crashes: 8, partitions: 4)
        let drawn = Nemesis.draw(spec, seed: 3, duration: week.duration)
        expectEqual(drawn, Nemesis.draw(spec, seed: 3, duration: week.duration))
        expect(drawn != Nemesis.draw(spec, seed: 4, duration: week.duration))
        expect(drawn.filter { $0.driverCommand == .killNode }.count == 8 && drawn.filter { $0.command == "out-of-range" }.count == 4)
        expect(drawn.contains { $0.killsMidTurn } && drawn.contains { $0.driverCommand == .killNode && !$0.killsMidTurn })
        expect(drawn.allSatisfy { $0.at <= .zero + .milliseconds(week.duration.milliseconds * 9 / 10) })
        for seed: UInt64 in [3, 4] {
            var run = Simulator(week, seed: seed, nemesis: spec)
            expect(run.duration == week.duration + Nemesis.settle && Simulator(week, seed: seed, settled: true).duration == run.duration)
            run.run()
            expectEqual(run.kills[.watch]! + run.kills[.phone]!, 8)
            // The fault-free twin is played only if a verdict asks for it, as `swarm` does.
            let verdicts = Invariants.check(RunEnd(run)) {
                var calm = Simulator(week, seed: seed, settled: true)
                calm.run()
                return RunEnd(calm)
            }
            for verdict in verdicts { expect(verdict.passed, "seed \(seed): \(verdict.line)") }
        }
    }

    @Test("a fault burst raises loss only inside its window, and everything still arrives; the nemesis draws them from the seed")  // R: V2
    func burstWindow() throws {
        var scenario = try Self.stream("")
        let window = (EmulatedInstant.zero + .minutes(30))..<(EmulatedInstant.zero + .minutes(60))
        scenario.topology.channels[.healthkit]!.bursts = [FaultBurst(from: window.lowerBound, to: window.upperBound, loss: 0.95)]
        var simulator = Simulator(scenario)
        simulator.run()
        let lost = simulator.events.filter { $0.name == "sync.lost" && $0["channel"] == "healthkit" }
        let inside = lost.filter { window.contains($0.at) }.count
        expect(inside > 3 * (lost.count - inside), "\(inside) of \(lost.count) losses inside the burst")
        expectEqual(simulator.phoneStore.workouts.count, 24)
        let spec = NemesisSpec(bursts: 5)
        let bursts = Nemesis.bursts(spec, seed: 9, duration: .days(7))
        expect(bursts.count == 5 && bursts.map(\.1) == Nemesis.bursts(spec, seed: 9, duration: .days(7)).map(\.1))
        expect(bursts.allSatisfy { $0.1.to <= .zero + .milliseconds(EmulatedDuration.days(7).milliseconds * 9 / 10) })
    }

    /// Clean channels, one workout every 5 minutes: the phone's next turn after 9 min is the
    /// second workout arriving (10:01).
    static let phoneKilledAt9m = "  - { at: 9m, phone: \"kill-node --mid-turn\" }"
    static func midTurn(_ extra: String, partitions: String = "[]") throws -> Scenario {
        try ScenarioLoader.parse(yaml: """
            name: mid-turn
            duration: 40m
            topology:
              name: t
              seed: 5
              nodes:
                watch: { publish: "ipc://w", control: "ipc://wc", data: "w" }
                phone: { publish: "ipc://p", control: "ipc://pc", data: "p" }
              channels:
                healthkit: { latency: { constant: 1s } }
                cloudkit: { latency: { constant: 2s }, exportInterval: 5s }
              partitions: \(partitions)
              watch:
                # One reading at each workout's start: the phone's turns stay a few, known ones.
                heartRate: { restingInterval: off, workoutInterval: 1h }
            timeline:
              - { at: 1m, watch: "generate-workouts 4 --every 5m --duration 3m --first 5m" }
            \(extra)
            """, file: "inline")
    }

    @Test("a kill mid-turn lands after the turn's commit and before its ack: committed, never acknowledged, applied once")  // R: V1, S6
    func midTurnKill() throws {
        var stays = Simulator(try Self.midTurn(Self.phoneKilledAt9m))
        stays.run()
        let killed = try #require(stays.events.first { $0.name == "node.killed" })
        expect(killed.node == .phone && killed.at == .zero + .minutes(10) + .seconds(1) && killed["midTurn"] == .bool(true))
        // The turn it died in: the second workout, committed (the drivers commit first) ...
        let second = stays.watchStore.workouts.sorted { $0.start < $1.start }[1].uuid
        expect(stays.images[.phone]!.load().workouts.map(\.0.uuid).contains(second))
        // ... and not acknowledged: the watch still waits for it.
        expect(stays.watch.sync.pending(.healthkit) > 0)

        var back = Simulator(try Self.midTurn(Self.phoneKilledAt9m + "\n  - { at: 12m, phone: restart-node }"))
        back.run()
        // The retransmission finds it already received: acknowledged again, not applied twice.
        expect(back.events.contains { $0.name == "sync.duplicate" && $0.node == .phone && $0.at >= .zero + .minutes(12) })
        expect(back.phoneStore.workouts.count == 4 && back.watch.sync.pending(.healthkit) == 0)
    }

    @Test("a kill mid-turn with no turn before the restart dies then, between turns")  // R: V1
    func midTurnKillWithoutTurn() throws {
        var run = Simulator(try Self.midTurn("""
              - { at: 9m, watch: "kill-node --mid-turn" }
              - { at: 9m30s, watch: restart-node }
            """))
        run.run()
        let watchKills = run.events.filter { $0.name == "node.killed" && $0.node == .watch }
        expect(watchKills.count == 1 && watchKills.first?.at == .zero + .minutes(9) + .seconds(30) && watchKills.first?["midTurn"] == nil)
        expectEqual(run.phoneStore.workouts.count, 4)
    }

    @Test("a deleted object saved again is caught at the moment it happens, even if deleted again by the end")  // R: V3
    func resurrectionDuringRun() {
        let t = EmulatedInstant.zero
        let events = [
            Event(at: t + .minutes(1), node: .phone, .hkSaved, fields: ["kind": "workout", "uuid": "A"]),
            Event(at: t + .minutes(2), node: .phone, .hkDeleted, fields: ["uuid": "A", "type": "workout"]),
            Event(at: t + .minutes(3), node: .watch, .hkSaved, fields: ["kind": "workout", "uuid": "A"]), // the other node: its own store
            Event(at: t + .minutes(4), node: .phone, .recordDeleted, fields: ["id": "R"]),
            Event(at: t + .minutes(5), node: .phone, .hkSaved, fields: ["kind": "workout", "uuid": "A"]),
            Event(at: t + .minutes(6), node: .phone, .recordSaved, fields: ["id": "R"]),
            Event(at: t + .minutes(7), node: .phone, .hkDeleted, fields: ["uuid": "A", "type": "workout"]),
        ]
        expectEqual(Invariants.resurrections(in: events), [
            "phone: A deleted, then saved again at 00:05:00.000", "phone: R deleted, then saved again at 00:06:00.000",
        ])
        expect(Invariants.resurrections(in: Array(events.prefix(4))).isEmpty)
    }

    @Test("a deletion that never reaches the other side is reported; one that does is not")  // R: V3
    func deletesPropagate() throws {
        let stream = """
              - { at: 9m, phone: delete-workout latest }
            """
        var propagated = Simulator(try Self.midTurn(stream))
        propagated.run()
        expect(propagated.events.contains { $0.name == "hk.deleted" && $0.node == .watch })
        expect(Invariants.unpropagated(RunEnd(propagated)).isEmpty)
        // Both channels cut from before the delete to the end.
        var cut = Simulator(try Self.midTurn(stream, partitions: "[{ from: 8m30s, to: 2h }]"))
        cut.run()
        let left = Invariants.unpropagated(RunEnd(cut))
        expect(left.count == 1 && left[0].hasPrefix("phone → watch: 1 object(s), 1 record(s) deleted on one side are still on the other"), "\(left)")
    }

    @Test("the invariants catch a phone that forgets what it acknowledged")  // R: V3
    func invariantsCatchLoss() throws {
        var calm = Simulator(try Self.stream(""))
        calm.run()
        var run = Simulator(try Self.stream("""
              - { at: 30m, phone: kill-node }
              - { at: 31m, phone: restart-node }
            """))
        run.brokenStorage = [.phone] // acknowledges what it never made durable
        run.run()
        let failed = Invariants.check(RunEnd(run), calm: RunEnd(calm)).filter { !$0.passed }.map(\.label)
        expect(failed.contains("invariant: nothing lost: what each side made before the nemesis ended reached the other"), "\(failed)")
    }
}
