import Foundation

/// The line between the platform (what iOS does) and the app (what a developer writes), R: A1.
/// Everything that crosses it is one of these values: the platform never calls into the app's
/// code and the app never touches platform state. `PairSimKit` turns them into the
/// HealthKit-shaped API an app sees.

/// The app's scene phase (SwiftUI's `ScenePhase`).
public enum ScenePhase: String, Hashable, Sendable {
    case active, inactive, background
}

/// What the platform tells the app: UIKit, HealthKit, CloudKit and the user calling in.
public enum AppCall: Hashable, Sendable {
    /// The process starts (`didFinishLaunching`); `background` when background delivery launched it.
    /// `defaults` is what the app stored in its user defaults; `records` its CloudKit-synced records.
    case launch(background: Bool, reason: AppLaunchReason, defaults: JSONObject, records: [ExerciseRecord])
    /// The scene phase changed.
    case scenePhase(ScenePhase)
    /// An observer query's update handler is called; `completion` identifies its completion handler.
    case observerUpdate(query: Int, completion: Int)
    /// A query the app executed finished.
    case queryResult(id: Int, QueryResult)
    /// A save, delete, authorization request or background-delivery change finished (`error` nil: success).
    case done(id: Int, error: String?)
    /// A timer the app scheduled on its clock is due.
    case timer(id: Int)
    /// The user did something in the app's UI (a command the app declared).
    case userAction(id: Int, command: ParsedCommand)
    /// The app's CloudKit-synced records changed under it (an import).
    case recordsChanged(saved: [ExerciseRecord], deleted: [UUID])
    /// WatchConnectivity (R: X1): the session the app activated is ready; `reachable` is
    /// `isReachable`, `receivedContext` the latest application context that arrived before,
    /// `outstanding` the transfers still on their way (queued by this process or an earlier one).
    case wcActivated(reachable: Bool, receivedContext: JSONObject?, outstanding: [WCOutstanding])
    /// `sessionReachabilityDidChange`.
    case wcReachability(Bool)
    /// Something arrived from the watch app: a message (`replyToken` when the sender waits for a
    /// reply), user info, an application context or a file.
    case wcReceived(kind: MessageKind, payload: JSONObject, file: WCFile?, replyToken: Int?, isData: Bool = false)
    /// The reply to the app's `sendMessage` `id`.
    case wcReply(id: Int, payload: JSONObject)
    /// The app's `sendMessage` `id` failed (its error handler), with the `WCError` code name.
    case wcFailed(id: Int, code: String)
    /// The iPhone app's complication budget (`isComplicationEnabled`,
    /// `remainingComplicationUserInfoTransfers`): `remaining` on the phone's local day `day` (days since 1970 on its clock, in its zone), `perDay` from
    /// the next day on (R: F4).
    case wcComplication(enabled: Bool, remaining: Int, day: Int64, perDay: Int)
    /// The app's transfer `id` finished (`didFinish`); `error` nil: the watch has it;
    /// `transferCancelled` after a `cancel()` that took it out of the queue.
    case wcTransferFinished(id: Int, error: String?)
    /// The watch's workout session `session` changed state (`workoutSession(_:didChangeTo:from:date:)`).
    case workoutSessionChanged(session: Int, to: WorkoutSessionState, from: WorkoutSessionState, date: EmulatedInstant)
    /// The session failed (`workoutSession(_:didFailWithError:)`), with the `HKError` code name.
    case workoutSessionFailed(session: Int, error: String)
    /// The session's live data source collected these samples (saved already) for its builder.
    case workoutCollected(session: Int, samples: [HealthSample])
    /// The builder's `finishWorkout` `id` finished: the saved workout, or the error's code name.
    // Indirect, as the other large payloads: inline they made every call a bigger value to copy.
    indirect case workoutFinished(id: Int, workout: Workout?, error: String?)
    /// The system relaunched the watch app while its workout session is under way
    /// (`handleActiveWorkoutRecovery()`).
    case workoutRecoveryNeeded
    /// The answer to `recoverActiveWorkoutSession` `id`: the session under way, or nil.
    indirect case workoutRecovered(id: Int, RecoveredWorkout?)
    /// watchOS hands the app background tasks (`handle(_:)`): each must be completed.
    case backgroundTasks([BackgroundTask])
    /// The app's UIKit background tasks (`beginBackgroundTask`) are about to run out of time:
    /// their expiration handlers run (R: F2).
    case backgroundTimeExpiring(tasks: [Int])
    /// The system runs a `BGTaskScheduler` task the app submitted: its launch handler runs (R: F2).
    case bgTaskLaunch(token: Int, identifier: String, processing: Bool)
    /// The device's clock changed: the user set the time or the zone, or daylight saving began
    /// or ended; the app's notifications are posted (R: F5).
    case timeChanged(TimeChange)
    /// The BGTask `token` is about to run out of time: its `expirationHandler` runs.
    case bgTaskExpiring(token: Int)
    /// The process ended (terminated or force-quit): the app's memory is gone.
    case terminated
}

