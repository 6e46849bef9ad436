import Foundation
import PairSimApps
import PairSimCore
import Yams

/// Reads scenario YAML (docs/SCENARIOS.md), refusing anything doubtful with the file, line, key
/// path and reason.
public enum ScenarioLoader {
    /// Loads a scenario; `appCommands` are the UI actions phone timeline entries may use besides
    /// the platform's (default: those of every app this build knows).
    public static func load(path: String, appCommands: [CommandSpec] = AppCatalog.knownActions) throws(ConfigError) -> Scenario {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw ConfigError(file: path, line: nil, path: "", reason: "cannot read the file (\(error.localizedDescription))")
        }
        return try parse(yaml: text, file: path, appCommands: appCommands)
    }

    public static func parse(yaml text: String, file: String, appCommands: [CommandSpec] = AppCatalog.knownActions) throws(ConfigError) -> Scenario {
        let root = try YAMLReader.root(yaml: text, file: file)
        let map = try root.mapping(allowed: ["name", "description", "topology", "overrides", "duration", "timeline", "expect", "invariants", "nemesis"],
                                   required: ["name", "topology", "duration"])
        let name = try map["name"]!.string()
        let duration = try map["duration"]!.duration()
        guard duration > .zero else { throw map["duration"]!.error("must be above 0") }
        let (topology, yaml) = try self.topology(map["topology"]!, overrides: map["overrides"], file: file)
        var timeline: [(TimelineEntry, Int)] = []
        if let list = map["timeline"] {
            for (index, item) in try list.sequence().enumerated() {
                for entry in try timelineEntries(item, duration: duration, appCommands: appCommands, file: file) { timeline.append((entry, index)) }
            }
        }
        timeline.sort { ($0.0.at, $0.1) < ($1.0.at, $1.1) }
        var expectations: [ExpectationSpec] = []
        if let list = map["expect"] {
            for item in try list.sequence() { expectations.append(try expectation(item)) }
        }
        var scenario = Scenario(name: name, description: try map["description"]?.string() ?? "", topology: topology, topologyYAML: yaml,
                                duration: duration, timeline: timeline.map(\.0), expectations: expectations, sourcePath: file)
        if let nemesis = map["nemesis"] { scenario.nemesis = try self.nemesis(nemesis) }
        if let list = map["invariants"] {
            for item in try list.sequence() {
                var invariant = try expectation(item)
                invariant.label = "invariant: " + invariant.label
                scenario.invariants.append(invariant)
            }
        }
        return scenario
    }

    static func nemesis(_ reader: YAMLReader) throws(ConfigError) -> NemesisSpec {
        let map = try reader.mapping(allowed: ["crashes", "partitions", "maxDowntime", "maxPartition", "bursts", "maxBurst", "realStorage"])
        var spec = NemesisSpec()
        if let value = map["crashes"] { spec.crashes = Int(try value.int(in: 0...1_000)) }
        if let value = map["partitions"] { spec.partitions = Int(try value.int(in: 0...1_000)) }
        if let value = map["bursts"] { spec.bursts = Int(try value.int(in: 0...1_000)) }
        if let value = map["realStorage"] {
            spec.realStorage = try value.double(in: 0...1)
        }
        if let value = map["maxBurst"] {
            spec.maxBurst = try value.duration()
            guard spec.maxBurst >= .seconds(1) else { throw value.error("must be at least 1s") }
        }
        if let value = map["maxDowntime"] {
            spec.maxDowntime = try value.duration()
            guard spec.maxDowntime >= .seconds(1) else { throw value.error("must be at least 1s") }
        }
        if let value = map["maxPartition"] {
            spec.maxPartition = try value.duration()
            guard spec.maxPartition >= .seconds(1) else { throw value.error("must be at least 1s") }
        }
        return spec
    }

    /// PairSim's own topologies (`Topologies/NAME.yaml` of the checkout this binary was built
    /// from), which a scenario may name instead of a file: `topology: default`.
    public static let builtInTopologies = ["default", "instant", "flaky-cloudkit", "offline-watch"]
    static let builtInDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Topologies").path

    /// The topology: a file (relative to the scenario), one of PairSim's by name, or an inline
    /// mapping, with `overrides` merged in.
    static func topology(_ reader: YAMLReader, overrides: YAMLReader?, file: String) throws(ConfigError) -> (Topology, String) {
        var node: Node
        var label = file
        if reader.isMapping {
            node = reader.node
        } else {
            let relative = try reader.string()
            let directory = (file as NSString).deletingLastPathComponent
            var path = relative.hasPrefix("/") || directory.isEmpty ? relative : directory + "/" + relative
            if !relative.contains("/"), !relative.hasSuffix(".yaml") {
                guard builtInTopologies.contains(relative) else {
                    throw reader.error("\(relative) is not one of PairSim's topologies (\(builtInTopologies.joined(separator: ", "))); name a file with its .yaml")
                }
                path = builtInDirectory + "/\(relative).yaml"
                guard FileManager.default.fileExists(atPath: path) else {
                    throw reader.error("PairSim's topology \(relative) is looked up in the checkout this binary was built from, and \(path) is not there; name a file instead")
                }
            }
            _ = try TopologyLoader.load(path: path) // a bad base file is reported against itself
            let base: YAMLReader
            do { base = try YAMLReader.root(yaml: try String(contentsOfFile: path, encoding: .utf8), file: path) } catch let error as ConfigError {
                throw error
            } catch {
                throw reader.error("cannot read topology \(path)")
            }
            node = base.node
            label = path
        }
        if let overrides {
            guard overrides.isMapping else { throw overrides.error("expected a mapping of topology keys to replace") }
            node = merge(node, overrides.node)
            label = "\(file) (topology with overrides)"
        }
        let topology = try TopologyLoader.parse(YAMLReader(node: node, path: "", file: label))
        let yaml: String
        do { yaml = try Yams.serialize(node: node) } catch { throw reader.error("cannot re-emit the topology: \(error)") }
        return (topology, yaml)
    }

    /// Deep merge: mappings merge key by key, anything else is replaced.
    public static func merge(_ base: Node, _ override: Node) -> Node {
        guard case .mapping(var baseMap) = base, case .mapping(let overMap) = override else { return override }
        for (key, value) in overMap {
            if let existing = baseMap[key] {
                baseMap[key] = merge(existing, value)
            } else {
                baseMap[key] = value
            }
        }
        return .mapping(baseMap)
    }

    static func timelineEntries(_ reader: YAMLReader, duration: EmulatedDuration, appCommands: [CommandSpec], file: String) throws(ConfigError) -> [TimelineEntry] {
        let map = try reader.mapping(allowed: ["at", "every", "from", "until", "watch", "phone", "fails"])
        let fails = try map["fails"].map { value throws(ConfigError) -> String in
            let code = try value.string()
            guard !code.isEmpty, code.count <= 200, !code.contains(where: { $0.isNewline }) else {
                throw value.error("fails: gives the error (or a piece of the refusal) the command must fail with, e.g. notReachable, on one line of at most 200 characters")
            }
            return code
        }
        let nodes = NodeName.allCases.filter { map[$0.rawValue] != nil }
        guard nodes.count == 1, let node = nodes.first else { throw reader.error("give exactly one of watch: or phone: with a command") }
        let commandReader = map[node.rawValue]!
        var command = try commandReader.string()
        try validate(command, node: node, commandReader, appCommands: appCommands)
        command = resolvingPaths(command, file: file)
        switch (map["at"], map["every"]) {
        case (let at?, nil):
            guard map["from"] == nil, map["until"] == nil else { throw reader.error("from/until go with every:, not at:") }
            let time = try at.duration()
            guard time <= duration else { throw at.error("\(time) is after the scenario's duration (\(duration))") }
            return [TimelineEntry(at: .zero + time, node: node, command: command, expectedFailure: fails)]
        case (nil, let every?):
            let step = try every.duration()
            guard step >= .seconds(1) else { throw every.error("must be at least 1s") }
            let from = try map["from"]?.duration() ?? .zero
            let until = min(try map["until"]?.duration() ?? duration, duration)
            guard (until.milliseconds - from.milliseconds) / step.milliseconds < 100_000 else {
                throw every.error("more than 100000 commands between \(from) and \(until); use a longer every:")
            }
            var entries: [TimelineEntry] = []
            var at = from
            while at < until {
                entries.append(TimelineEntry(at: .zero + at, node: node, command: command, expectedFailure: fails))
                at += step
            }
            return entries
        default:
            throw reader.error("give exactly one of at: or every:")
        }
    }

    /// A file a command names (`import-health export.zip`) is relative to the scenario file, as
    /// its topology is; the nodes get the absolute path, whatever their working directory.
    static func resolvingPaths(_ command: String, file: String) -> String {
        guard let parsed = try? ParsedCommand(parsing: command), ParsedCommand.pathVerbs.contains(parsed.verb) else { return command }
        let folder = (file as NSString).deletingLastPathComponent
        let directory = (folder as NSString).isAbsolutePath ? folder : FileManager.default.currentDirectoryPath + "/" + folder
        let resolved = parsed.resolvingPaths(relativeTo: directory)
        return resolved == parsed ? command : resolved.text
    }

    /// The command's verb must exist for the node (arguments are checked when it runs).
    static func validate(_ command: String, node: NodeName, _ reader: YAMLReader, appCommands: [CommandSpec]) throws(ConfigError) {
        let parsed: ParsedCommand
        do { parsed = try ParsedCommand(parsing: command) } catch { throw reader.error(error.message) }
        if let driver = DriverCommand(rawValue: parsed.verb) {
            switch driver {
            case .killNode:
                guard parsed.arguments.isEmpty, parsed.options.keys.allSatisfy({ $0 == "mid-turn" }), parsed.options["mid-turn"] ?? "true" == "true" else {
                    throw reader.error("kill-node takes no arguments; its one option is --mid-turn")
                }
            case .restartNode:
                guard parsed.arguments.isEmpty, parsed.options.isEmpty else { throw reader.error("\(parsed.verb) takes no arguments") }
            }
            return
        }
        do {
            let specs = node == .watch ? WatchModel.commands + appCommands : PhonePlatform.commands + appCommands
            _ = try CommandGrammar.spec(for: parsed.verb, in: specs, node: node)
        } catch {
            throw reader.error(error.message)
        }
    }

    static func expectation(_ reader: YAMLReader) throws(ConfigError) -> ExpectationSpec {
        let map = try reader.mapping(allowed: ["eventually", "never", "exactly", "atMost", "atLeast", "of", "per", "after", "within", "then",
                                               "label", "from", "until"])
        func matcher(_ key: String) throws(ConfigError) -> EventMatcher {
            guard let field = map[key] else { throw reader.error("\(key): is required here") }
            do { return try EventMatcher(parsing: try field.string()) } catch let error as ConfigError { throw error } catch {
                throw field.error((error as? CommandError)?.message ?? "\(error)")
            }
        }
        func count(_ key: String) throws(ConfigError) -> Int { Int(try map[key]!.int(in: 0...10_000_000)) }
        let kinds = ["eventually", "never", "exactly", "atMost", "atLeast", "after"].filter { map[$0] != nil }
        guard kinds.count == 1 else {
            throw reader.error(kinds.isEmpty ? "give one of eventually, never, exactly, atMost, atLeast, or after/within/then"
                                             : "give only one of \(kinds.joined(separator: ", "))")
        }
        let counted = ["exactly", "atMost", "atLeast"].contains(kinds[0])
        for (key, allowed) in [("of", counted), ("within", kinds[0] == "after"), ("then", kinds[0] == "after")] where map[key] != nil && !allowed {
            throw map[key]!.error("does not go with \(kinds[0]):")
        }
        let expectation: Expectation
        var label: String
        if map["eventually"] != nil {
            let m = try matcher("eventually")
            expectation = .eventually(m)
            label = "eventually \(m)"
        } else if map["never"] != nil {
            let m = try matcher("never")
            expectation = .never(m)
            label = "never \(m)"
        } else if map["exactly"] != nil {
            let m = try matcher("of")
            expectation = .exactly(try count("exactly"), m)
            label = "exactly \(try count("exactly")) × \(m)"
        } else if map["atMost"] != nil {
            let m = try matcher("of")
            let per = try map["per"]?.duration()
            if let per, per <= .zero { throw map["per"]!.error("must be above 0") }
            expectation = .atMost(try count("atMost"), m, per: per)
            label = "at most \(try count("atMost")) × \(m)" + (per.map { " per \($0)" } ?? "")
        } else if map["atLeast"] != nil {
            let m = try matcher("of")
            expectation = .atLeast(try count("atLeast"), m)
            label = "at least \(try count("atLeast")) × \(m)"
        } else if map["after"] != nil {
            guard let within = map["within"] else { throw reader.error("within: is required with after:") }
            let a = try matcher("after"), b = try matcher("then")
            let limit = try within.duration()
            expectation = .within(limit, after: a, then: b)
            label = "\(b) within \(limit) after \(a)"
        } else {
            throw reader.error("give one of eventually, never, exactly, atMost, atLeast, or after/within/then")
        }
        if map["per"] != nil, map["atMost"] == nil { throw map["per"]!.error("per: goes only with atMost:") }
        let from = try map["from"].map { (reader) throws(ConfigError) in EmulatedInstant.zero + (try reader.duration()) }
        let until = try map["until"].map { (reader) throws(ConfigError) in EmulatedInstant.zero + (try reader.duration()) }
        if from != nil || until != nil {
            label += " (" + [from.map { "from \($0)" }, until.map { "until \($0)" }].compactMap { $0 }.joined(separator: " ") + ")"
        }
        if let custom = map["label"] { label = try custom.string() }
        return ExpectationSpec(expectation: expectation, label: label, from: from, until: until)
    }
}

