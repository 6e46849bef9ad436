import ArgumentParser
import PairSimRuntime

@main
struct WatchNode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch-node",
        abstract: "The emulated Apple Watch: workouts, heart-rate samples, ExerciseRecords, synced to phone-node.",
        discussion: """
            Binds its PUB and REP control sockets from the topology, connects to phone-node's PUB, and
            takes commands on stdin or through `topology ctl watch …` (see docs/COMMANDS.md).
            Events go to <data>/events.jsonl and stdout (docs/EVENTS.md).
            """)

    @OptionGroup var arguments: NodeArguments

    func run() throws {
        try NodeRunner.run(try arguments.options(for: .watch))
    }
}