/// Why the system started the app's process (R: F2); PairSimKit's `LaunchReason` documents each.
public enum AppLaunchReason: String, Hashable, Sendable {
    case user, healthKit, watchConnectivity, backgroundTask, remoteNotification, system
}

/// A `BGTaskScheduler` request (`BGAppRefreshTaskRequest` or `BGProcessingTaskRequest`).
public struct BGRequest: Hashable, Sendable {
    public var identifier: String
    public var processing: Bool
    public var earliestBegin: EmulatedInstant?
    public var requiresExternalPower: Bool
    public var requiresNetworkConnectivity: Bool

    public init(identifier: String, processing: Bool, earliestBegin: EmulatedInstant?, requiresExternalPower: Bool = false,
                requiresNetworkConnectivity: Bool = false) {
        self.identifier = identifier
        self.processing = processing
        self.earliestBegin = earliestBegin
        self.requiresExternalPower = requiresExternalPower
        self.requiresNetworkConnectivity = requiresNetworkConnectivity
    }
}

/// HealthKit's `HKWorkoutSessionState`, with Apple's numbers.
public enum WorkoutSessionState: Int, Hashable, Sendable {
    case notStarted = 1, running = 2, ended = 3, paused = 4, prepared = 5, stopped = 6

    /// The state's name in events (`notStarted`, `running`, …).
    public var name: String {
        switch self {
        case .notStarted: "notStarted"
        case .running: "running"
        case .ended: "ended"
        case .paused: "paused"
        case .prepared: "prepared"
        case .stopped: "stopped"
        }
    }
}

/// What a watch app asks of its workout session (`HKWorkoutSession`) and the session's live
/// builder (`HKLiveWorkoutBuilder`); `activity` is PairSim's name for the configuration's activity.
public enum WorkoutRequest: Hashable, Sendable {
    case prepare(activity: String)
    case startActivity(activity: String, at: EmulatedInstant)
    case pause
    case resume
    case stopActivity(at: EmulatedInstant)
    case end
    /// `beginCollection(withStart:)`: the data source collects `types` from now on (`done` answers).
    case beginCollection(id: Int, at: EmulatedInstant, types: [SampleType])
    /// `endCollection(withEnd:)` (`done` answers).
    case endCollection(id: Int, at: EmulatedInstant)
    /// `finishWorkout()`: saves the HKWorkout (`workoutFinished` answers).
    case finish(id: Int)
    /// `discardWorkout()`.
    case discard
    /// `HKHealthStore.recoverActiveWorkoutSession`: bind the session under way to this new handle
    /// (`workoutRecovered` answers).
    case recover(id: Int)
}

/// A HealthKit query an app executes (`HKSampleQuery`, `HKAnchoredObjectQuery`).
public enum QuerySpec: Hashable, Sendable {
    /// Objects of `type` overlapping `[from, to]`, only `uuids` when given, newest end first or
    /// oldest start first, at most `limit`.
    case samples(ObjectType, from: EmulatedInstant?, to: EmulatedInstant?, uuids: [UUID]?, newestFirst: Bool, limit: Int?)
    /// Objects of `type` added and deleted after `anchor` (nil: from the beginning); with a
    /// `limit`, the first `limit` of those changes in anchor order (a page).
    case anchored(ObjectType, anchor: Int64?, limit: Int? = nil)

    /// The queried type.
    public var type: ObjectType {
        switch self {
        case .samples(let type, _, _, _, _, _), .anchored(let type, _, _): type
        }
    }

    /// `sample` or `anchored`, for events.
    public var kind: String {
        if case .anchored = self { return "anchored" }
        return "sample"
    }
}

/// A query's answer.
public enum QueryResult: Hashable, Sendable {
    case objects(samples: [HealthSample], workouts: [Workout])
    case anchored(samples: [HealthSample], workouts: [Workout], deleted: [DeletedObject], anchor: Int64)
    /// The query failed with this `HKError` code name (e.g. `errorDatabaseInaccessible`).
    case failed(String)
}

