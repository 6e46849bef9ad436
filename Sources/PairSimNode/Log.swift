import ArgumentParser
import PairSimCore
import PairSimRuntime

struct Log: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print both nodes' event logs merged by emulated time.",
        discussion: "Reads events.jsonl from each node's data directory; works while the pair runs or after.")

    @Argument(help: "Topology file whose data directories to read.")
    var file: String = "Topologies/default.yaml"

    @Option(help: ArgumentHelp("Only this node: watch or phone.", valueName: "node"))
    var node: String?

    @Option(help: ArgumentHelp("Only events whose name starts with this, e.g. sync. or hk.saved.", valueName: "prefix"))
    var event: String?

    @Option(help: ArgumentHelp("Only lines containing this text, e.g. a workout UUID.", valueName: "text"))
    var grep: String?

    @Flag(help: "Print JSON lines instead of readable ones.")
    var json = false

    @Option(help: ArgumentHelp("Write the (filtered) log as a Chrome Trace Event / Perfetto trace here instead of printing it.", valueName: "file"))
    var trace: String?

    func run() throws {
        if let node, NodeName(rawValue: node) == nil { throw ValidationError("--node must be watch or phone, got \"\(node)\"") }
        let topology = try loadTopology(file)
        let merged = EventLog.merged(topology)
        if let trace {
            let kept = merged.filter { event in
                (node == nil || event.node.rawValue == node) && (self.event.map { event.name.hasPrefix($0) } ?? true)
                    && (grep.map { String(decoding: event.jsonLine, as: UTF8.self).contains($0) } ?? true)
            }
            try writeTrace(events: kept, end: kept.last?.at ?? .zero, to: trace,
                           metadata: ["topology": .string(topology.name), "events": .int(Int64(kept.count))])
            print("trace: \(trace) (\(kept.count) events; open it in ui.perfetto.dev or chrome://tracing)")
            return
        }
        for event in merged {
            if let node, event.node.rawValue != node { continue }
            if let prefix = self.event, !event.name.hasPrefix(prefix) { continue }
            let line = json ? String(decoding: event.jsonLine, as: UTF8.self) : "\(event.node) │ \(event.humanLine)"
            if let grep, !line.contains(grep) { continue }
            print(line)
        }
    }
}
