import ArgumentParser
import PairSimRuntime

@main
struct PhoneNode: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "phone-node",
        abstract: "The emulated iPhone: its HealthKit store and app, fed by watch-node over both channels.",
        discussion: """
            Binds its PUB and REP control sockets from the topology, connects to watch-node's PUB, and
            takes commands on stdin or through `topology ctl phone …` (see docs/COMMANDS.md).
            Events go to <data>/events.jsonl and stdout (docs/EVENTS.md).
            """)

    @OptionGroup var arguments: NodeArguments

    func run() async throws {
        try await NodeRunner.run(try arguments.options(for: .phone))
    }
}
