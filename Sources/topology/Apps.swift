import ArgumentParser
import PairSimCore
import PairSimRuntime

struct Apps: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the apps this build can run on the phone (phone.app in a topology, --app on simulate, run and phone-node).")

    @Argument(help: "Topology whose settings configure the apps (default: Topologies/default.yaml).")
    var file: String = "Topologies/default.yaml"

    func run() throws {
        let topology = try loadTopology(file)
        for app in AppChoice.all(for: topology) {
            let marker = app.name == topology.phone.app.name ? " (this topology's)" : ""
            print("\(app.name)\(marker) — \(app.summary)")
            for action in app.actions { print("    \(action.verb) \(action.usage)".trimmingTrailing + "  \(action.summary)") }
        }
    }
}

extension String {
    var trimmingTrailing: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
