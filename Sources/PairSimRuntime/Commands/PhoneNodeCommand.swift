import ArgumentParser

/// `phone-node` (and a developer's own node executable).
public struct PhoneNodeCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "phone-node",
        abstract: "The emulated iPhone: its platform (HealthKit, lifecycle, CloudKit) and the app under test, fed by watch-node.",
        discussion: """
            Binds its PUB and REP control sockets from the topology, connects to watch-node's PUB, and
            takes commands on stdin or through `topology ctl phone …` (see docs/COMMANDS.md).
            Events go to <data>/events.jsonl and stdout (docs/EVENTS.md).
            """)

    @OptionGroup var arguments: NodeArguments

    public init() {}

    public func run() throws {
        try NodeRunner.run(try arguments.options(for: .phone, extraApps: AppChoice.extraApps))
    }

    /// Parses `arguments` (nil: the process's) and runs the node on this thread, which must be the
    /// main thread: the app's `DispatchQueue.main` work runs in its deliveries (docs/APPS.md).
    public static func start(_ arguments: [String]? = nil) {
        main(arguments)
    }
}
