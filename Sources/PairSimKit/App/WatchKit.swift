import Foundation

/// WatchKit's app delegate (`WKApplicationDelegate`): the watch app's lifecycle, called on the
/// app's driver thread. PairSim launches the app when the watch node starts, in the foreground when
/// the watch app is on screen (`foreground`), else in the background; `foreground` and `background`
/// move it between the two.
///
/// Differs: no `handle(_:)`: background tasks, system launches and suspension are not modelled yet
///
/// A hosted watch app runs from the node's start to its stop: background refresh tasks
/// (`WKApplicationRefreshBackgroundTask`, `WKWatchConnectivityRefreshBackgroundTask`, snapshots) and
/// a launch by the system for a transfer are to come.
public protocol WKApplicationDelegate: AnyObject {
    func applicationDidFinishLaunching()
    func applicationDidBecomeActive()
    func applicationWillResignActive()
    func applicationWillEnterForeground()
    func applicationDidEnterBackground()
    /// The system relaunched the app with a workout session under way (after a crash, or a
    /// restart of the watch node): call `HKHealthStore.recoverActiveWorkoutSession` here.
    func handleActiveWorkoutRecovery()
}

extension WKApplicationDelegate {
    public func applicationDidFinishLaunching() {}
    public func applicationDidBecomeActive() {}
    public func applicationWillResignActive() {}
    public func applicationWillEnterForeground() {}
    public func applicationDidEnterBackground() {}
    public func handleActiveWorkoutRecovery() {}
}

/// A watch app PairSim runs (R: A8): its WatchKit delegate, plus the UI actions a person (or a
/// scenario) performs on the watch — starting and ending a workout, say.
///
/// PairSim creates a new instance for every launch of the watch app's process.
public protocol PairSimWatchApp: WKApplicationDelegate {
    /// Runs one UI action (from `topology ctl watch …`, the node's stdin or a scenario); the
    /// returned text is the reply. Throwing refuses the action with the error's text.
    func perform(_ action: UserAction) async throws -> String
    /// Lines for the watch's `status`.
    func status() -> [String]
}

extension PairSimWatchApp {
    public func perform(_ action: UserAction) async throws -> String { throw AppError("unknown action \(action.verb)") }
    public func status() -> [String] { [] }
}

/// A watch app seen through the app runtime's calls: launch and scene phases become WatchKit's
/// delegate calls, in the order watchOS makes them.
final class WatchAppHost: PairSimApp {
    let app: any PairSimWatchApp
    /// `.inactive` between a foreground launch and its first activation.
    var phase: AppScenePhase = .inactive

    init(_ app: any PairSimWatchApp) { self.app = app }

    func didFinishLaunching(_ options: LaunchOptions) {
        phase = options.inBackground ? .background : .inactive
        app.applicationDidFinishLaunching()
    }

    func scenePhaseDidChange(to phase: AppScenePhase) {
        let from = self.phase
        self.phase = phase
        switch (from, phase) {
        case (.background, .active):
            app.applicationWillEnterForeground()
            app.applicationDidBecomeActive()
        case (.inactive, .active):
            app.applicationDidBecomeActive()
        case (.active, .inactive):
            app.applicationWillResignActive()
        case (.active, .background):
            app.applicationWillResignActive()
            app.applicationDidEnterBackground()
        case (.inactive, .background):
            app.applicationDidEnterBackground()
        default:
            break
        }
    }

    func perform(_ action: UserAction) async throws -> String { try await app.perform(action) }
    func status() -> [String] { app.status() }
}
