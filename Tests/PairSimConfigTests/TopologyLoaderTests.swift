import Foundation
import PairSimCore
import Testing
import TestSupport
@testable import PairSimConfig

@Suite("Topology files")
struct TopologyLoaderTests {
    static let nodes = """
        nodes:
          watch: { publish: "tcp://127.0.0.1:7401", control: "ipc://w.ctl", data: "w" }
          phone: { publish: "tcp://127.0.0.1:7402", control: "ipc://p.ctl", data: "p" }
        """

    static func parse(_ yaml: String) throws(ConfigError) -> Topology {
        try TopologyLoader.parse(yaml: yaml, file: "test.yaml")
    }

    /// The repository's Topologies folder, found from this source file.
    static var topologiesDirectory: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Topologies").path
    }

    @Test("every shipped topology file loads")  // R: P1
    func shippedFiles() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.topologiesDirectory).filter { $0.hasSuffix(".yaml") }
        expect(files.contains("default.yaml") && files.contains("instant.yaml"))
        for file in files {
            _ = try TopologyLoader.load(path: Self.topologiesDirectory + "/" + file)
        }
    }

    @Test("default.yaml has the documented latencies and time scale")  // R: P1, S3
    func defaultTopology() throws {
        let topology = try TopologyLoader.load(path: Self.topologiesDirectory + "/default.yaml")
        expectEqual(topology.timeScale, 60)
        expectEqual(topology.channel(.healthkit).latency, .uniform(min: .seconds(1), max: .seconds(4)))
        expectEqual(topology.channel(.cloudkit).latency.typical, .seconds(15))
    }

    @Test("reads every latency form")  // R: S3
    func latencyForms() throws {
        let forms: [(String, LatencyModel)] = [
            ("2s", .constant(.seconds(2))),
            ("{ constant: 250ms }", .constant(.milliseconds(250))),
            ("{ uniform: [1s, 4s] }", .uniform(min: .seconds(1), max: .seconds(4))),
            ("{ uniform: { min: 1s, max: 4s } }", .uniform(min: .seconds(1), max: .seconds(4))),
            ("{ exponential: { mean: 5s } }", .exponential(mean: .seconds(5))),
            ("{ exponential: 5s }", .exponential(mean: .seconds(5))),
            ("{ lognormal: { median: 15s, p99: 20m } }", .lognormal(median: .seconds(15), p99: .minutes(20))),
        ]
        for (text, model) in forms {
            let topology = try Self.parse("name: t\n\(Self.nodes)\nchannels:\n  cloudkit: { latency: \(text) }\n")
            expectEqual(topology.channel(.cloudkit).latency, model)
        }
    }

    @Test("partition windows apply to their channels")  // R: S3
    func partitions() throws {
        let topology = try Self.parse("name: t\n\(Self.nodes)\npartitions:\n  - { from: 30m, to: 1h30m, channels: [healthkit] }\n")
        expectEqual(topology.channel(.healthkit).partitions.count, 1)
        expect(topology.channel(.cloudkit).partitions.isEmpty)
    }

    // R: P1
    @Test("refuses bad files with the key path and the reason", arguments: [
        ("name: t\n\(nodes)\ncolour: red\n", "colour", "unknown key"),
        ("name: t\n\(nodes)\nchannels:\n  healthkit: { latency: 15x }\n", "channels.healthkit.latency", "bad duration \"15x\""),
        ("name: t\n\(nodes)\nchannels:\n  cloudkit: { latency: { lognormal: { median: 15s } } }\n", "channels.cloudkit.latency.lognormal.p99", "is required"),
        ("name: t\nnodes:\n  watch: { publish: \"tcp://127.0.0.1:1\", control: \"ipc://a\", data: a }\n", "nodes.phone", "is required"),
        ("name: t\nnodes:\n  watch: { publish: \"tcp://127.0.0.1:7401\", control: \"ipc://a\", data: a }\n  phone: { publish: \"tcp://127.0.0.1:7401\", control: \"ipc://b\", data: b }\n", "nodes.phone.publish", "clashes"),
        ("name: t\nnodes:\n  watch: { publish: \"tcp://0.0.0.0:7401\", control: \"ipc://a\", data: a }\n  phone: { publish: \"tcp://127.0.0.1:7402\", control: \"ipc://b\", data: b }\n", "nodes.watch.publish", "127.0.0.1"),
        ("name: t\nnodes:\n  watch: { publish: \"tcp://127.0.0.1\", control: \"ipc://a\", data: a }\n  phone: { publish: \"tcp://127.0.0.1:7402\", control: \"ipc://b\", data: b }\n", "nodes.watch.publish", "needs a port"),
        ("name: t\nnodes:\n  watch: { publish: \"tcp://localhost:7401\", control: \"ipc://a\", data: a }\n  phone: { publish: \"tcp://127.0.0.1:7402\", control: \"ipc://b\", data: b }\n", "nodes.watch.publish", "numeric addresses only"),
        ("name: t\n\(nodes)\nchannels:\n  cloudkit: { loss: 1.5 }\n", "channels.cloudkit.loss", "between 0 and 1"),
        ("name: t\n\(nodes)\nchannels:\n  healthkit: { exportInterval: 5s }\n", "channels.healthkit.exportInterval", "unknown key"),
        ("name: t\n\(nodes)\ntimeScale: fast\n", "timeScale", "expected a number"),
        ("name: t\n\(nodes)\npartitions:\n  - { from: 2h, to: 1h }\n", "partitions[0].to", "must be after"),
        ("name: \"a b\"\n\(nodes)\n", "name", "letters"),
        ("name: t\n", "nodes", "is required"),
    ])
    func refusesBadFiles(yaml: String, path: String, reason: String) {
        do {
            _ = try Self.parse(yaml)
            Issue.record("accepted a bad file")
        } catch {
            expectEqual(error.path, path)
            expect(error.reason.contains(reason), "reason was: \(error.reason)")
            expect(error.description.hasPrefix("test.yaml:"))
        }
    }

    @Test("names the line of the offending key")  // R: P1
    func lineNumbers() {
        do {
            _ = try Self.parse("name: t\n\(Self.nodes)\n\nchannels:\n  healthkit: { latency: 15x }\n")
            Issue.record("accepted a bad file")
        } catch {
            expectEqual(error.line, 7)
            expect(error.description.hasPrefix("test.yaml:7: channels.healthkit.latency:"))
        }
    }

    @Test("refuses text that is not YAML, or empty")  // R: P1
    func notYAML() {
        #expect(throws: ConfigError.self) { try Self.parse("name: [unclosed\n") }
        #expect(throws: ConfigError.self) { try Self.parse("") }
        #expect(throws: ConfigError.self) { try TopologyLoader.load(path: "/nonexistent/topology.yaml") }
    }
}

