import ArgumentParser
import PairSimCore
import PairSimRuntime

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Validate topology files and print what they describe.")

    @Argument(help: "Topology files.")
    var files: [String]

    func run() throws {
        for file in files {
            let topology = try loadTopology(file)
            print("\(file): ok — \(topology.name), seed \(topology.seed), time scale \(PairSupervisor.show(topology.timeScale))×")
            for node in NodeName.allCases {
                let e = topology.nodes[node]!
                print("  \(node): publish \(e.publish), control \(e.control), data \(e.data)")
            }
            for channel in Channel.allCases {
                let c = topology.channel(channel)
                var text = "  \(channel): latency \(c.latency)"
                if c.loss > 0 { text += ", loss \(c.loss)" }
                if c.duplicate > 0 { text += ", duplicate \(c.duplicate)" }
                if c.reorder > 0 { text += ", reorder \(c.reorder)" }
                if let export = c.exportInterval { text += ", export every \(export)" }
                if !c.partitions.isEmpty { text += ", \(c.partitions.count) partition window(s)" }
                if channel == .watchconnectivity {
                    let wc = topology.watchConnectivity
                    if wc.messageFailure > 0 { text += ", sendMessage fails \(wc.messageFailure)" }
                    if wc.stallChance > 0 { text += ", userInfo stalls \(wc.stallChance) for \(wc.stallFor.map { "\($0)" } ?? "until nudged")" }
                    text += ", message timeout \(wc.messageTimeout)"
                    if topology.watch.workoutMessage { text += "; the watch app sends \"workout finished\"" }
                }
                print(text)
            }
        }
    }
}