extension ScenarioLoader {
    /// The scenario's topology as YAML with private ipc endpoints and data directories under
    /// `directory`, so a run never clashes with a running pair or another run.
    public static func privateTopologyYAML(_ scenario: Scenario, directory: String, timeScale: Double?,
                                           bursts: [(Channel, FaultBurst)] = []) throws(ConfigError) -> String {
        let fail = { (reason: String) in ConfigError(file: scenario.sourcePath, line: nil, path: "topology", reason: reason) }
        guard let parsed = try? Yams.compose(yaml: scenario.topologyYAML), case .mapping(var map) = parsed else {
            throw fail("cannot re-read the scenario's topology")
        }
        var nodes: [(Node, Node)] = []
        for node in NodeName.allCases {
            let short = node == .watch ? "w" : "p"
            nodes.append((Node(node.rawValue), Node([
                (Node("publish"), Node("ipc://\(directory)/\(short).pub")),
                (Node("control"), Node("ipc://\(directory)/\(short).ctl")),
                (Node("data"), Node("\(directory)/\(node.rawValue)")),
            ])))
        }
        map["nodes"] = Node(nodes)
        if let timeScale { map["timeScale"] = Node(String(timeScale)) }
        if !bursts.isEmpty {
            // The nemesis's fault bursts (`topology run --nemesis`), added to each channel's own.
            var channels = map["channels"]?.mapping ?? Node.Mapping([])
            for channel in Channel.allCases {
                let drawn = bursts.filter { $0.0 == channel }.map(\.1)
                guard !drawn.isEmpty else { continue }
                var config = channels[channel.rawValue]?.mapping ?? Node.Mapping([])
                var list = config["bursts"]?.sequence ?? Node.Sequence([])
                for burst in drawn {
                    list.append(Node([
                        (Node("from"), Node((burst.from - EmulatedInstant.zero).description)), (Node("to"), Node((burst.to - EmulatedInstant.zero).description)),
                        (Node("loss"), Node(String(burst.loss))), (Node("duplicate"), Node(String(burst.duplicate))),
                        (Node("reorder"), Node(String(burst.reorder))), (Node("extraLatency"), Node(burst.extraLatency.description)),
                    ]))
                }
                config["bursts"] = .sequence(list)
                channels[channel.rawValue] = .mapping(config)
            }
            map["channels"] = .mapping(channels)
        }
        do { return try Yams.serialize(node: .mapping(map)) } catch { throw fail("cannot write the run's topology: \(error)") }
    }
}
