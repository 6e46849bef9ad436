import Foundation
import PairSimRuntime
import PairSimKit

/// The `main` of a developer's own node executable (Examples/MyHealthApp): `my-phone-node …` is a
/// phone-node that also knows `apps`; `my-phone-node simulate FILE …` plays a scenario in the
/// simulator with them (`topology simulate --phone-bin` calls it so). Call it from `main.swift`: the
/// node's loop runs on the main thread, where the app's `DispatchQueue.main` work is run in order.
public enum PairSimNodeMain {
    public static func main(apps: [AppRegistration]) {
        AppChoice.add(apps)
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "simulate" {
            SimulateCommand.main(Array(arguments.dropFirst()))
        } else if arguments.first == "apps" {
            for app in apps { print("\(app.name)\t\(app.summary)") }
        } else {
            PhoneNodeCommand.start(arguments)
        }
    }
}
