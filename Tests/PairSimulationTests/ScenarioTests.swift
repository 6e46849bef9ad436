import Foundation
import PairSimCore
import Testing
import TestSupport
@testable import PairSimConfig
@testable import PairSimulation
@testable import PairSimScenario

/// The repository's folders, found from this file.
enum Repository {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let scenarios = root.appendingPathComponent("Topologies/scenarios").path
    static var scenarioFiles: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: scenarios)) ?? []).filter { $0.hasSuffix(".yaml") }.sorted()
    }
}

@Suite("Scenario files")
struct ScenarioFileTests {
    static let header = """
        name: t
        topology: ../default.yaml
        duration: 1h
        """

    static func parse(_ yaml: String) throws(ConfigError) -> Scenario {
        try ScenarioLoader.parse(yaml: yaml, file: Repository.scenarios + "/test.yaml")
    }

    @Test("the library has a scenario per seed-000 edge case and the named situations")  // R: P6
    func library() throws {
        let names = Set(Repository.scenarioFiles)
        for required in ["no-permission", "force-quit-relaunch", "two-foreground-returns", "observer-while-backgrounding",
                         "many-types-at-once", "invalidation-during-fetch", "background-delivery-and-foreground",
                         "morning-run-pocket", "locked-during-workout", "force-quit-overnight", "watch-out-of-range",
                         "three-missed-completions", "hrv-storm", "week-of-normal-life"] {
            expect(names.contains(required + ".yaml"), "missing \(required)")
        }
    }

    @Test("every-entries expand, timelines sort by time, overrides merge into the topology")  // R: P6
    func parsing() throws {
        let scenario = try Self.parse(Self.header + """

            overrides:
              phone: { refresh: { throttle: 2m } }
            timeline:
              - { at: 30m, watch: start-workout running }
              - { every: 20m, from: 10m, phone: status }
            expect:
              - { after: "watch workout.finished", within: 2m, then: 'phone notification.posted title="Workout completed"' }
              - { atMost: 1, of: "phone coordinator.refresh", per: 60s, from: 5m }
            """)
        expectEqual(scenario.timeline.map(\.at.description), ["00:10:00.000", "00:30:00.000", "00:30:00.000", "00:50:00.000"])
        expectEqual(scenario.timeline[1].command, "start-workout running")
        expectEqual(scenario.topology.phone.refresh.throttle, .minutes(2))
        expectEqual(scenario.topology.channel(.healthkit).latency, .uniform(min: .seconds(1), max: .seconds(4)))
        expectEqual(scenario.expectations.count, 2)
        expectEqual(scenario.expectations[1].from, .zero + .minutes(5))
    }

    // R: P6
    @Test("refuses bad scenarios with the key path and the reason", arguments: [
        ("\(header)\ncolour: red\n", "colour", "unknown key"),
        ("name: t\ntopology: ../default.yaml\n", "duration", "is required"),
        ("\(header)\ntimeline:\n  - { at: 5m, watch: fly }\n", "timeline[0].watch", "unknown watch command \"fly\""),
        ("\(header)\ntimeline:\n  - { at: 5m, every: 1m, watch: status }\n", "timeline[0]", "exactly one of at: or every:"),
        ("\(header)\ntimeline:\n  - { at: 5m }\n", "timeline[0]", "exactly one of watch: or phone:"),
        ("\(header)\ntimeline:\n  - { at: 5x, phone: status }\n", "timeline[0].at", "bad duration"),
        ("\(header)\ntimeline:\n  - { at: 5m, phone: kill-node --hard }\n", "timeline[0].phone", "its one option is --mid-turn"),
        ("\(header)\ntimeline:\n  - { at: 5m, phone: restart-node now }\n", "timeline[0].phone", "restart-node takes no arguments"),
        ("\(header)\nexpect:\n  - { eventually: phone hk.savd }\n", "expect[0].eventually", "unknown event \"hk.savd\""),
        ("\(header)\nexpect:\n  - { exactly: 2, of: phone hk.saved, per: 1m }\n", "expect[0].per", "only with atMost"),
        ("\(header)\nexpect:\n  - { after: watch workout.finished, then: phone hk.saved }\n", "expect[0]", "within: is required"),
        ("\(header)\nexpect:\n  - { sometimes: phone hk.saved }\n", "expect[0].sometimes", "unknown key"),
        ("name: t\ntopology: ../missing.yaml\nduration: 1h\n", "", "cannot read the file"),
        ("\(header)\noverrides:\n  phone: { refresh: { throttle: fast } }\n", "phone.refresh.throttle", "bad duration"),
        ("\(header)\nexpect:\n  - { eventually: phone hk.saved, never: phone hk.deleted }\n", "expect[0]", "only one of"),
        ("\(header)\nexpect:\n  - { never: phone hk.saved, within: 1m }\n", "expect[0].within", "does not go with never"),
        ("\(header)\nexpect:\n  - { atMost: 1, of: phone hk.saved, per: 0 }\n", "expect[0].per", "must be above 0"),
        ("\(header)\ntimeline:\n  - { at: 2h, phone: status }\n", "timeline[0].at", "after the scenario's duration"),
        ("name: t\ntopology: ../default.yaml\nduration: 7d\ntimeline:\n  - { every: 1s, watch: status }\n", "timeline[0].every", "more than 100000"),
    ])
    func refusesBadScenarios(yaml: String, path: String, reason: String) {
        do {
            _ = try Self.parse(yaml)
            Issue.record("accepted a bad scenario")
        } catch {
            expectEqual(error.path, path, "path was \(error.path): \(error)")
            expect(error.reason.contains(reason), "reason was: \(error.reason)")
        }
    }

    @Test("event matchers match node, name or prefix, and field values")
    func matchers() throws {
        let event = Event(at: .zero, node: .phone, .notificationPosted, fields: ["title": "Workout completed", "uuid": "A"])
        try expect(EventMatcher(parsing: #"phone notification.posted title="Workout completed""#).matches(event))
        try expect(EventMatcher(parsing: "notification.*").matches(event))
        try expect(!EventMatcher(parsing: "watch notification.posted").matches(event))
        try expect(!EventMatcher(parsing: "phone notification.posted uuid=B").matches(event))
        #expect(throws: CommandError.self) { try EventMatcher(parsing: "phone hk.savd") }
        #expect(throws: CommandError.self) { try EventMatcher(parsing: "phone nonsense") }
        // R: A4: an app's own events live outside PairSim's namespaces and may be expected.
        try expectEqual(EventMatcher(parsing: "phone myapp.reading hrv=41").name, "myapp.reading")
    }
}
