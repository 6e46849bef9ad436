import Foundation
import PairSimApps
@testable import PairSimCore
import PairSimKit
import Testing
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
            #expect(run.runsRealStorage)
            #expect(run.storageFaults.count == run.kills[.watch]! + run.kills[.phone]!, "seed \(seed): a storage fault per kill")
            kinds.formUnion(run.storageFaults.map(\.kind))
            #expect(run.failedCommands.isEmpty, "seed \(seed): \(run.failedCommands)")
            let verdicts = run.verdicts()
            #expect(verdicts.contains { $0.label == "invariant: the real storage restores what was committed" })
            for verdict in verdicts { #expect(verdict.passed, "seed \(seed): \(verdict.line)") }
            // The kill events say which fault each was.
            #expect(run.events.filter { $0.name == EventName.nodeKilled.rawValue }.allSatisfy { $0["storageFault"] != nil })
        }
        #expect(kinds == ["between writes", "torn write", "after its commit", "torn settle"], "\(kinds.sorted())")
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
        #expect(run.storageFindings.count == 1 && run.storageFindings[0].contains("phone restarted from files that differ"), "\(run.storageFindings)")
        let verdict = Invariants.check(RunEnd(run), calm: RunEnd(run)).first { $0.label == "invariant: the real storage restores what was committed" }
        #expect(verdict?.passed == false)
    }

    @Test("with the nemesis a share of seeds runs the real storage, drawn from the seed; without it none does")  // R: K8
    func shareOfSeeds() throws {
        let scenario = try CrashSimulationTests.stream("")
        let spec = NemesisSpec(crashes: 1, partitions: 0)
        let real = (UInt64(1)...128).filter { Simulator(scenario, seed: $0, nemesis: spec).runsRealStorage }
        #expect((3...15).contains(real.count), "\(real.count) of 128 at the default share 1/16")
        #expect(real == (UInt64(1)...128).filter { Simulator(scenario, seed: $0, nemesis: spec).runsRealStorage })
        var none = spec
        none.realStorage = 0
        #expect(!(UInt64(1)...64).contains { Simulator(scenario, seed: $0, nemesis: none).runsRealStorage })
        #expect(!(UInt64(1)...64).contains { Simulator(scenario, seed: $0).runsRealStorage })
        #expect(try ScenarioLoader.parse(yaml: "name: x\nduration: 1h\ntopology: default\nnemesis: { realStorage: 0.5 }", file: "inline").nemesis?.realStorage == 0.5)
        #expect(throws: ConfigError.self) { try ScenarioLoader.parse(yaml: "name: x\nduration: 1h\ntopology: default\nnemesis: { realStorage: 2 }", file: "inline") }
    }
}
