import Foundation
internal import PairSimCore

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
    /// Background tasks to handle: complete each (`setTaskCompletedWithSnapshot(_:)`) when done.
    func handle(_ backgroundTasks: Set<WKRefreshBackgroundTask>)
}

extension WKApplicationDelegate {
    public func applicationDidFinishLaunching() {}
    public func applicationDidBecomeActive() {}
    public func applicationWillResignActive() {}
    public func applicationWillEnterForeground() {}
    public func applicationDidEnterBackground() {}
    public func handleActiveWorkoutRecovery() {}
    /// As Xcode's watch app template does: every task completed at once, without a snapshot.
    public func handle(_ backgroundTasks: Set<WKRefreshBackgroundTask>) {
        for task in backgroundTasks { task.setTaskCompletedWithSnapshot(false) }
    }
}

/// The watch app's application object (`WKApplication`, and `WKExtension` before watchOS 7's
/// name): background refresh scheduling and the app's state.
public final class WKApplication: @unchecked Sendable {
    // @unchecked: used on the driver's thread only (PairSim reports other threads).
    static let instance = WKApplication()

    public static func shared() -> WKApplication { instance }

    /// Schedules a background app refresh task at `preferredFireDate`: watchOS launches or wakes the
    /// app in the background then (later when the hour's budget, `watch.backgroundRefresh.perHour`,
    /// is used up) and hands it a `WKApplicationRefreshBackgroundTask` carrying `userInfo`.
    public func scheduleBackgroundRefresh(withPreferredDate preferredFireDate: Date, userInfo: (any NSSecureCoding & NSObjectProtocol)?,
                                          scheduledCompletion: @escaping (Error?) -> Void) {
        let runtime = AppRuntime.require("WKApplication.scheduleBackgroundRefresh")
        runtime.request({ id in
            if let userInfo { runtime.refreshUserInfo[id] = userInfo }
            return .scheduleRefresh(id: id, at: preferredFireDate.instant)
        }) { error in scheduledCompletion(error.map(HKError.init)) }
    }

    public func scheduleBackgroundRefresh(withPreferredDate preferredFireDate: Date, userInfo: (any NSSecureCoding & NSObjectProtocol)?) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            scheduleBackgroundRefresh(withPreferredDate: preferredFireDate, userInfo: userInfo) { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }

    /// Active on screen, background off it.
    public var applicationState: WKApplicationState {
        (AppRuntime.current?.app as? WatchAppHost)?.phase == .active ? .active : .background
    }
}

/// Differs: the same class as `WKApplication` (Apple's `WKExtension` is a class of its own with these members)
public typealias WKExtension = WKApplication

/// `WKApplicationState`.
public enum WKApplicationState: Int, Sendable {
    case active = 0, inactive = 1, background = 2
}

/// A background task watchOS hands the app (`WKRefreshBackgroundTask`): complete it when done.
public class WKRefreshBackgroundTask: Hashable, @unchecked Sendable {
    let token: Int
    let runtime: AppRuntime
    var completed = false
    /// What the app passed when it scheduled the task (refresh tasks), else nil.
    public let userInfo: (any NSSecureCoding & NSObjectProtocol)?

    init(token: Int, runtime: AppRuntime, userInfo: (any NSSecureCoding & NSObjectProtocol)?) {
        self.token = token
        self.runtime = runtime
        self.userInfo = userInfo
    }

    static func make(_ task: BackgroundTask, runtime: AppRuntime) -> WKRefreshBackgroundTask {
        switch task.kind {
        case .appRefresh(let id):
            WKApplicationRefreshBackgroundTask(token: task.token, runtime: runtime, userInfo: runtime.refreshUserInfo.removeValue(forKey: id))
        case .watchConnectivity:
            WKWatchConnectivityRefreshBackgroundTask(token: task.token, runtime: runtime, userInfo: nil)
        case .snapshot:
            WKSnapshotRefreshBackgroundTask(token: task.token, runtime: runtime, userInfo: nil)
        }
    }

    /// Ends the task; the app is suspended once it has none left (and no workout runs).
    public func setTaskCompletedWithSnapshot(_ refreshSnapshot: Bool) {
        guard !completed else { return }
        completed = true
        runtime.send(.completeTask(token: token, snapshot: refreshSnapshot))
    }

    public static func == (lhs: WKRefreshBackgroundTask, rhs: WKRefreshBackgroundTask) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// `WKApplicationRefreshBackgroundTask`: a refresh the app scheduled.
public final class WKApplicationRefreshBackgroundTask: WKRefreshBackgroundTask, @unchecked Sendable {}

/// `WKWatchConnectivityRefreshBackgroundTask`: the phone sent user info, a context or a file while
/// the app was suspended; its `WCSession` delegate gets them. Complete it once `hasContentPending` is false.
public final class WKWatchConnectivityRefreshBackgroundTask: WKRefreshBackgroundTask, @unchecked Sendable {}

/// `WKSnapshotRefreshBackgroundTask`: the app left the screen; update the UI for its snapshot.
public final class WKSnapshotRefreshBackgroundTask: WKRefreshBackgroundTask, @unchecked Sendable {
    /// Ends the snapshot task.
    public func setTaskCompleted(restoredDefaultState: Bool, estimatedSnapshotExpiration: Date?, userInfo: (any NSSecureCoding & NSObjectProtocol)?) {
        setTaskCompletedWithSnapshot(false)
    }
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
