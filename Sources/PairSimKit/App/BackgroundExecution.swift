import Foundation
package import PairSimCore

/// Why the process was launched (`LaunchOptions.reason`, R: F2).
public enum LaunchReason: String, Sendable {
    /// The user opened it (or it was open when the node started).
    case user
    /// HealthKit's background delivery.
    case healthKit
    /// A WatchConnectivity message from the watch.
    case watchConnectivity
    /// A `BGTaskScheduler` task.
    case backgroundTask
    /// A silent (background) notification: CloudKit's, for the app's synced records
    /// (`UIApplication.LaunchOptionsKey.remoteNotification` on a device).
    case remoteNotification
    /// Another system reason (the node restarted with the app running).
    case system

    package init(_ reason: AppLaunchReason) { self = LaunchReason(rawValue: reason.rawValue)! }
}

// MARK: UIKit

/// UIKit's `UIApplication`: the app's state and its background execution time (R: F2).
public final class UIApplication: @unchecked Sendable {
    // @unchecked: used on the driver's thread only (PairSim reports other threads).
    static let instance = UIApplication()

    public static var shared: UIApplication { instance }

    /// `UIApplication.State`.
    public enum State: Int, Sendable {
        case active = 0, inactive = 1, background = 2
    }

    /// Active on screen, inactive, or background.
    public var applicationState: State {
        switch AppRuntime.current?.scenePhase {
        case .active: .active
        case .inactive: .inactive
        default: .background
        }
    }

    /// Begins a background task: while any is open, a backgrounded app keeps running past its
    /// budget, up to `app.backgroundTaskTime` (30 s) after it began running in the background.
    /// `handler` runs 1 s before that time ends; a task still open then makes iOS end the app
    /// (`app.misbehaved kind=background-task-not-ended`). Call `endBackgroundTask(_:)` when done.
    public func beginBackgroundTask(withName taskName: String?, expirationHandler handler: (() -> Void)? = nil) -> UIBackgroundTaskIdentifier {
        guard let runtime = AppRuntime.current else { return .invalid }
        let token = runtime.id()
        runtime.backgroundTaskHandlers[token] = .some(handler)
        runtime.send(.beginBackgroundTask(token: token, name: taskName))
        return UIBackgroundTaskIdentifier(rawValue: token)
    }

    public func beginBackgroundTask(expirationHandler handler: (() -> Void)? = nil) -> UIBackgroundTaskIdentifier {
        beginBackgroundTask(withName: nil, expirationHandler: handler)
    }

    /// Ends a background task; with none left (and no wake or BGTask open) the app is suspended
    /// soon (`app.suspendAfterCompletion`).
    public func endBackgroundTask(_ identifier: UIBackgroundTaskIdentifier) {
        guard let runtime = AppRuntime.current, identifier != .invalid,
              runtime.backgroundTaskHandlers.removeValue(forKey: identifier.rawValue) != nil else { return }
        runtime.send(.endBackgroundTask(token: identifier.rawValue))
    }

}

/// `UIBackgroundTaskIdentifier`.
public struct UIBackgroundTaskIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let invalid = UIBackgroundTaskIdentifier(rawValue: 0)
}

// MARK: BackgroundTasks

/// The BackgroundTasks framework's `BGTaskScheduler` (R: F2). Register each task's launch handler
/// before `didFinishLaunching` returns, then submit requests: the system runs a refresh at its
/// discretion after the request's `earliestBeginDate` (`app.refreshTaskDelay`), a processing task
/// once the device is idle (locked) and, when it asks, on external power (`plug-in`) — launching
/// or waking the app in the background — and never for an app the user force-quit until it is
/// opened again. Nothing guarantees a request runs.
public final class BGTaskScheduler: @unchecked Sendable {
    static let instance = BGTaskScheduler()

    public static var shared: BGTaskScheduler { instance }

    /// `BGTaskScheduler.Error`.
    public struct Error: Swift.Error, Hashable, Sendable, CustomStringConvertible {
        public enum Code: Int, Sendable {
            case unavailable = 1, tooManyPendingTaskRequests = 2, notPermitted = 3
        }
        public let code: Code
        public init(_ code: Code) { self.code = code }
        public var description: String { "BGTaskScheduler.Error(\(code))" }
        public var localizedDescription: String {
            switch code {
            case .unavailable: "Background tasks are unavailable"
            case .tooManyPendingTaskRequests: "Too many pending task requests"
            case .notPermitted: "The task identifier is not permitted"
            }
        }
    }

