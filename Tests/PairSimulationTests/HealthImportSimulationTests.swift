import Foundation
@testable import PairSimCore
import PairSimHealthExport
import Testing
import TestSupport
@testable import PairSimConfig
@testable import PairSimulation

/// `import-health` in virtual time (R: E1, E3): deterministic, synced to the phone type by type,
/// nothing applied from a bad export, resumed after a kill.
@Suite("Importing a Health export in simulation")
struct HealthImportSimulationTests {
    static func export(_ name: String, days: Int, seed: UInt64 = 11) throws -> (path: String, counts: HealthExportGenerator.Counts) {
        let path = NSTemporaryDirectory() + "pairsim-import-\(name)-\(getpid()).xml"
        var data = Data()
        let counts = try HealthExportGenerator(.init(days: days, seed: seed)).write { data.append(contentsOf: Array($0.utf8)) }
        try data.write(to: URL(fileURLWithPath: path))
        return (path, counts)
    }

    /// A pair whose healthkit messages carry 50 objects and whose watch outbox holds 2, over a
    /// lossy channel: an import spans several seconds of emulated time and many acknowledgements.
    static func scenario(_ timeline: String) throws -> Scenario {
        try ScenarioLoader.parse(yaml: """
            name: import
            duration: 30m
            topology:
              name: t
              seed: 3
              nodes:
                watch: { publish: "ipc://w", control: "ipc://wc", data: "w" }
                phone: { publish: "ipc://p", control: "ipc://pc", data: "p" }
              channels:
                healthkit: { latency: { uniform: [50ms, 400ms] }, loss: 0.1, duplicate: 0.05, reorder: 0.1 }
                cloudkit: { latency: 1s, exportInterval: off }
              sync: { outboxLimit: 2, retransmitInitial: 1s }
              wire: { maxItemsPerMessage: 100 }
              watch:
                heartRate: { restingInterval: off }
            timeline:
            \(timeline)
            """, file: "inline")
    }

    /// What the phone holds by store type name (types it has none of left out).
    static func counts(_ store: HealthStore) -> [String: Int] {
        var counts: [String: Int] = [:]
        for type in SampleType.allCases where store.sampleCount(type) > 0 { counts[type.rawValue] = store.sampleCount(type) }
        if store.workoutCount > 0 { counts["workout"] = store.workoutCount }
        return counts
    }

    @Test("an import reaches the phone type by type as in the file, over a lossy channel, the same bytes every run")  // R: E1, V1
    func deterministic() throws {
        let (path, counts) = try Self.export("det", days: 6)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let scenario = try Self.scenario("  - { at: 1m, watch: \"import-health \(path)\" }")
        var first = Simulator(scenario)
        first.run()
        expect(first.failedCommands.isEmpty, "\(first.failedCommands)")
        let finished = try #require(first.events.first { $0.name == "import.finished" })
        expectEqual(Self.counts(first.phoneStore), counts.byStoreType)
        expectEqual(Self.counts(first.watchStore), counts.byStoreType)
        expect(finished["saved"] == .int(Int64(counts.totalRecords + counts.workouts)) && finished["unknown"] == 0)
        let firstAcks = EmulatedInstant.zero + EmulatedDuration.minutes(1) + EmulatedDuration.seconds(5)
        expect(finished.at > firstAcks, "the import waited for acknowledgements (outbox of 2)")
        expect(first.events.contains { $0.name == "sync.lost" }, "the channel lost messages on the way")
        // Shifted: the export's first day starts at emulated time zero; time of day is kept.
        let earliest = SampleType.allCases.compactMap { first.phoneStore.samples($0).map(\.start).min() }.min()!
        expect(earliest >= .zero && earliest < .zero + .days(1))
        expect(first.phoneStore.samples(.heartRate).allSatisfy { $0.source.name == "PairSim’s Apple Watch" })
        var second = Simulator(scenario)
        second.run()
        expectEqual(second.eventLog, first.eventLog)
    }

