import ArgumentParser
import PairSimConfig
import PairSimCore
import PairSimRuntime

/// `--watch-app NAME`, for every command that starts or simulates a watch (`up`, `run`,
/// `simulate`, `swarm`): another of the build's watch apps than the topology's `watch.app`.
struct WatchAppChoice: ParsableArguments {
    @Option(help: ArgumentHelp("The watch's app under test (default: the topology's watch.app, else reference).", valueName: "name"))
    var watchApp: String?

    /// `topology` with the chosen watch app, refused here (before anything starts) when this build has no such watch app.
    func applied(to topology: Topology) throws -> Topology {
        guard let watchApp else { return topology }
        var chosen = topology
        chosen.watch.app = watchApp
        _ = try AppChoice.resolveWatch(topology: chosen)
        return chosen
    }

    var reproduceArgument: String { watchApp.map { " --watch-app \($0)" } ?? "" }
}
