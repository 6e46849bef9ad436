import Foundation
import PairSimKit

/// The seeds' app (000, 001, 002, 004) written on PairSimKit only (R: A3): a refresh coordinator
/// with a 60 s throttle, an observer manager for the 8 types, a snapshot service with a 5-minute
/// TTL and in-flight dedup, three tabs with cancel-before-spawn, the workout list, detail and
/// delete of seed 002, and seed 004's workout notifier. PairSim's default app.
public final class ReferenceApp: PairSimApp {
    /// The app's knobs (topology `phone.app`, `phone.refresh`, `phone.backgroundDelivery`).
    public struct Config: Sendable {
        public var throttle: Duration = .seconds(60)
        public var observerThrottle: Duration = .seconds(60)
        /// `lastRefresh` (seed 001) or `timeAway` with `foregroundAfter`.
        public var foregroundOnTimeAway = false
        public var foregroundAfter: Duration = .seconds(60)
        public var cacheTTL: Duration = .seconds(300)
        public var queryCost: Duration = .milliseconds(150)
        public var tabMapping = false
        public var registerObserversAtLaunch = true
        /// How long the observer handler works before calling its completion handler.
        public var handlerDuration: Duration = .milliseconds(500)
        /// `enableBackgroundDelivery` per type (`nil`: not enabled), by PairSim type name.
        public var frequencies: [String: HKUpdateFrequency] = [
            "heartRateVariabilitySDNN": .immediate, "restingHeartRate": .immediate, "sleepAnalysis": .immediate,
            "stepCount": .hourly, "bodyMass": .hourly, "bodyFatPercentage": .hourly, "bodyMassIndex": .hourly, "workout": .hourly,
        ]
        public init() {}
    }

    /// The app's UI actions (docs/COMMANDS.md).
    public static let actions: [UserActionSpec] = [
        UserActionSpec("pull-to-refresh", "<tab>", "pull to refresh today, train or wellness (bypasses the coordinator)"),
        UserActionSpec("open-workout", "<uuid>|latest", "open a workout's detail: calories and heart-rate chart"),
        UserActionSpec("delete-workout", "<uuid>|latest", "delete one record (by its id, or a workout's only record) and, if linked, its HealthKit workout"),
        UserActionSpec("log-workout", "<activity> [--duration D] [--energy kcal]", "log a workout by hand: saved to HealthKit, with a linked record"),
    ]

    /// The registration PairSim's catalog uses.
    public static func registration(_ config: Config = Config()) -> AppRegistration {
        AppRegistration(name: "reference", summary: "the seeds' app: coordinated snapshot refresh, tabs, workouts, notification",
                        actions: actions, make: { ReferenceApp(config: config) })
    }

    let config: Config
    let store = HKHealthStore()
    let clock = AppClock()
    var coordinator: RefreshCoordinator
    var snapshots: SnapshotService
    var tabs = TabLoads()
    let notifier = WorkoutNotifier()
    var observers: [HKObserverQuery] = []
    /// The UI has appeared since launch (tabs exist).
    var uiLoaded = false
    var onScreen = false
    var backgroundSince: AppClock.Instant?

    public init(config: Config) {
        self.config = config
        coordinator = RefreshCoordinator(throttle: config.throttle, observerThrottle: config.observerThrottle, launchedAt: AppClock().now)
        snapshots = SnapshotService(ttl: config.cacheTTL, queryCost: config.queryCost)
    }

    // MARK: Lifecycle

    public func didFinishLaunching(_ options: LaunchOptions) {
        // The coordinator's throttle window starts at launch (seed 001: the `.task` already loads).
        coordinator = RefreshCoordinator(throttle: config.throttle, observerThrottle: config.observerThrottle, launchedAt: clock.now)
        for type in ObservedTypes.all {
            guard let frequency = config.frequencies[type.name] else { continue }
            store.enableBackgroundDelivery(for: type, frequency: frequency) { _, _ in }
        }
        if config.registerObserversAtLaunch { registerObservers() }
        // Seed 000's next step (R: X4): the watch app says when a workout finished.
        if WCSession.isSupported() {
            WCSession.default.delegate = self
            WCSession.default.activate()
        }
        // SwiftData's live query updates the Exercise list in Train.
        ExerciseRecords.shared.onChange { [weak self] _, _ in
            guard let self, self.uiLoaded, self.onScreen, self.tabs.tabs[.train]?.loading == nil else { return }
            self.reload(.train, source: "cloudkit")
        }
    }

    public func scenePhaseDidChange(to phase: AppScenePhase) {
        switch phase {
        case .active:
            let wasAway = !onScreen
            onScreen = true
            if !uiLoaded {
                uiAppears()
            } else if wasAway, backgroundSince != nil {
                // R: C6: the scene phase, watched here only, asks the coordinator; its throttle on
                // lastRefreshDate decides (seed 001). `timeAway` is the older reading.
                let away = backgroundSince!.duration(to: clock.now)
                if !config.foregroundOnTimeAway || away >= config.foregroundAfter { requestRefresh(.foreground) }
            }
            backgroundSince = nil
        case .inactive:
            onScreen = true
        case .background:
            onScreen = false
            backgroundSince = clock.now
        }
    }

