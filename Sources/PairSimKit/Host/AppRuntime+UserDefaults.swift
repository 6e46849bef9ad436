import Foundation
import Synchronization

/// Foundation's `UserDefaults.standard` of the app: per node on a real node, empty per run in a
/// simulation.
extension AppRuntime {
    /// Whether `UserDefaults.standard` is written to disk after each delivery (a real node).
    static let synchronizesUserDefaults = Atomic<Bool>(false)

    /// A real node: Foundation's `UserDefaults.standard` (which Linux keeps per process name in
    /// `$XDG_CONFIG_HOME`, `~/.config` by default, shared by every run) lives in `directory`
    /// instead, one per node, and is written there after every delivery that changed it, so it
    /// survives the app's relaunch, the node's restart and kill -9, as on a device. Call before
    /// anything reads `UserDefaults`. Measured: a `synchronize()` with nothing changed costs
    /// 0.1-0.6 µs; one after a change ~270 µs (it writes the file).
    ///
    /// swift-corelibs-foundation reads `XDG_CONFIG_HOME` when the process starts: measured on this
    /// toolchain, a `setenv` in `main` changes nothing (the file still went to `~/.config`, where
    /// concurrent runs of one executable read each other's values). So when the environment does
    /// not already name `directory`, this sets it and replaces the process with a fresh image of
    /// itself (`execv` of `/proc/self/exe`, same pid, arguments and descriptors), which starts
    /// with it: one extra exec per node start.
    /// A launcher that sets `XDG_CONFIG_HOME` to `configHome(for: directory)` in the node's
    /// environment spares it that exec (`NodeLaunch.dataDirectory`).
    package static func keepUserDefaults(in directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let absolute = configHome(for: directory)
        if ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"] != absolute {
            setenv("XDG_CONFIG_HOME", absolute, 1)
            execv("/proc/self/exe", CommandLine.unsafeArgv)
            // Only on failure: carry on, warning that the app's defaults are not the node's own.
            FileHandle.standardError.write(Data("warning: could not restart with XDG_CONFIG_HOME=\(absolute) (errno \(errno)); the app's UserDefaults are kept in ~/.config\n".utf8))
        }
        synchronizesUserDefaults.store(true, ordering: .relaxed)
    }

    /// The `XDG_CONFIG_HOME` that keeps UserDefaults in `directory`.
    package static func configHome(for directory: String) -> String {
        URL(fileURLWithPath: directory).standardizedFileURL.path
    }

    /// A simulation: `UserDefaults.standard` starts empty (nothing from an earlier run or seed);
    /// it stays in memory. Checked first (~15 µs): clearing costs ~0.5 ms.
    package static func clearUserDefaults() {
        let defaults = UserDefaults.standard
        let domain = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
        if let values = defaults.persistentDomain(forName: domain), !values.isEmpty {
            defaults.removePersistentDomain(forName: domain)
        }
    }
}