    @Test("a bad export changes nothing on either device; the error names line and column")  // R: E3
    func badExportAppliesNothing() throws {
        let (good, _) = try Self.export("bad", days: 8)
        defer { try? FileManager.default.removeItem(atPath: good) }
        var text = try String(contentsOfFile: good, encoding: .utf8)
        // The very last heart-rate record of the file gets a bad value: the check finds it after
        // reading everything before it, which an import applying as it read would have saved.
        let target = try #require(text.range(of: "<Record type=\"HKQuantityTypeIdentifierHeartRate\"", options: .backwards))
        let valueRange = try #require(text.range(of: #"value="[0-9.]+""#, options: .regularExpression, range: target.upperBound..<text.endIndex))
        text.replaceSubrange(valueRange, with: "value=\"-4\"")
        let line = text[..<target.lowerBound].filter { $0 == "\n" }.count + 1
        try text.write(toFile: good + ".bad.xml", atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: good + ".bad.xml") }
        var simulator = Simulator(try Self.scenario("  - { at: 1m, watch: \"import-health \(good).bad.xml\" }"))
        simulator.run()
        let failed = try #require(simulator.events.first { $0.name == "import.failed" })
        expect(failed["line"] == .int(Int64(line)) && (failed["column"]?.intValue ?? 0) > 0, "\(failed)")
        expectEqual(failed["reason"]?.stringValue?.contains("value -4 count/min is outside 1…400"), true, "\(failed)")
        expect(simulator.watchStore.sampleCount == 0 && simulator.phoneStore.sampleCount == 0)
        expect(simulator.watchStore.workoutCount == 0 && simulator.phoneStore.workoutCount == 0)
        expect(!simulator.events.contains { $0.name == "import.finished" })
    }

    @Test("a watch killed mid-import resumes where it stopped; importing the file again saves nothing")  // R: E1, E3, V1
    func killedMidImport() throws {
        let (path, counts) = try Self.export("kill", days: 6)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let timeline = """
              - { at: 1m, watch: "import-health \(path)" }
              - { at: 65s, watch: "kill-node --mid-turn" }
              - { at: 70s, watch: restart-node }
              - { at: 20m, watch: "import-health \(path)" }
            """
        var simulator = Simulator(try Self.scenario(timeline))
        simulator.run()
        expect(simulator.failedCommands.isEmpty, "\(simulator.failedCommands)")
        let killed = try #require(simulator.events.first { $0.name == "node.killed" })
        let finished = simulator.events.filter { $0.name == "import.finished" }
        expectEqual(finished.count, 2)
        expectEqual(finished.first.map { $0.at > killed.at }, true, "the import was still going when the watch was killed")
        expectEqual(Self.counts(simulator.phoneStore), counts.byStoreType)
        expectEqual(Self.counts(simulator.watchStore), counts.byStoreType)
        let total = Int64(counts.totalRecords + counts.workouts)
        expect(finished.last?["saved"] == 0 && finished.last?["ignored"] == .int(total), "the second import found everything by UUID")
    }

    @Test("UUIDs come from the entries alone: a later import of more days saves only what is new")  // R: E1
    func uuidsIndependentOfOptions() throws {
        let (path, counts) = try Self.export("uuids", days: 4)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let timeline = """
              - { at: 1m, watch: "import-health \(path) --since 2024-01-03 --types hr" }
              - { at: 10m, watch: "import-health \(path)" }
            """
        var simulator = Simulator(try Self.scenario(timeline))
        simulator.run()
        expect(simulator.failedCommands.isEmpty, "\(simulator.failedCommands)")
        let finished = simulator.events.filter { $0.name == "import.finished" }
        let first = try #require(finished.first?["saved"]?.intValue)
        expect(first > 0 && finished.count == 2)
        expectEqual(finished.last?["ignored"], .int(first), "the heart rate from the 3rd on was already there")
        expectEqual(Self.counts(simulator.phoneStore), counts.byStoreType)
    }

    @Test("part of an export, then the whole: every workout keeps its heart rate — time zero is the export's first day, whatever the filters left out")  // R: E5
    func partThenWhole() throws {
        // A run from 23:40 to 00:20 with a heart rate each minute: 20 samples before midnight, 21 after.
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE HealthData [
            <!ELEMENT HealthData (Record|Workout)*>
            <!ATTLIST HealthData locale CDATA #REQUIRED>
            ]>
            <HealthData locale="en_US">
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="40" durationUnit="min" sourceName="Watch" startDate="2024-01-01 23:40:00 +0000" endDate="2024-01-02 00:20:00 +0000"/>

            """
        for minute in 0...40 {
            let total = 23 * 60 + 40 + minute
            let day = total >= 24 * 60 ? "02" : "01", clock = total % (24 * 60)
            let time = "2024-01-\(day) \(clock / 60 < 10 ? "0" : "")\(clock / 60):\(clock % 60 < 10 ? "0" : "")\(clock % 60):00 +0000"
            xml += " <Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"Watch\" unit=\"count/min\" startDate=\"\(time)\" endDate=\"\(time)\" value=\"\(120 + minute)\"/>\n"
        }
        xml += "</HealthData>\n"
        let path = NSTemporaryDirectory() + "pairsim-import-part-\(getpid()).xml"
        try xml.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        func linked(_ timeline: String) throws -> Int {
            var simulator = Simulator(try Self.scenario(timeline))
            simulator.run()
            expect(simulator.failedCommands.isEmpty, "\(simulator.failedCommands)")
            let store = simulator.phoneStore
            let workout = try #require(store.workouts.first)
            return store.samples(.heartRate).filter { $0.start >= workout.start && $0.end <= workout.end }.count
        }
        try expectEqual(linked("  - { at: 1m, watch: \"import-health \(path)\" }"), 41)
        try expectEqual(linked("""
              - { at: 1m, watch: "import-health \(path) --since 2024-01-02 --until 2024-01-02" }
              - { at: 10m, watch: "import-health \(path)" }
            """), 41, "the 21 samples after midnight, imported first, are where the whole import puts the run")
    }

    @Test("import-health --skip-invalid: the watch imports the rest and reports the bad record by line in import.checked and import.finished")  // R: E5
    func skipInvalidOnTheWatch() throws {
        let (path, counts) = try Self.export("skip", days: 2)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let bad = text.replacingOccurrences(of: #"unit="kg""#, with: #"unit="KG""#)
        let skippedCount = text.components(separatedBy: #"unit="kg""#).count - 1
        expect(skippedCount > 0)
        try bad.write(toFile: path + ".skip.xml", atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path + ".skip.xml") }
        var refused = Simulator(try Self.scenario("  - { at: 1m, watch: \"import-health \(path).skip.xml\" }"))
        refused.run()
        let failed = try #require(refused.events.first { $0.name == "import.failed" })
        expectEqual(failed["reason"]?.stringValue?.contains("--skip-invalid imports the rest without it"), true, "\(failed)")
        var simulator = Simulator(try Self.scenario("  - { at: 1m, watch: \"import-health \(path).skip.xml --skip-invalid\" }"))
        simulator.run()
        expect(simulator.failedCommands.isEmpty, "\(simulator.failedCommands)")
        let checked = try #require(simulator.events.first { $0.name == "import.checked" })
        expectEqual(checked["skipped"], .int(Int64(skippedCount)))
        expectEqual(checked["skippedRecords"]?.arrayValue?.first?.stringValue?.hasPrefix("line "), true)
        var expected = counts.byStoreType
        expected["bodyMass"] = nil
        expectEqual(Self.counts(simulator.phoneStore), expected, "everything but the weights")
    }
}
