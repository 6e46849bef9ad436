import ArgumentParser
import Foundation
import PairSimCore
import PairSimRuntime
import PairSimScenario

struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write one page putting two scenario reports side by side: cost counters, verdicts, timelines, channel delays.",
        discussion: """
            DIR_A and DIR_B are --report directories of `topology simulate` or `topology run` (each holds summary.json
            and events.jsonl), e.g. the same scenario and seed with two apps, or on two topologies.
            """)

    @Argument(help: ArgumentHelp("The first report directory (A).", valueName: "dir-a"))
    var a: String

    @Argument(help: ArgumentHelp("The second report directory (B).", valueName: "dir-b"))
    var b: String

    @Option(help: ArgumentHelp("Where to write the page (default: compare.html in the current directory).", valueName: "file"))
    var output = "compare.html"

    func run() throws {
        let runs = try [a, b].map(Self.load)
        try ReportWriter.compare(runs[0], runs[1], to: output)
        print("compare: \(output) (A = \(runs[0].label), B = \(runs[1].label))")
    }

    /// A report directory's summary and events; a missing or bad file is an error naming it.
    static func load(_ directory: String) throws -> ReportWriter.SavedRun {
        let summaryPath = directory + "/summary.json", eventsPath = directory + "/events.jsonl"
        guard let bytes = FileManager.default.contents(atPath: summaryPath) else {
            throw ValidationError("\(summaryPath): not found (is \(directory) a --report directory?)")
        }
        let summary: JSON
        do { summary = try JSONParser().parse([UInt8](bytes)) } catch {
            throw ValidationError("\(summaryPath): \(error)")
        }
        guard summary["scenario"]?.stringValue != nil, summary["counters"] != nil else {
            throw ValidationError("\(summaryPath): not a PairSim summary (no scenario or counters)")
        }
        guard FileManager.default.fileExists(atPath: eventsPath) else { throw ValidationError("\(eventsPath): not found") }
        let events: [Event]
        events = EventLog.read(path: eventsPath)
        let label = URL(fileURLWithPath: directory).standardizedFileURL.lastPathComponent
        return ReportWriter.SavedRun(label: label, summary: summary, events: events)
    }
}