    /// The UI appears for the first time since launch: tabs load (`.task`), and observers are
    /// registered here when the app (wrongly) does it from the UI.
    func uiAppears() {
        uiLoaded = true
        if !config.registerObserversAtLaunch, observers.isEmpty { registerObservers() }
        for tab in Tab.allCases { reload(tab, source: "launch") }
    }

    // MARK: Observers (the observer manager, R: O1, O2, O7, C5, C7)

    func registerObservers() {
        observers = ObservedTypes.all.map { type in
            HKObserverQuery(sampleType: type, predicate: nil) { [weak self] _, completion, _ in
                self?.observerUpdate(type, completion: completion)
            }
        }
        for query in observers { store.execute(query) }
    }

    /// The update handler (seeds 000, 001, 004): on screen, ask the coordinator; off screen, only
    /// invalidate the cache; for workouts, the notifier; then the completion handler.
    func observerUpdate(_ type: HKSampleType, completion: @escaping HKObserverQueryCompletionHandler) {
        if onScreen {
            // Seed 001's handler asks on every callback, the one at execute included (R: C2).
            requestRefresh(.observer(type))
        } else {
            AppLog.count("refresh.backgroundDelivery")
            invalidate(reason: "backgroundDelivery")
        }
        if type == ObservedTypes.workout {
            let store = self.store, notifier = self.notifier
            Task { await notifier.check(store: store) }
        }
        clock.schedule(after: config.handlerDuration) { completion() }
    }

    // MARK: Refresh coordination (R: C1–C11)

    /// `AppRefreshCoordinator.requestRefresh(source:)`.
    func requestRefresh(_ source: RefreshSource) {
        var fields: [(String, AppLog.Value)] = [("source", .string(source.name))]
        if case .observer(let type) = source { fields.append(("type", .string(type.name))) }
        switch coordinator.requestRefresh(source, now: clock.now) {
        case .throttled(let reason, let remaining):
            AppLog.count("throttled")
            log("coordinator.throttled", fields + [("reason", .string(reason)), ("remaining", .string(AppTime.text(remaining)))])
        case .accepted:
            AppLog.count("refresh." + source.name)
            log("coordinator.refresh", fields)
            invalidate(reason: source.name)
            // The refresh signal: every tab reloads, or only those showing the type (R: C3, C11).
            var targets = Tab.allCases
            if config.tabMapping, case .observer(let type) = source { targets = Tab.showing(type) }
            if uiLoaded { for tab in targets { reload(tab, source: source.name) } }
        }
    }

    /// `invalidateCache()`: also seed 001's `invalidateCacheOnly()` when nothing reloads (R: C5, O7).
    func invalidate(reason: String) {
        AppLog.count("invalidations")
        let inFlight = snapshots.invalidate()
        var fields: [(String, AppLog.Value)] = [("reason", .string(reason))]
        if inFlight, let id = snapshots.inFlight?.id { fields.append(("inFlight", .string("fetch #\(id) finishes, its result marked expired"))) }
        log("cache.invalidated", fields)
    }

    /// Reloads a tab: cancel its previous load, start a new one on the snapshot service (R: C10).
    func reload(_ tab: Tab, source: String) {
        AppLog.count("tabReloads")
        let (load, cancelled) = tabs.reload(tab)
        if let cancelled {
            AppLog.count("cancelledLoads")
            log("tab.load.cancelled", [("tab", .string(tab.rawValue)), ("load", .int(cancelled)), ("supersededBy", .int(load))])
        }
        log("tab.reload", [("tab", .string(tab.rawValue)), ("load", .int(load)), ("source", .string(source))])
        switch snapshots.fetch(for: SnapshotService.Waiter(tab: tab, load: load), now: clock.now) {
        case .hit(let snapshot):
            AppLog.count("cacheHits")
            tabLoaded(tab, load: load, snapshot: snapshot, cache: "hit")
        case .joined(let id):
            AppLog.count("cacheJoins")
            log("snapshot.fetch", [("id", .int(id)), ("for", .string(tab.rawValue)), ("joined", true)])
        case .started(let id, let completesAt):
            AppLog.count("cacheMisses")
            log("snapshot.fetch", [("id", .int(id)), ("for", .string(tab.rawValue)), ("joined", false),
                                   ("queries", .int(HealthSnapshot.queryCount)), ("completesAt", .string(AppTime.text(completesAt)))])
            let store = self.store, now = completesAt.date
            Task { [weak self] in
                try? await AppClock().sleep(until: completesAt)
                let snapshot = try? await HealthSnapshot.fetch(from: store, now: now)
                self?.snapshotCompleted(id: id, snapshot: snapshot)
            }
        }
    }

