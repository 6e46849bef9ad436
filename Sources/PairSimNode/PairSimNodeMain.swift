import Foundation
import PairSimRuntime
import PairSimKit

/// The `main` of a developer's own executable (Examples/MyHealthApp's `my-health`): one binary
/// that knows their apps — iPhone and watch — besides PairSim's, serves as both nodes and offers
/// every `topology` subcommand:
///
/// - `my-health watch-node …` / `my-health phone-node …`: a node, as `watch-node` / `phone-node`;
/// - `my-health simulate|swarm|run|up|down|ctl|log|check|compare|apps …`: as `topology …`, and
///   the nodes it starts are this executable (`my-health watch-node …`), so nothing can pair the
///   wrong binaries; reproduce lines name it;
/// - `my-health --topology FILE …` (arguments that start with an option): a phone node, as the
///   earlier `my-phone-node` was (`topology run --phone-bin` starts one so).
///
/// Call it from `main.swift`: a node's loop runs on the main thread, where the app's
/// `DispatchQueue.main` work is run in order.
public enum PairSimNodeMain {
    public static func main(apps: [AppRegistration]) {
        AppChoice.add(apps)
        let arguments = Array(CommandLine.arguments.dropFirst())
        switch arguments.first {
        case "watch-node":
            WatchNodeCommand.start(Array(arguments.dropFirst()))
        case "phone-node":
            PhoneNodeCommand.start(Array(arguments.dropFirst()))
        case let first? where first.hasPrefix("-") && first != "-h" && first != "--help":
            PhoneNodeCommand.start(arguments)
        default:
            NodeLaunch.servesBothNodes.withLock { $0 = Bundle.main.executablePath ?? CommandLine.arguments[0] }
            TopologyCommand.main(arguments)
        }
    }
}
