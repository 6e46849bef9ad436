/// The phone's command grammar (docs/COMMANDS.md lists the same).
extension PhoneModel {
    public static let commands: [CommandSpec] = [
        CommandSpec("status", "", "stores, channels and counters"),
        CommandSpec("help", "", "this list"),
    ]

    public mutating func handle(command line: ParsedCommand, now: EmulatedInstant) -> CommandResult {
        do {
            let spec = try CommandGrammar.spec(for: line.verb, in: Self.commands, node: .phone)
            let args = ArgumentReader(line, spec)
            switch line.verb {
            case "status":
                try args.expect(0...0)
                return CommandResult(ok: true, reply: status(now: now))
            case "help":
                return CommandResult(ok: true, reply: CommandGrammar.help(Self.commands, node: .phone))
            default:
                preconditionFailure("Invalid state: verb \(line.verb) in grammar but not handled")
            }
        } catch {
            return .failure(error)
        }
    }

    func status(now: EmulatedInstant) -> String {
        var lines = ["phone at \(now) seed \(seed)"]
        lines.append("healthkit store: \(store.workoutCount) workouts, \(store.sampleCount) samples")
        lines.append("records: \(records.count)")
        for channel in Channel.allCases {
            let c = sync.counters(channel)
            lines.append("\(channel): received \(c.receivedMessages) (\(c.receivedBytes) B), duplicates dropped \(c.duplicatesDropped), pending out \(sync.pending(channel))")
        }
        lines.append("wire rejected: \(sync.rejected.values.reduce(0, +))")
        return lines.joined(separator: "\n")
    }
}