/// A developer's scenario names one of PairSim's topologies instead of a file (R: A11).
@Suite("Scenarios naming PairSim's topologies")
struct BuiltInTopologyTests {
    static func scenario(_ topology: String) throws(ConfigError) -> Scenario {
        try ScenarioLoader.parse(yaml: """
            name: named
            topology: \(topology)
            overrides: { watch: { app: workout-watch } }
            duration: 1h
            """, file: "/somewhere/else/named.yaml")
    }

    @Test("topology: NAME is PairSim's Topologies/NAME.yaml, wherever the scenario lives; overrides apply", arguments: ScenarioLoader.builtInTopologies)  // R: A11
    func named(name: String) throws {
        let scenario = try Self.scenario(name)
        let file = try TopologyLoader.load(path: TopologyLoaderTests.topologiesDirectory + "/\(name).yaml")
        expect(scenario.topology.name == file.name && scenario.topology.seed == file.seed && scenario.topology.channels == file.channels)
        expectEqual(scenario.topology.watch.app, "workout-watch")
    }

    @Test("a name PairSim does not have is refused with the ones it has")  // R: A11
    func unknown() {
        let error = #expect(throws: ConfigError.self) { try Self.scenario("defualt") }
        expectEqual(error?.description.contains("defualt is not one of PairSim's topologies (default, instant, flaky-cloudkit, offline-watch)"), true,
                "\(error?.description ?? "")")
    }
}

@Suite("Matchers that cannot mean what they say")
struct MatcherWarningTests {
    @Test("a matcher naming a field an event line keeps for itself is warned about, with what to write instead")  // R: A11
    func reservedFields() throws {
        try expectEqual(EventMatcher(parsing: "phone myapp.reading by=me").warnings, ["\"phone myapp.reading by=me\" matches field by, which an event line keeps for itself: an app's field named by is logged as _by: match `_by=…`"])
        try expectEqual(EventMatcher(parsing: "hk.saved node=phone").warnings.first?.contains("put the node first (`phone hk.saved …`)"), true)
        try expect(EventMatcher(parsing: "phone myapp.reading _by=me hrv=41").warnings.isEmpty)
    }
}

@Suite("An app's settings in the topology")
struct AppSettingsConfigTests {
    @Test("phone.app.settings and watch.app.settings: numbers, true/false and text, quoted text kept as text; anything else refused")  // R: A11
    func settings() throws {
        let topology = try TopologyLoaderTests.parse("name: t\n" + TopologyLoaderTests.nodes + """

            phone:
              app: { name: my-app, settings: { threshold: 0.8, retries: 3, verbose: true, mode: fast, code: "007" } }
            watch:
              app: { name: my-watch-app, settings: { interval: 5 } }
            """)
        expectEqual(topology.phone.app.settings, ["threshold": .double(0.8), "retries": 3, "verbose": true, "mode": "fast", "code": "007"])
        expect(topology.watch.app == "my-watch-app" && topology.watch.appSettings == ["interval": 5])
        let error = #expect(throws: ConfigError.self) {
            try TopologyLoaderTests.parse("name: t\n" + TopologyLoaderTests.nodes + "\nphone:\n  app: { name: a, settings: { nested: { x: 1 } } }\n")
        }
        expect(error?.description.contains("phone.app.settings.nested") == true && error?.description.contains("a setting is a number, true/false or text") == true,
                "\(error?.description ?? "")")
    }
}