    /// Registers the launch handler for `identifier`. Only while the app launches (before
    /// `didFinishLaunching` returns) and once per identifier: otherwise false, reported as a
    /// misbehaviour (iOS raises an exception).
    /// Differs: `queue` is ignored — PairSim calls the handler on the app's thread.
    @discardableResult
    public func register(forTaskWithIdentifier identifier: String, using queue: DispatchQueue?, launchHandler: @escaping (BGTask) -> Void) -> Bool {
        guard let runtime = AppRuntime.current else { return false }
        guard runtime.launching else {
            runtime.report("bgtask-registered-late", "BGTaskScheduler.register(forTaskWithIdentifier: \(identifier)) after didFinishLaunching returned (iOS raises an exception)")
            return false
        }
        guard runtime.bgLaunchHandlers[identifier] == nil else {
            runtime.report("bgtask-registered-twice", "a launch handler for \(identifier) is already registered")
            return false
        }
        runtime.bgLaunchHandlers[identifier] = launchHandler
        return true
    }

    /// Submits a request, replacing one with the same identifier. Throws `notPermitted` for an
    /// identifier with no registered launch handler (PairSim's stand-in for Info.plist's
    /// `BGTaskSchedulerPermittedIdentifiers`).
    /// Differs: beyond one refresh and ten processing requests the system refuses it
    /// (`bgtask.refused code=tooManyPendingTaskRequests`) without throwing.
    public func submit(_ taskRequest: BGTaskRequest) throws {
        guard let runtime = AppRuntime.current else { throw Error(.unavailable) }
        guard runtime.bgLaunchHandlers[taskRequest.identifier] != nil else { throw Error(.notPermitted) }
        let processing = taskRequest as? BGProcessingTaskRequest
        let request = BGRequest(identifier: taskRequest.identifier, processing: processing != nil,
                                earliestBegin: taskRequest.earliestBeginDate?.instant,
                                requiresExternalPower: processing?.requiresExternalPower ?? false,
                                requiresNetworkConnectivity: processing?.requiresNetworkConnectivity ?? false)
        // The system keeps the requests (across launches) and judges the limits when it gets this
        // one, after `submit` returned: a refusal is `bgtask.refused`, not thrown.
        runtime.request({ .bgSubmit(id: $0, request) }) { _ in }
    }

    /// Cancels the request for `identifier`, if one waits.
    public func cancel(taskRequestWithIdentifier identifier: String) {
        guard let runtime = AppRuntime.current else { return }
        runtime.send(.bgCancel(identifier: identifier))
    }

    public func cancelAllTaskRequests() {
        guard let runtime = AppRuntime.current else { return }
        runtime.send(.bgCancel(identifier: nil))
    }
}

/// `BGTaskRequest`: an identifier and the earliest date it may run.
public class BGTaskRequest: @unchecked Sendable {
    public let identifier: String
    public var earliestBeginDate: Date?
    init(identifier: String) { self.identifier = identifier }
}

/// A short refresh of the app's content (`refreshTaskTime`, 30 s).
public final class BGAppRefreshTaskRequest: BGTaskRequest, @unchecked Sendable {
    public override init(identifier: String) { super.init(identifier: identifier) }
}

/// Deferrable work run when the device is idle (`processingTaskTime`, 5 min).
public final class BGProcessingTaskRequest: BGTaskRequest, @unchecked Sendable {
    public var requiresNetworkConnectivity = false
    public var requiresExternalPower = false
    public override init(identifier: String) { super.init(identifier: identifier) }
}

/// A task the system runs: set `expirationHandler`, and call `setTaskCompleted(success:)` when done.
public class BGTask: @unchecked Sendable {
    public let identifier: String
    /// Runs 1 s before the task's time ends; a task not completed by then makes iOS end the app.
    public var expirationHandler: (() -> Void)?
    let token: Int
    let runtime: AppRuntime
    var completed = false

    init(token: Int, identifier: String, runtime: AppRuntime) {
        self.token = token
        self.identifier = identifier
        self.runtime = runtime
    }

    public func setTaskCompleted(success: Bool) {
        guard !completed else { return }
        completed = true
        runtime.runningBGTasks[token] = nil
        runtime.send(.bgTaskCompleted(token: token, success: success))
    }
}

public final class BGAppRefreshTask: BGTask, @unchecked Sendable {}
public final class BGProcessingTask: BGTask, @unchecked Sendable {}

// MARK: WidgetKit

/// WidgetKit's `WidgetCenter`, as the iPhone app uses it to ask for its widgets' timelines to be
/// reloaded (R: F4). On screen a reload happens at once and is free; off screen each counts
/// against the day's budget (`app.widgetReloadsPerDay`, 40), and past it waits for the next day's
/// (`widget.reloaded` with `counted` and `remaining`, `widget.throttled`). The widgets themselves —
/// their timeline providers and views — are not modelled.
public final class WidgetCenter: @unchecked Sendable {
    static let instance = WidgetCenter()

    public static var shared: WidgetCenter { instance }

    public func reloadTimelines(ofKind kind: String) {
        AppRuntime.current?.send(.widgetReload(kind: kind))
    }

    public func reloadAllTimelines() {
        AppRuntime.current?.send(.widgetReload(kind: nil))
    }
}
