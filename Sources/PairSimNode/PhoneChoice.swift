import ArgumentParser
import Foundation

/// `--app`, `--watch-app` and `--phone-bin`, for the commands that start or simulate a phone.
struct PhoneChoice: ParsableArguments {
    @Option(help: ArgumentHelp("The phone's app under test (default: the topology's phone.app, else reference); `topology apps` lists them.", valueName: "name"))
    var app: String?

    @Option(help: ArgumentHelp("A phone-node of your own (built from a package that depends on PairSim, e.g. Examples/MyHealthApp's my-phone-node).", valueName: "path"))
    var phoneBin: String?

    @OptionGroup var watch: WatchAppChoice

    /// The executable, checked.
    func binary() throws -> String? {
        guard let phoneBin else { return nil }
        guard FileManager.default.isExecutableFile(atPath: phoneBin) else {
            throw ValidationError("--phone-bin: \(phoneBin) is not an executable file")
        }
        return URL(fileURLWithPath: phoneBin).standardizedFileURL.path
    }

    var reproduceArguments: String {
        (app.map { " --app \($0)" } ?? "") + watch.reproduceArgument + (phoneBin.map { " --phone-bin \($0)" } ?? "")
    }
}