/// What the app asks of the platform (HealthKit, the notification centre, its clock, CloudKit,
/// user defaults) or tells it (completions, its log and cost counters, command replies).
public enum AppRequest: Hashable, Sendable {
    /// `execute` of an `HKObserverQuery` for `type`; `stop` ends it.
    case executeObserver(query: Int, type: ObjectType)
    case stopQuery(Int)
    /// An observer update's completion handler was called.
    case complete(Int)
    /// `execute` of a sample or anchored query; the answer comes back as `queryResult`.
    case query(id: Int, QuerySpec)
    case enableBackgroundDelivery(id: Int, ObjectType, DeliveryFrequency)
    case disableBackgroundDelivery(id: Int, ObjectType)
    case requestAuthorization(id: Int)
    case save(id: Int, HealthObjectsBatch)
    case delete(id: Int, [DeletedObject])
    case scheduleTimer(id: Int, at: EmulatedInstant)
    case cancelTimer(Int)
    case postNotification(title: String, body: String, info: JSONObject)
    case setDefault(key: String, value: JSON?)
    case saveRecords([ExerciseRecord])
    case deleteRecords([UUID])
    /// An event of the app's own (it is marked as the app's in the log).
    case log(name: String, level: Event.Level, fields: JSONObject)
    /// Adds to one of the app's cost counters (summary.json, `status`).
    case count(String, Int)
    /// The answer to a `userAction`.
    case reply(id: Int, ok: Bool, text: String)
    /// `WCSession.activate()`.
    case wcActivate
    /// `sendMessage`; the reply or error comes back as `wcReply` / `wcFailed` with this `id`.
    case wcSendMessage(id: Int, payload: JSONObject, wantsReply: Bool, isData: Bool = false)
    /// A received message's reply handler was called.
    case wcReplyToMessage(token: Int, payload: JSONObject)
    /// `transferUserInfo` (`file` nil) or `transferFile` (metadata in `payload`).
    case wcTransfer(id: Int, payload: JSONObject, file: WCFile?)
    /// `cancel()` of transfer `id`.
    case wcCancelTransfer(id: Int)
    /// `updateApplicationContext`.
    case wcUpdateContext(JSONObject)
    /// The app broke a rule the platform cannot enforce for it (R: A6): PairSim logs and counts it.
    case misbehaved(kind: String, detail: String)
    /// The app's code trapped (a failed precondition, a force unwrap of nil, a bad access): its
    /// process is over, as on a device.
    case crashed(signal: Int32, during: String)
    /// The watch app's workout session `session` and its builder (watchOS).
    indirect case workout(session: Int, WorkoutRequest)
    /// `scheduleBackgroundRefresh(withPreferredDate:…)` `id` (`done` answers: scheduled).
    case scheduleRefresh(id: Int, at: EmulatedInstant)
    /// A background task was completed (`setTaskCompletedWithSnapshot(_:)`).
    case completeTask(token: Int, snapshot: Bool)
    /// UIKit's `beginBackgroundTask(withName:expirationHandler:)`: `token` is the identifier the app got.
    case beginBackgroundTask(token: Int, name: String?)
    /// UIKit's `endBackgroundTask(_:)`.
    case endBackgroundTask(token: Int)
    /// `BGTaskScheduler.submit(_:)` (`done` answers, with the `BGTaskScheduler.Error` code's name on failure).
    case bgSubmit(id: Int, BGRequest)
    /// `cancel(taskRequestWithIdentifier:)`, or `cancelAllTaskRequests()` when nil.
    case bgCancel(identifier: String?)
    /// `BGTask.setTaskCompleted(success:)`.
    case bgTaskCompleted(token: Int, success: Bool)
    /// The app listens for its synced records' changes: CloudKit's silent notifications wake it.
    case subscribeRecords
    /// `transferCurrentComplicationUserInfo` `id` (iOS): within the day's budget it goes ahead of
    /// the queued user info; otherwise as ordinary user info (R: F4).
    case wcTransferComplication(id: Int, payload: JSONObject)
    /// WidgetKit's `reloadTimelines(ofKind:)`, or `reloadAllTimelines()` when nil (R: F4).
    case widgetReload(kind: String?)
}

/// A background task watchOS hands a watch app.
public struct BackgroundTask: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        /// `WKApplicationRefreshBackgroundTask` for refresh `id` the app scheduled.
        case appRefresh(id: Int)
        /// `WKWatchConnectivityRefreshBackgroundTask`: the phone sent something while the app was suspended.
        case watchConnectivity
        /// `WKSnapshotRefreshBackgroundTask`: the app left the screen; the system wants its snapshot.
        case snapshot
    }
    public var token: Int
    public var kind: Kind

    public var name: String {
        switch kind {
        case .appRefresh: "appRefresh"
        case .watchConnectivity: "watchConnectivity"
        case .snapshot: "snapshot"
        }
    }
}
