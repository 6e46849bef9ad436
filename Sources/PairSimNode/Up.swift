#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import PairSimConfig
import PairSimCore
import PairSimRuntime

struct Up: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Start both nodes of a topology, relay their output, stop them on Ctrl-C or 'topology down'.",
        discussion: """
            Both nodes come from the same build as this launcher and share one epoch and time scale.
            Type 'watch <command>' or 'phone <command>' to drive them. Exits non-zero if a node failed.
            """)

    @Argument(help: "Topology file, e.g. Topologies/default.yaml.")
    var file: String = "Topologies/default.yaml"

    @Option(help: ArgumentHelp("Override the topology's time scale (emulated seconds per wall second).", valueName: "factor"))
    var timeScale: Double?

    @Option(help: ArgumentHelp("Colour output: auto, always, never.", valueName: "when"))
    var color: String = "auto"

    @Flag(help: "Do not read node commands from stdin.")
    var noStdin = false

    @Flag(help: "Start both nodes from nothing: delete their saved state and event logs first.")
    var fresh = false

    @OptionGroup var phone: PhoneChoice

    func run() throws {
        var topology = try loadTopology(file)
        if let timeScale {
            if let problem = Topology.timeScaleProblem(timeScale) { throw ValidationError(problem) }
            topology.timeScale = timeScale
        }
        var options = PairSupervisor.Options(
            topology: topology, topologyPath: file, binDirectory: executableDirectory(),
            color: color == "always" || (color == "auto" && isatty(STDOUT_FILENO) != 0))
        options.readStdin = !noStdin
        options.fresh = fresh
        options.app = phone.app
        options.watchApp = phone.watch.watchApp
        _ = try phone.watch.applied(to: topology)
        options.phoneBinary = try phone.binary()
        if options.phoneBinary == nil { _ = try AppChoice.resolve(phone.app, topology: topology) }
        let status = PairSupervisor(options: options).run()
        if status != 0 { throw ExitCode(status) }
    }
}

/// Loads a topology, turning its error into a clean CLI failure.
func loadTopology(_ path: String) throws -> PairSimCore.Topology {
    do {
        return try TopologyLoader.load(path: path)
    } catch {
        throw ValidationError(error.description)
    }
}

/// The directory this executable lives in: the nodes are built next to it.
func executableDirectory() -> String {
    let path = Bundle.main.executablePath ?? Swift.CommandLine.arguments[0]
    return (URL(fileURLWithPath: path).resolvingSymlinksInPath().deletingLastPathComponent().path)
}
