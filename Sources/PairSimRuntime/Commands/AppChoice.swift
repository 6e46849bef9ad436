import ArgumentParser
import Foundation
import PairSimApps
import PairSimConfig
import PairSimCore
import PairSimKit
import Synchronization

/// The apps a node or simulation can run: this build's catalog, plus what a developer's own
/// executable adds (`PairSimNodeMain.main(apps:)`).
public enum AppChoice {
    static let extra = Mutex<[AppRegistration]>([])

    /// Adds a developer's apps (before any command runs).
    public static func add(_ apps: [AppRegistration]) {
        extra.withLock { $0 += apps }
    }

    /// The developer's apps added so far.
    public static var extraApps: [AppRegistration] { extra.withLock { $0 } }

    /// The app `name` (default: the topology's `phone.app`), or a clear error listing the choices.
    public static func resolve(_ name: String?, topology: Topology) throws -> AppRegistration {
        do {
            return try AppCatalog.registration(named: name ?? topology.phone.app.name, topology: topology, extra: extraApps)
        } catch {
            throw ValidationError(error.message)
        }
    }

    /// The topology's watch app (`watch.app`, the reference watch app unless it names another).
    public static func resolveWatch(topology: Topology) throws -> AppRegistration {
        do {
            return try AppCatalog.watchApp(for: topology, extra: extraApps)
        } catch {
            throw ValidationError(error.message)
        }
    }

    /// Every app: the developer's first, then the catalog's.
    public static func all(for topology: Topology) -> [AppRegistration] {
        extraApps + AppCatalog.registrations(for: topology)
    }

    /// UI actions scenario timelines may use.
    static var actions: [CommandSpec] { AppCatalog.knownActions + extraApps.flatMap(\.commandSpecs) }
}

/// Loads a scenario, turning its error into a clean CLI failure.
/// Prints (on stderr) what its expectations may not mean as written, unless `warn` is false.
public func loadScenario(_ path: String, warn: Bool = true) throws -> Scenario {
    let scenario: Scenario
    do {
        scenario = try ScenarioLoader.load(path: path, appCommands: AppChoice.actions)
    } catch {
        throw ValidationError(error.description)
    }
    if warn { for warning in scenario.warnings { FileHandleWriter.standardError("warning: \(path): \(warning)\n") } }
    return scenario
}
