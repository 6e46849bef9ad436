import ArgumentParser

/// `watch-node` (and `watch-node` of a developer's own executable).
public struct WatchNodeCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "watch-node",
        abstract: "The emulated Apple Watch: workouts, heart-rate samples, ExerciseRecords, synced to phone-node.",
        discussion: """
            Binds its PUB and REP control sockets from the topology, connects to phone-node's PUB, and
            takes commands on stdin or through `topology ctl watch …` (see docs/COMMANDS.md).
            Events go to <data>/events.jsonl and stdout (docs/EVENTS.md).
            """)

    @OptionGroup var arguments: NodeArguments

    public init() {}

    public func run() throws {
        try NodeRunner.run(try arguments.options(for: .watch, extraApps: AppChoice.extraApps))
    }

    /// Parses `arguments` (nil: the process's) and runs the node on this thread, which must be the
    /// main thread (as `PhoneNodeCommand.start`).
    public static func start(_ arguments: [String]? = nil) {
        main(arguments)
    }
}
