import ArgumentParser
import PairSimRuntime

struct Down: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Stop the pair started by 'topology up' for this topology; leaves no process behind.")

    @Argument(help: "Topology file of the running pair.")
    var file: String = "Topologies/default.yaml"

    func run() throws {
        let (lines, ok) = PairDown.run(try loadTopology(file))
        lines.forEach { print($0) }
        if !ok { throw ExitCode(1) }
    }
}
