import Foundation
package import PairSimCore

/// An iPhone app PairSim runs (R: A2): what UIKit's app delegate and SwiftUI's scene phase call,
/// plus the UI actions a person (or a scenario) performs in it.
///
/// PairSim creates a new instance for every process launch and drops it when the process ends;
/// keep what must survive in `AppDefaults`, HealthKit or `ExerciseRecords`.
public protocol PairSimApp: AnyObject {
    /// `application(_:didFinishLaunchingWithOptions:)`: register observer queries and background
    /// delivery here — a background launch for a wake runs only this before the update arrives.
    func didFinishLaunching(_ options: LaunchOptions)
    /// SwiftUI's `onChange(of: scenePhase)`.
    func scenePhaseDidChange(to phase: AppScenePhase)
    /// Runs one UI action (from `topology ctl phone …`, the node's stdin or a scenario); the
    /// returned text is the reply. Throwing refuses the action with the error's text.
    func perform(_ action: UserAction) async throws -> String
    /// Lines for the phone's `status`.
    func status() -> [String]
    /// UIKit's `applicationSignificantTimeChange(_:)`: the user set the device's time or time
    /// zone, or daylight saving began or ended (R: F5). Held while the app is suspended.
    func applicationSignificantTimeChange(_ application: UIApplication)
}

extension PairSimApp {
    public func applicationSignificantTimeChange(_ application: UIApplication) {}
    public func scenePhaseDidChange(to phase: AppScenePhase) {}
    public func perform(_ action: UserAction) async throws -> String { throw AppError("unknown action \(action.verb)") }
    public func status() -> [String] { [] }
}

/// How the process was launched.
public struct LaunchOptions: Sendable {
    /// True when the system launched the app in the background (no UI): background delivery, a
    /// WatchConnectivity message, a BGTask.
    public let inBackground: Bool
    /// Why the process was launched (R: F2). iOS tells an app some reasons in
    /// `application(_:didFinishLaunchingWithOptions:)`'s options and none for HealthKit or
    /// BackgroundTasks; PairSim tells it every one.
    public let reason: LaunchReason

    package init(inBackground: Bool, reason: LaunchReason) {
        self.inBackground = inBackground
        self.reason = reason
    }
}

/// SwiftUI's `ScenePhase`.
public enum AppScenePhase: String, Sendable {
    case active, inactive, background

    package init(_ phase: ScenePhase) { self = AppScenePhase(rawValue: phase.rawValue)! }
}

/// A UI action: a verb, its words and `--options`, as typed.
public struct UserAction: Sendable {
    public let verb: String
    public let arguments: [String]
    public let options: [String: String]

    package init(_ command: ParsedCommand) {
        verb = command.verb
        arguments = command.arguments
        options = command.options
    }

    /// The argument at `index`, or nil.
    public func argument(_ index: Int) -> String? { index < arguments.count ? arguments[index] : nil }
}

/// One UI action an app offers: the verb, its usage and what it does (for `help`).
public struct UserActionSpec: Sendable {
    public let verb: String
    public let usage: String
    public let summary: String
    public init(_ verb: String, _ usage: String, _ summary: String) {
        self.verb = verb
        self.usage = usage
        self.summary = summary
    }
}

/// An error with a message, for refusing an action or failing an operation.
public struct AppError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// An app a PairSim build knows: its name (`phone.app` in a topology, `--app`), its UI actions,
/// and how to make an instance for a new process.
public struct AppRegistration: Sendable {
    public let name: String
    public let summary: String
    public let actions: [UserActionSpec]
    /// The device the app runs on: an iPhone app (`phone.app`) or a watch app (`watch.app`).
    public let device: AppDevice
    let factory: @Sendable () -> any PairSimApp

    /// An iPhone app.
    public init(name: String, summary: String, actions: [UserActionSpec], make: @escaping @Sendable () -> any PairSimApp) {
        self.name = name
        self.summary = summary
        self.actions = actions
        device = .phone
        factory = make
    }

    /// A watch app: its WatchKit application delegate, made for every launch of its process.
    public init(name: String, summary: String, actions: [UserActionSpec], makeWatchApp: @escaping @Sendable () -> any PairSimWatchApp) {
        self.name = name
        self.summary = summary
        self.actions = actions
        device = .watch
        factory = { WatchAppHost(makeWatchApp()) }
    }

    package func make() -> any PairSimApp { factory() }

    /// The actions as the platform's command grammar lists them.
    package var commandSpecs: [CommandSpec] { actions.map { CommandSpec($0.verb, $0.usage, $0.summary) } }
}

/// Which device an app runs on.
public enum AppDevice: String, Sendable {
    case phone, watch
}

/// Starts async app code where PairSim runs it deterministically (R: A5): on the app's executor,
/// on the driver's thread, in emulated time. Use it where you would write `Task { … }`.
@discardableResult
public func AppTask(_ body: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
    let runtime = AppRuntime.require("AppTask")
    return Task(executorPreference: runtime.executor) {
        await body()
    }
}
