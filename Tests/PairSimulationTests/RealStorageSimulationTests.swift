import Foundation
import PairSimApps
@testable import PairSimCore
import PairSimKit
import Testing
import TestSupport
@testable import PairSimConfig
@testable import PairSimulation

/// Seeds that run the real journal and SQLite on a faulty disk under the nemesis (R: K8).
@Suite("Simulation on the real storage")
struct RealStorageSimulationTests {
    @Test("on the real storage every kill brings a storage fault, every restart reads back what was committed, and the invariants hold")  // R: K8
    func invariantsHoldOnTheRealStorage() throws {
        let scenario = try CrashSimulationTests.stream("")
        var kinds = Set<String>()
        for seed: UInt64 in 1...6 {
            var run = Simulator(scenario, seed: seed, nemesis: NemesisSpec(crashes: 8, partitions: 2), realStorage: true)
            run.run()
            expect(run.runsRealStorage)
            expectEqual(run.storageFaults.count, run.kills[.watch]! + run.kills[.phone]!, "seed \(seed): a storage fault per kill")
            kinds.formUnion(run.storageFaults.map(\.kind))
            expect(run.failedCommands.isEmpty, "seed \(seed): \(run.failedCommands)")
            let verdicts = run.verdicts()
            expect(verdicts.contains { $0.label == "invariant: the real storage restores what was committed" })
            for verdict in verdicts { expect(verdict.passed, "seed \(seed): \(verdict.line)") }
            // The kill events say which fault each was.
            expect(run.events.filter { $0.name == EventName.nodeKilled.rawValue }.allSatisfy { $0["storageFault"] != nil })
        }
        expectEqual(kinds, ["between writes", "torn write", "after its commit", "torn settle"], "\(kinds.sorted())")
    }

    /// The stream scenario with each node promising to survive a power loss.
    static func powerDurable() throws -> Scenario {
        var scenario = try CrashSimulationTests.stream("")
        scenario.topology.reliability.durability = .power
        return scenario
    }

    @Test("nodes with sync.durability: power meet power losses on the real storage, and every invariant holds")  // R: K8
    func powerLossesWithPowerDurability() throws {
        var kinds = Set<String>()
        for seed: UInt64 in 1...4 {
            var run = Simulator(try Self.powerDurable(), seed: seed, nemesis: NemesisSpec(crashes: 8, partitions: 2), realStorage: true)
            run.run()
            kinds.formUnion(run.storageFaults.map(\.kind))
            expect(run.failedCommands.isEmpty, "seed \(seed): \(run.failedCommands)")
            for verdict in run.verdicts() { expect(verdict.passed, "seed \(seed): \(verdict.line)") }
        }
        expect(kinds.contains("power loss"), "\(kinds.sorted())")
    }

    @Test("a power loss takes acknowledged turns from nodes that promise only to survive a kill (the default), and the invariants say so")  // R: K8
    func powerLossWithoutThePromise() throws {
        // The phone loses power three times, each 10 s after a heart-rate sample reached it.
        let writes = """
              - { at: 8m, watch: "write-sample hr 71" }
              - { at: 13m, watch: "write-sample hr 72" }
              - { at: 18m, watch: "write-sample hr 73" }
            """
        let scenario = try CrashSimulationTests.stream(writes + """

              - { at: 8m10s, phone: kill-node }
              - { at: 8m11s, phone: restart-node }
              - { at: 13m10s, phone: kill-node }
              - { at: 13m11s, phone: restart-node }
              - { at: 18m10s, phone: kill-node }
              - { at: 18m11s, phone: restart-node }
            """)
        var calm = Simulator(try CrashSimulationTests.stream(writes))
        calm.run()
        var lost = 0, caught = 0
        for seed: UInt64 in 1...4 {
            var run = Simulator(scenario, seed: seed, realStorage: true)
            run.losePowerAtEveryKill()
            run.run()
            expectEqual(run.storageFaults.map(\.kind), ["power loss", "power loss", "power loss"])
            // What the phone had committed (and acknowledged) is not all in its files any more.
            if !run.storageFindings.isEmpty { lost += 1 }
            let failed = Invariants.check(RunEnd(run), calm: RunEnd(calm)).filter { !$0.passed }.map(\.label)
            if failed.contains("invariant: nothing lost: what each side made before the nemesis ended reached the other") { caught += 1 }
        }
        expect(lost > 0, "a power loss never took a committed turn from a node that does not sync them")
        expect(caught > 0, "the invariants never saw an acknowledged sample lost")
    }

    @Test("sync.durability is kill or power")  // R: K8
    func durabilityKey() throws {
        func topology(_ durability: String) throws -> Topology {
            try TopologyLoader.parse(yaml: """
                name: t
                nodes:
                  watch: { publish: "ipc://w", control: "ipc://wc", data: "w" }
                  phone: { publish: "ipc://p", control: "ipc://pc", data: "p" }
                sync: { durability: \(durability) }
                """, file: "inline")
        }
        try expectEqual(topology("power").reliability.durability, .power)
        try expectEqual(topology("kill").reliability.durability, .kill)
        let error = #expect(throws: ConfigError.self) { try topology("fsync") }
        expect(error?.description.contains("sync.durability") == true && error?.description.contains("expected kill or power") == true,
                "\(error?.description ?? "")")
    }

    @Test("the storage verdict catches a restart that reads back something other than what was committed")  // R: K8
    func verdictCatchesADifference() throws {
        var run = Simulator(try CrashSimulationTests.stream("""
              - { at: 30m, phone: kill-node }
              - { at: 31m, phone: restart-node }
            """), realStorage: true)
        // The image keeps nothing: the files (which do) now differ from it at the restart.
        run.brokenStorage = [.phone]
        run.run()
        expect(run.storageFindings.count == 1 && run.storageFindings[0].contains("phone restarted from files that differ"), "\(run.storageFindings)")
        let verdict = Invariants.check(RunEnd(run), calm: RunEnd(run)).first { $0.label == "invariant: the real storage restores what was committed" }
        expectEqual(verdict?.passed, false)
    }

    @Test("with the nemesis a share of seeds runs the real storage, drawn from the seed; without it none does")  // R: K8
    func shareOfSeeds() throws {
        let scenario = try CrashSimulationTests.stream("")
        let spec = NemesisSpec(crashes: 1, partitions: 0)
        let real = (UInt64(1)...128).filter { Simulator(scenario, seed: $0, nemesis: spec).runsRealStorage }
        expect((3...15).contains(real.count), "\(real.count) of 128 at the default share 1/16")
        expectEqual(real, (UInt64(1)...128).filter { Simulator(scenario, seed: $0, nemesis: spec).runsRealStorage })
        var none = spec
        none.realStorage = 0
        expect(!(UInt64(1)...64).contains { Simulator(scenario, seed: $0, nemesis: none).runsRealStorage })
        expect(!(UInt64(1)...64).contains { Simulator(scenario, seed: $0).runsRealStorage })
        try expectEqual(ScenarioLoader.parse(yaml: "name: x\nduration: 1h\ntopology: default\nnemesis: { realStorage: 0.5 }", file: "inline").nemesis?.realStorage, 0.5)
        #expect(throws: ConfigError.self) { try ScenarioLoader.parse(yaml: "name: x\nduration: 1h\ntopology: default\nnemesis: { realStorage: 2 }", file: "inline") }
    }
}
