import Foundation
import PairSimCore

/// JUnit XML, the format CI systems (GitHub Actions reporters, GitLab, Jenkins, Buildkite) read
/// (R: I1): one `<testsuite>` per scenario run, one `<testcase>` per expectation (and one per
/// failed timeline command), a failure carrying the verdict and the command that reproduces it.
/// Time is given both ways: `time` attributes are wall seconds; the emulated duration and each
/// verdict's emulated instants are in properties and `system-out`.
public enum JUnitReport {
    /// One scenario run.
    public struct Suite: Sendable {
        public var outcome: ScenarioOutcome
        /// The scenario file as given on the command line (test cases point at it).
        public var file: String
        /// The command that plays this run again.
        public var reproduce: String
        /// Wall-clock seconds the run took.
        public var wallSeconds: Double

        public init(outcome: ScenarioOutcome, file: String, reproduce: String, wallSeconds: Double) {
            self.outcome = outcome
            self.file = file
            self.reproduce = reproduce
            self.wallSeconds = wallSeconds
        }
    }

    /// The whole document for `suites`; `timestamp` is ISO 8601 without a zone (the schema's form).
    public static func xml(_ suites: [Suite], timestamp: String) -> String {
        let failures = suites.reduce(0) { $0 + failureCount($1.outcome) }
        let tests = suites.reduce(0) { $0 + testCount($1.outcome) }
        let wall = suites.reduce(0) { $0 + $1.wallSeconds }
        var lines = [#"<?xml version="1.0" encoding="UTF-8"?>"#,
                     #"<testsuites name="PairSim" tests="\#(tests)" failures="\#(failures)" errors="0" skipped="0" time="\#(seconds(wall))">"#]
        for (index, suite) in suites.enumerated() { lines += self.suite(suite, id: index, timestamp: timestamp) }
        lines.append("</testsuites>")
        return lines.joined(separator: "\n") + "\n"
    }

    static func testCount(_ outcome: ScenarioOutcome) -> Int { outcome.verdicts.count + outcome.failedCommands.count }
    static func failureCount(_ outcome: ScenarioOutcome) -> Int {
        outcome.verdicts.filter { !$0.passed }.count + outcome.failedCommands.count
    }

    static func suite(_ suite: Suite, id: Int, timestamp: String) -> [String] {
        let outcome = suite.outcome
        let name = "\(outcome.scenario) (\(outcome.mode), seed \(outcome.seed))"
        var lines = [#"  <testsuite name="\#(escape(name))" id="\#(id)" package="pairsim.\#(escape(outcome.scenario))" "#
            + #"tests="\#(testCount(outcome))" failures="\#(failureCount(outcome))" errors="0" skipped="0" "#
            + #"time="\#(seconds(suite.wallSeconds))" timestamp="\#(escape(timestamp))" hostname="localhost">"#]
        lines.append("    <properties>")
        for (key, value) in [("file", suite.file), ("mode", outcome.mode), ("seed", String(outcome.seed)),
                             ("emulatedDuration", outcome.duration.description),
                             ("emulatedSeconds", seconds(Double(outcome.duration.milliseconds) / 1_000)),
                             ("wallSeconds", seconds(suite.wallSeconds)), ("events", String(outcome.events.count)),
                             ("reproduce", suite.reproduce)] {
            lines.append(#"      <property name="\#(key)" value="\#(escape(value))"/>"#)
        }
        lines.append("    </properties>")
        let classname = "pairsim.\(escape(outcome.scenario))"
        for verdict in outcome.verdicts {
            let head = #"    <testcase name="\#(escape(verdict.label))" classname="\#(classname)" file="\#(escape(suite.file))" time="0""#
            if verdict.passed {
                lines.append(head + ">")
                lines.append("      <system-out>\(escape(verdict.line))</system-out>")
                lines.append("    </testcase>")
            } else {
                lines.append(head + ">")
                lines.append(#"      <failure message="\#(escape(verdict.detail))" type="expectation">\#(escape(verdict.line))"#
                    + "\n\(escape("reproduce with: \(suite.reproduce)"))</failure>")
                lines.append("    </testcase>")
            }
        }
        for command in outcome.failedCommands {
            lines.append(#"    <testcase name="\#(escape("timeline command: \(command)"))" classname="\#(classname)" file="\#(escape(suite.file))" time="0">"#)
            lines.append(#"      <failure message="\#(escape(command))" type="command">\#(escape("✘ timeline command failed: \(command)"))"#
                + "\n\(escape("reproduce with: \(suite.reproduce)"))</failure>")
            lines.append("    </testcase>")
        }
        lines.append("    <system-out>\(escape(outcome.verdictText))</system-out>")
        lines.append("  </testsuite>")
        return lines
    }

    static func seconds(_ value: Double) -> String { String(format: "%.3f", value) }

    /// Escapes for both text and attribute values; drops characters XML 1.0 cannot carry.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value) { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The current time in the schema's form (UTC, no zone suffix).
    public static func timestamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        return formatter.string(from: date)
    }
}
