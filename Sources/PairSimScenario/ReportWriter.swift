import Foundation
import PairSimCore

/// Writes a scenario's report directory: `events.jsonl`, `summary.json` and a self-contained
/// `report.html` (swimlanes with app-state bands and causal links, verdicts, channel delays,
/// counters, a heart-rate chart per workout; no network), and the page comparing two of them.
public enum ReportWriter {
    public static func write(_ outcome: ScenarioOutcome, to directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var log: [UInt8] = []
        for event in outcome.events {
            event.writeJSONLine(into: &log)
            log.append(0x0A)
        }
        try Data(log).write(to: URL(fileURLWithPath: directory + "/events.jsonl"))
        try Data(JSONWriter.bytes(outcome.summary) + [0x0A]).write(to: URL(fileURLWithPath: directory + "/summary.json"))
        try Data(html(outcome).utf8).write(to: URL(fileURLWithPath: directory + "/report.html"))
    }

    /// The lane an event belongs on.
    static func lane(_ event: Event) -> String {
        if let channel = event["channel"]?.stringValue, event.name.hasPrefix("sync.") { return channel }
        if event.name.hasPrefix("ck.") { return "cloudkit" }
        if event.name.hasPrefix("wc.") { return "watchconnectivity" }
        return event.node.rawValue
    }

    /// What a timeline needs: ticks, bands, causal links and delay histograms.
    static func timelineData(_ all: [Event], end: EmulatedInstant) -> JSONObject {
        let events: [JSON] = all.map { event in
            var text = event.humanLine
            if text.count > 200 { text = String(text.prefix(200)) + "…" }
            return .array([.int(event.at.milliseconds), .string(lane(event)), .string(event.name), .string(event.level.rawValue), .string(text)])
        }
        return ["end": .int(end.milliseconds), "events": .array(events), "bands": .array(ReportAnalysis.bands(all, end: end)),
                "links": .array(ReportAnalysis.causalLinks(all)), "histograms": ReportAnalysis.delayHistograms(all)]
    }

    static func data(_ outcome: ScenarioOutcome) -> JSON {
        let charts: [JSON] = outcome.charts.map { chart in
            var object: JSONObject = ["uuid": .string(chart.uuid), "activity": .string(chart.activity),
                                      "start": .int(chart.start.milliseconds), "end": .int(chart.end.milliseconds)]
            if let summary = chart.summary {
                object.append("offsets", .array(summary.offsets.map(JSON.int)))
                object.append("values", .array(summary.values.map { .double($0.roundedToTenth) }))
                object.append("average", .double(summary.average.roundedToTenth))
                object.append("max", .double(summary.maximum))
                object.append("min", .double(summary.minimum))
            }
            return .object(object)
        }
        var object = timelineData(outcome.events, end: .zero + outcome.duration)
        object.append("summary", outcome.summary)
        object.append("charts", .array(charts))
        object.append("clocks", .array(ReportAnalysis.clocks(outcome.events, end: .zero + outcome.duration)))
        return .object(object)
    }

    static func html(_ outcome: ScenarioOutcome) -> String {
        page(template, title: "PairSim — \(outcome.scenario)", data: data(outcome))
    }

    static func page(_ template: String, title: String, data: JSON) -> String {
        // Keep "</" out of the embedded JSON so it cannot end the script element.
        let json = JSONWriter.string(data).replacingOccurrences(of: "</", with: "<\\/")
        return template
            .replacingOccurrences(of: "__STYLE__", with: style)
            .replacingOccurrences(of: "__DRAWING__", with: drawing)
            .replacingOccurrences(of: "__TITLE__", with: escape(title))
            .replacingOccurrences(of: "__DATA__", with: json)
    }

    /// One report directory read back for `topology compare`.
    public struct SavedRun: Sendable {
        public var label: String
        public var summary: JSON
        public var events: [Event]

        public init(label: String, summary: JSON, events: [Event]) {
            self.label = label
            self.summary = summary
            self.events = events
        }
    }

    /// compare.html: two runs' cost counters side by side and their timelines on one axis (R: I3, A7).
    public static func compare(_ a: SavedRun, _ b: SavedRun, to path: String) throws {
        let runs: [JSON] = [a, b].map { run in
            let end = run.summary["duration"]?.stringValue.flatMap(EmulatedDuration.init(parsing:)).map { .zero + $0 }
                ?? run.events.last?.at ?? .zero
            var object = timelineData(run.events, end: end)
            object.append("label", .string(run.label))
            object.append("summary", run.summary)
            return .object(object)
        }
        let text = page(compareTemplate, title: "PairSim — \(a.label) vs \(b.label)", data: .object(["runs": .array(runs)]))
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
