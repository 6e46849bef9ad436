import ArgumentParser

@main
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pairsim-bench",
        abstract: "PairSim's benchmarks (run them through scripts/bench.sh, on a release build).",
        subcommands: [SyncBench.self, DownsampleBench.self, SimulateBench.self, LockedBench.self, SwarmBench.self, ReplayBench.self, TurnBench.self, RowsBench.self, CZeroMQSide.self])
}
