import ArgumentParser
import PairSimCore
import PairSimRuntime

struct Apps: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the apps this build can run: iPhone apps (phone.app in a topology, --app on simulate, run and phone-node) and watch apps (watch.app, --app on watch-node).")

    @Argument(help: "Topology whose settings configure the apps (default: Topologies/default.yaml).")
    var file: String = "Topologies/default.yaml"

    func run() throws {
        let topology = try loadTopology(file)
        for app in AppChoice.all(for: topology) {
            let chosen = app.device == .phone ? app.name == topology.phone.app.name : app.name == topology.watch.app
            let marker = chosen ? " (this topology's)" : ""
            print("\(app.name)\(app.device == .watch ? " [watch]" : "")\(marker) — \(app.summary)")
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
