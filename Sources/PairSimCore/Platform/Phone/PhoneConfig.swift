/// How often HealthKit may wake the app for a type (`HKUpdateFrequency`).
public enum DeliveryFrequency: String, Hashable, Sendable, CaseIterable {
    case immediate, hourly, daily, weekly

    /// The least time between two wakes for one type (frequency is a ceiling).
    public var period: EmulatedDuration {
        switch self {
        case .immediate: .zero
        case .hourly: .hours(1)
        case .daily: .days(1)
        case .weekly: .days(7)
        }
    }
}

/// The app on the phone: which one, when it registers things, how much time iOS gives it.
public struct AppConfig: Hashable, Sendable {
    /// The app under test, by name (`topology apps` lists them): `reference` by default.
    public var name = "reference"
    /// The app's own settings (`phone.app.settings`), for it to read with `AppSettings`.
    public var settings = JSONObject()
    /// The app's state when phone-node starts: `foreground` (open on screen) or `notRunning`.
    public var initialState: AppState = .foreground
    /// The reference app's knob (the platform never reads it; PairSimApps hands it to the app):
    /// register observer queries in `didFinishLaunching` (right). `false` registers them only when
    /// the UI first appears: background launches then find no query registered (the classic bug).
    public var registerObserversAtLaunch = true
    /// Time a backgrounded app keeps running before iOS suspends it. Apple ("Extending your app's
    /// background execution time"): an app without a background task is suspended within seconds.
    public var backgroundBudget: EmulatedDuration = .seconds(5)
    /// Execution time a background-delivery wake grants (PairSim's choice; Apple gives no number).
    public var wakeBudget: EmulatedDuration = .seconds(30)
    /// After the app's last piece of background work iOS waits for (a wake's completion handler, a
    /// UIKit background task, a BGTask) ends, it is suspended this soon; nil (`off`): it runs to
    /// the end of its budget. Apple: suspended "shortly after"; the number is PairSim's (R: F2).
    public var suspendAfterCompletion: EmulatedDuration? = .seconds(1)
    /// How long UIKit background tasks (`beginBackgroundTask`) keep a backgrounded app running,
    /// counted from when it began running in the background (`backgroundTimeRemaining`); their
    /// expiration handlers run 1 s before it ends, and tasks still open then end the app.
    public var backgroundTaskTime: EmulatedDuration = .seconds(30)
    /// The system runs a `BGAppRefreshTaskRequest` at its discretion: between its earliest begin
    /// date and this much later, drawn from the seed.
    public var refreshTaskDelay: EmulatedDuration = .minutes(30)
    /// Running time of a BGAppRefreshTask / a BGProcessingTask.
    public var refreshTaskTime: EmulatedDuration = .seconds(30)
    public var processingTaskTime: EmulatedDuration = .minutes(5)
    /// CloudKit's silent notifications wake the app to import at most this often (nil, `off`: never;
    /// records then wait for the app to run). Apple: "no more than two or three per hour".
    public var silentPushInterval: EmulatedDuration? = .minutes(20)
    /// Widget timeline reloads the app may ask for in a day while it is off screen (WidgetKit
    /// budgets them: Apple, "Keeping a widget up to date": "typically 40 to 70 refreshes" a day for
    /// a frequently viewed widget); those asked on screen do not count.
    public var widgetReloadsPerDay = 40
    /// The reference app's knob: how long its observer handler runs before calling the completion handler.
    public var handlerDuration: EmulatedDuration = .milliseconds(500)

    public init() {}
}

/// Background delivery: per-type frequency and HealthKit's retry policy for missed completions.
public struct BackgroundDeliveryConfig: Hashable, Sendable {
    /// What the shipped apps ask `enableBackgroundDelivery` for (seed 001's defaults: HRV, RHR,
    /// sleep immediate; the rest hourly). The platform applies what an app asks, capped.
    public var frequencies: [ObjectType: DeliveryFrequency] = [
        .sample(.heartRateVariabilitySDNN): .immediate, .sample(.restingHeartRate): .immediate,
        .sample(.sleepAnalysis): .immediate, .sample(.stepCount): .hourly, .sample(.bodyMass): .hourly,
        .sample(.bodyFatPercentage): .hourly, .sample(.bodyMassIndex): .hourly, .workout: .hourly,
    ]
    /// First retry after a missed completion; doubles with each consecutive miss.
    public var retryInitial: EmulatedDuration = .minutes(1)
    /// Consecutive misses after which delivery for the type stops until the next launch.
    public var maxMisses = 3

    public init() {}

}

/// The phone's HealthKit daemon.
public struct HealthKitConfig: Hashable, Sendable {
    /// Deleted-object tombstones are kept this long for anchored queries.
    public var tombstoneRetention: EmulatedDuration = .days(7)
    /// Seed 004's reading: background delivery still wakes the app while the device is locked (its
    /// queries then fail with databaseInaccessible). Off by default: Apple DTS (forum thread 694223)
    /// and openradar 40255384 say the app is not launched for new data until the device unlocks.
    public var wakeWhileLocked = false
    /// Types the user denied reading (everything else is allowed).
    public var denied: Set<ObjectType> = []

    public init() {}
}

/// What decides whether a return to the foreground refreshes (R: C6).
public enum ForegroundRule: String, Hashable, Sendable, CaseIterable {
    /// Seed 001 as implemented (and seed 000): every return asks the coordinator, whose throttle
    /// on `lastRefreshDate` decides. Time spent away plays no part.
    case lastRefresh
    /// The earlier reading: only a return after at least `foregroundAfter` away asks for a refresh.
    case timeAway
}

/// The reference app's refresh policy (seeds 000 and 001): topology data the platform never reads;
/// PairSimApps hands it to the app.
public struct RefreshConfig: Hashable, Sendable {
    /// The coordinator accepts at most one refresh per this long (`lastRefreshDate` starts at launch).
    public var throttle: EmulatedDuration = .seconds(60)
    /// Observer callbacks of one type within this long: only the first is handled.
    public var observerThrottle: EmulatedDuration = .seconds(60)
    /// What a return to the foreground is throttled on.
    public var foregroundRule = ForegroundRule.lastRefresh
    /// With `foregroundRule: timeAway`: a return after at least this long away requests a refresh.
    public var foregroundAfter: EmulatedDuration = .seconds(60)
    /// Snapshot cache lifetime.
    public var cacheTTL: EmulatedDuration = .minutes(5)
    /// Emulated time one HealthKit query takes (a snapshot runs one per observed type).
    public var queryCost: EmulatedDuration = .milliseconds(150)
    /// Reload only the tabs that show the changed type (off: every tab reloads).
    public var tabMapping = false

    public init() {}
}

/// Phone behaviour settings: the `phone:` section of a topology.
public struct PhoneConfig: Hashable, Sendable {
    public var app = AppConfig()
    public var backgroundDelivery = BackgroundDeliveryConfig()
    public var healthKit = HealthKitConfig()
    public var refresh = RefreshConfig()
    /// The phone's own clock (`phone.clock`, R: F5).
    public var clock = DeviceClockConfig()

    public init() {}
}
