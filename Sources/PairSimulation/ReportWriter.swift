import Foundation
import PairSimCore

/// Writes a scenario's report directory: `events.jsonl`, `summary.json` and a self-contained
/// `report.html` (swimlanes, verdicts, counters, a heart-rate chart per workout; no network).
public enum ReportWriter {
    public static func write(_ outcome: ScenarioOutcome, to directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var log: [UInt8] = []
        for event in outcome.events {
            log += event.jsonLine
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
        return event.node.rawValue
    }

    static func data(_ outcome: ScenarioOutcome) -> JSON {
        let events: [JSON] = outcome.events.map { event in
            var text = event.humanLine
            if text.count > 200 { text = String(text.prefix(200)) + "…" }
            return .array([.int(event.at.milliseconds), .string(lane(event)), .string(event.name), .string(event.level.rawValue), .string(text)])
        }
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
        return .object(["summary": outcome.summary, "end": .int(outcome.duration.milliseconds), "events": .array(events), "charts": .array(charts)])
    }

    static func html(_ outcome: ScenarioOutcome) -> String {
        // Keep "</" out of the embedded JSON so it cannot end the script element.
        let json = JSONWriter.string(data(outcome)).replacingOccurrences(of: "</", with: "<\\/")
        return template
            .replacingOccurrences(of: "__TITLE__", with: escape("PairSim — \(outcome.scenario)"))
            .replacingOccurrences(of: "__DATA__", with: json)
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
