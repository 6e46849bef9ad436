import PairSimConfig
import PairSimCore

/// Everything a scenario run produced, for the verdict, the report and the exit status.
public struct ScenarioOutcome: Sendable {
    public var scenario: String
    /// `simulate` or `run`.
    public var mode: String
    public var seed: UInt64
    public var duration: EmulatedDuration
    /// Both nodes' events merged by emulated time.
    public var events: [Event]
    public var verdicts: [Verdict]
    public var failedCommands: [String]
    public var charts: [WorkoutChart]

    public init(scenario: String, mode: String, seed: UInt64, duration: EmulatedDuration, events: [Event],
                verdicts: [Verdict], failedCommands: [String], charts: [WorkoutChart]) {
        self.scenario = scenario
        self.mode = mode
        self.seed = seed
        self.duration = duration
        self.events = events
        self.verdicts = verdicts
        self.failedCommands = failedCommands
        self.charts = charts
    }

    public var passed: Bool { verdicts.allSatisfy(\.passed) && failedCommands.isEmpty }

    /// The counters each node logged when it stopped (`node.stopped`).
    public func counters(_ node: NodeName) -> JSONObject {
        events.last { $0.node == node && $0.name == EventName.nodeStopped.rawValue }?.fields ?? JSONObject()
    }

    /// summary.json: verdicts and the cost counters.
    public var summary: JSON {
        let phone = counters(.phone), watch = counters(.watch)
        func int(_ object: JSONObject, _ key: String) -> Int64 { object[key]?.intValue ?? 0 }
        var channels = JSONObject()
        for channel in Channel.allCases {
            channels.append(channel.rawValue, .object([
                "messages": .int(int(watch, "\(channel).sent") + int(phone, "\(channel).sent")),
                "bytes": .int(int(watch, "\(channel).bytes") + int(phone, "\(channel).bytes")),
            ]))
        }
        var costs = JSONObject()
        for key in ["wakes", "observerCallbacks", "completions", "missedCompletions", "onScreenMissedCompletions", "missingObservers", "refresh.foreground", "refresh.observer",
                    "refresh.backgroundDelivery", "refresh.pullToRefresh", "throttled", "invalidations", "cacheHits", "cacheMisses",
                    "cacheJoins", "queries", "objectsRead", "tabReloads", "cancelledLoads", "notifications", "misbehaviours"] {
            costs.append(key, .int(int(phone, key)))
        }
        return .object([
            "scenario": .string(scenario), "mode": .string(mode), "seed": .int(Int64(bitPattern: seed)),
            "duration": .string(duration.description), "passed": .bool(passed),
            "expectations": .array(verdicts.map { .object(["label": .string($0.label), "passed": .bool($0.passed), "detail": .string($0.detail)]) }),
            "failedCommands": .array(failedCommands.map(JSON.string)),
            "counters": .object(costs), "channels": .object(channels),
            "events": .int(Int64(events.count)),
            "nodes": .object(["watch": .object(watch), "phone": .object(phone)]),
        ])
    }

    /// The readable verdict: one line per expectation, then the outcome.
    public var verdictText: String {
        var lines = ["scenario \(scenario) (\(mode), seed \(seed), \(duration)):"]
        lines += verdicts.map { "  " + $0.line }
        lines += failedCommands.map { "  ✘ timeline command failed: \($0)" }
        let failed = verdicts.filter { !$0.passed }.count + failedCommands.count
        lines.append(failed == 0 ? "PASSED: \(verdicts.count) expectation(s)" : "FAILED: \(failed) problem(s)")
        return lines.joined(separator: "\n")
    }
}
