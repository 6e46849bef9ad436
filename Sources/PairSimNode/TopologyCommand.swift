import ArgumentParser
import PairSimRuntime

/// `topology`, and every subcommand of it in a developer's own executable (`PairSimNodeMain`).
public struct TopologyCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: SwarmResults.programName,
        abstract: "Start, drive, inspect and stop a watch-node/phone-node pair described by a topology file.",
        discussion: "Topology files: docs/TOPOLOGY.md. Commands for ctl: docs/COMMANDS.md. Events: docs/EVENTS.md.",
        subcommands: [Up.self, Down.self, Ctl.self, Log.self, Check.self, Run.self, SimulateCommand.self, SwarmCommand.self, Compare.self, Apps.self, MakeHealthExport.self])

    public init() {}
}
