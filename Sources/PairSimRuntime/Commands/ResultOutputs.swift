import ArgumentParser
import Foundation
import PairSimCore
import PairSimScenario

/// `--junit` and `--trace`, shared by `simulate` and `run` (docs/SCENARIOS.md#results-for-ci-and-traces).
public struct ResultOutputs: ParsableArguments {
    @Option(help: ArgumentHelp("Write the verdicts as JUnit XML here (one test case per expectation), for CI.", valueName: "file"))
    var junit: String?

    @Option(help: ArgumentHelp("Write a Chrome Trace Event / Perfetto trace of the run here (open it in ui.perfetto.dev).", valueName: "file"))
    var trace: String?

    public init() {}

    public func write(_ outcome: ScenarioOutcome, file: String, reproduce: String, since started: ContinuousClock.Instant) throws {
        if let junit {
            let elapsed = ContinuousClock.now - started
            let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let suite = JUnitReport.Suite(outcome: outcome, file: file, reproduce: reproduce, wallSeconds: wall)
            try save(JUnitReport.xml([suite], timestamp: JUnitReport.timestamp(Date())), to: junit, what: "--junit")
        }
        if let trace {
            try writeTrace(events: outcome.events, end: .zero + outcome.duration, to: trace, metadata: [
                "scenario": .string(outcome.scenario), "mode": .string(outcome.mode), "seed": .int(Int64(bitPattern: outcome.seed)),
                "reproduce": .string(reproduce),
            ])
        }
    }
}

/// Writes a trace file (also `topology log --trace`).
public func writeTrace(events: [Event], end: EmulatedInstant, to path: String, metadata: JSONObject) throws {
    let document = TraceWriter.trace(events: events, end: end, metadata: metadata)
    try save(String(decoding: JSONWriter.bytes(document), as: UTF8.self), to: path, what: "--trace")
}

/// Writes `text` to `path`, creating its folder; a failure names the option and the path.
public func save(_ text: String, to path: String, what option: String) throws {
    let url = URL(fileURLWithPath: path)
    do {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    } catch {
        throw ValidationError("\(option): cannot write \(path): \(error.localizedDescription)")
    }
}
