import ArgumentParser
import Foundation
import PairSimCore
import PairSimRuntime

struct Ctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send one command to a running node and print its reply.",
        discussion: """
            Example: topology ctl watch finish-workout. The same command text works on a node's stdin
            and in scenario timelines (docs/COMMANDS.md).
            Exit status: 0 done, 1 the node refused the command, 3 the node did not answer.
            """)

    @Option(name: [.short, .long], help: "Topology file naming the node's control endpoint.")
    var topology: String = "Topologies/default.yaml"

    @Option(help: ArgumentHelp("Seconds to wait for the reply.", valueName: "seconds"))
    var timeout: Double = 5

    @Argument(help: "watch or phone.")
    var node: String

    @Argument(parsing: .captureForPassthrough, help: "The command and its arguments, e.g. start-workout running.")
    var command: [String] = []

    func run() throws {
        guard let name = NodeName(rawValue: node) else {
            throw ValidationError("unknown node \"\(node)\" (expected watch or phone)")
        }
        guard !command.isEmpty else { throw ValidationError("give a command, e.g. 'topology ctl \(node) status'") }
        guard timeout > 0, timeout <= 3_600 else { throw ValidationError("--timeout must be above 0 and at most 3600 seconds") }
        let endpoint = try loadTopology(topology).nodes[name]!.control
        // The shell took the quotes off: put them back around words that need them.
        var text = command.map(ParsedCommand.quote).joined(separator: " ")
        // A file named relative to here, not to the node's working directory.
        if ParsedCommand.pathVerbs.contains(command[0]), let parsed = try? ParsedCommand(parsing: text) {
            let resolved = parsed.resolvingPaths(relativeTo: FileManager.default.currentDirectoryPath)
            if resolved != parsed { text = resolved.text }
        }
        let reply: ControlClient.Reply
        do {
            reply = try ControlClient(endpoint: endpoint, timeoutMilliseconds: Int32(timeout * 1_000)).send(text)
        } catch {
            printError("error: \(error)")
            throw ExitCode(3)
        }
        if reply.ok {
            print(reply.text)
        } else {
            printError("error: \(reply.text)")
            throw ExitCode(1)
        }
    }
}

func printError(_ text: String) {
    var standardError = StandardError()
    print(text, to: &standardError)
}

struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        FileHandleWriter.standardError(string)
    }
}
