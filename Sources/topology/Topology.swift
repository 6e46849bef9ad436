import ArgumentParser
import PairSimNode
import PairSimRuntime

@main
struct TopologyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "topology",
        abstract: "Start, drive, inspect and stop a watch-node/phone-node pair described by a topology file.",
        discussion: "Topology files: docs/TOPOLOGY.md. Commands for ctl: docs/COMMANDS.md. Events: docs/EVENTS.md.",
        subcommands: [Up.self, Down.self, Ctl.self, Log.self, Check.self, Run.self, SimulateCommand.self, SwarmCommand.self, Compare.self, Apps.self, MakeHealthExport.self])
}
