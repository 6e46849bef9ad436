import Foundation
import Testing
import TestSupport
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

    @Test("write-sample saves each observed type", arguments: ["hrv 48", "rhr 55", "sleep deep", "steps 1200",
                                                              "weight 70.5", "bodyfat 0.18", "bmi 22.1"])  // R: W5
    func writeSample(arguments: String) {
        let (watch, results) = Self.finished([(0, "write-sample \(arguments)")])
        expect(results[0].ok, "\(results[0].reply)")
        expectEqual(watch.store.sampleCount, 1)
        expectEqual(results[0].actions.frames.count, 1)
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
            expectEqual(watch.healthImport?.stops, restart)
            state.values.insert(.watchImport(watch.healthImport!))
        }
        let actions = watch.advance(to: .zero + .seconds(1))
        let failed = try #require(actions.events.first { $0.name == EventName.importFailed.rawValue })
        expectEqual(failed["reason"]?.stringValue?.contains("stopped 3 times in a row"), true, "\(failed)")
        expectEqual(watch.healthImport, nil)
        // Stopped at another place, the count starts again.
        var moved = job
        (moved.stops, moved.stoppedAt, moved.done) = (2, 20_000, 40_000)
        state.values.insert(.watchImport(moved))
        var other = WatchModel(topology: Self.topology, boot: "w")
        try other.restore(state, now: .zero)
        expect(other.healthImport?.stops == 1 && other.healthImport?.stoppedAt == 40_000)
    }
}