    /// A fetch's queries finished: waiting tab loads complete (unless cancelled meanwhile).
    func snapshotCompleted(id: Int, snapshot: HealthSnapshot?) {
        let (waiters, expired) = snapshots.complete(id: id, snapshot: snapshot)
        if snapshot != nil {
            log("snapshot.fetched", [("id", .int(id)), ("waiters", .int(waiters.count)), ("expired", .bool(expired))])
        }
        for waiter in waiters {
            if let snapshot {
                tabLoaded(waiter.tab, load: waiter.load, snapshot: snapshot, cache: "fetched")
            } else if tabs.finish(waiter.tab, load: waiter.load, text: nil) {
                log("tab.load.failed", [("tab", .string(waiter.tab.rawValue)), ("load", .int(waiter.load)), ("reason", "databaseInaccessible")],
                    warning: true)
            }
        }
    }

    /// Shows `snapshot` on `tab` if `load` is still the tab's current load.
    func tabLoaded(_ tab: Tab, load: Int, snapshot: HealthSnapshot, cache: String) {
        var content = snapshot.fields(for: tab)
        if tab == .train {
            content += WorkoutList.summary(WorkoutList.build(workouts: snapshot.workouts, records: ExerciseRecords.shared.all()))
        }
        // A cancelled load never updates the tab (checked after the await in the seed's code).
        let text = content.map { "\($0.0)=\($0.1.text)" }.joined(separator: " ")
        guard tabs.finish(tab, load: load, text: text) else { return }
        log("tab.loaded", [("tab", .string(tab.rawValue)), ("load", .int(load)), ("cache", .string(cache))] + content)
    }

    /// Logs an app event with fields in this order.
    func log(_ name: String, _ fields: [(String, AppLog.Value)], warning: Bool = false) {
        AppLog.event(name, fields, warning: warning)
    }

    // MARK: UI actions

    public func perform(_ action: UserAction) async throws -> String {
        switch action.verb {
        case "pull-to-refresh":
            guard action.arguments.count == 1, let tab = Tab(rawValue: action.arguments[0]) else {
                throw AppError("pull-to-refresh: expected one tab (today, train, wellness)")
            }
            // Pull-to-refresh bypasses the coordinator: invalidate and reload the pulled tab (R: C4).
            AppLog.count("refresh.pullToRefresh")
            invalidate(reason: "pullToRefresh")
            reload(tab, source: "pullToRefresh")
            return "refreshing \(tab.rawValue)"
        case "open-workout":
            return try await WorkoutDetail(store: store).open(action)
        case "delete-workout":
            return try await WorkoutDetail(store: store).delete(action)
        case "log-workout":
            return try await WorkoutDetail(store: store).log(action, now: clock.now.date)
        default:
            throw AppError("unknown action \(action.verb)")
        }
    }

    public func status() -> [String] {
        let now = clock.now
        let cache = snapshots.isValid(at: now) ? "valid (taken \(AppTime.text(snapshots.cachedAt!)))" : snapshots.cached == nil ? "empty" : "expired"
        var lines = ["coordinator: last refresh \(AppTime.text(coordinator.lastRefreshDate)); cache \(cache)"
            + (snapshots.inFlight.map { ", fetch #\($0.id) in flight" } ?? "")]
        for tab in Tab.allCases {
            let state = tabs.tabs[tab]!
            var text = "tab \(tab.rawValue): loads \(state.loads)"
            if let loading = state.loading { text += ", loading #\(loading)" }
            if let shown = state.shownText { text += " — " + shown }
            lines.append(text)
        }
        lines.append("notifier: last seen \(AppDefaults.standard.string(forKey: WorkoutNotifier.lastSeenKey) ?? "none")")
        return lines
    }
}

// MARK: WatchConnectivity (seed 000's next step, R: X4)

extension ReferenceApp: WCSessionDelegate {
    public func session(_ session: WCSession, didReceiveMessage message: [String: Any], replyHandler: @escaping ([String: Any]) -> Void) {
        watchSaid(message, via: "message")
        replyHandler(["ok": true])
    }

    public func session(_ session: WCSession, didReceiveMessage message: [String: Any]) {
        watchSaid(message, via: "message")
    }

    public func session(_ session: WCSession, didReceiveUserInfo userInfo: [String: Any]) {
        watchSaid(userInfo, via: "userInfo")
    }

    /// "Workout finished" from the watch app: the Train tab reloads at once, past the
    /// coordinator's throttle (the user just finished it); off screen, the cache is invalidated so
    /// the next appearance fetches. The HealthKit copy of the workout may still be on its way.
    func watchSaid(_ info: [String: Any], via: String) {
        guard info["event"] as? String == "workoutFinished" else { return }
        AppLog.count("refresh.watchMessage")
        log("watch.workoutFinished", [("via", .string(via)), ("workout", .string(info["uuid"] as? String ?? "?")),
                                      ("onScreen", .bool(onScreen))])
        invalidate(reason: "watchMessage")
        if uiLoaded, onScreen { reload(.train, source: "watchMessage") }
    }
}
