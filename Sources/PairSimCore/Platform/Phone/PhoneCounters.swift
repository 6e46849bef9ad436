/// The phone's cost counters (R: C12, A7), printed by `status` and at shutdown: the platform
/// counts what crosses it (wakes, callbacks, queries, objects read, notifications); the app
/// adds its own (refreshes, cache, tab reloads) through PairSimKit.
public struct PhoneCounters: Hashable, Sendable {
    public var workoutsSaved = 0
    public var samplesSaved = 0
    public var recordsSaved = 0
    public var wakes = 0
    public var observerCallbacks = 0
    public var completions = 0
    public var missedCompletions = 0
    /// Observer callbacks the app got on screen whose completion handler it did not call within
    /// `app.wakeBudget` (R: F8); not wakes, so HealthKit's backoff does not count them.
    public var onScreenMissedCompletions = 0
    /// Deliveries that found no observer query for their type in the app's process (R: F8).
    public var missingObservers = 0
    public var queries = 0
    /// Objects (samples, workouts, deleted-object tombstones) the app's queries returned.
    public var objectsRead = 0
    public var notifications = 0
    /// Rules the app broke (R: A6).
    public var misbehaviours = 0
    /// The app's own counters, by name.
    public var app: [String: Int] = [:]

    /// The reference app's counters, always listed (0 when an app does not count them), so two
    /// apps compare key by key.
    public static let appKeys = ["refresh.foreground", "refresh.observer", "refresh.backgroundDelivery", "refresh.pullToRefresh",
                                 "throttled", "invalidations", "cacheHits", "cacheMisses", "cacheJoins"]

    public init() {}

    /// Counters as event fields (fixed order).
    public func json(sync: SyncEngine) -> JSONObject {
        var o: JSONObject = [
            "workouts": .int(Int64(workoutsSaved)), "samples": .int(Int64(samplesSaved)), "records": .int(Int64(recordsSaved)),
            "wakes": .int(Int64(wakes)), "observerCallbacks": .int(Int64(observerCallbacks)),
            "completions": .int(Int64(completions)), "missedCompletions": .int(Int64(missedCompletions)),
            "onScreenMissedCompletions": .int(Int64(onScreenMissedCompletions)), "missingObservers": .int(Int64(missingObservers)),
        ]
        for key in Self.appKeys { o.append(key, .int(Int64(app[key] ?? 0))) }
        o.append("queries", .int(Int64(queries)))
        o.append("objectsRead", .int(Int64(objectsRead)))
        for key in ["tabReloads", "cancelledLoads"] { o.append(key, .int(Int64(app[key] ?? 0))) }
        o.append("notifications", .int(Int64(notifications)))
        o.append("misbehaviours", .int(Int64(misbehaviours)))
        for key in app.keys.sorted() where !Self.appKeys.contains(key) && key != "tabReloads" && key != "cancelledLoads" {
            o.append("app.\(key)", .int(Int64(app[key]!)))
        }
        for channel in Channel.allCases {
            let c = sync.counters(channel)
            o.append("\(channel).sent", .int(Int64(c.sentMessages)))
            o.append("\(channel).bytes", .int(Int64(c.sentBytes)))
            o.append("\(channel).received", .int(Int64(c.receivedMessages)))
            o.append("\(channel).duplicates", .int(Int64(c.duplicatesDropped)))
        }
        o.append("wire.rejected", .int(Int64(sync.rejected.values.reduce(0, +))))
        return o
    }

    /// Readable lines for `status`.
    public var lines: [String] {
        let refreshText = ["foreground", "observer", "backgroundDelivery", "pullToRefresh"]
            .map { "\($0) \(app["refresh." + $0] ?? 0)" }.joined(separator: ", ")
        return [
            "wakes \(wakes), observer callbacks \(observerCallbacks), completions \(completions), missed \(missedCompletions)"
                + ", missed on screen \(onScreenMissedCompletions), deliveries with no observer \(missingObservers)",
            "queries \(queries), objects read \(objectsRead); notifications \(notifications); app misbehaviours \(misbehaviours)",
            "app: refreshes \(refreshText); throttled \(app["throttled"] ?? 0); invalidations \(app["invalidations"] ?? 0)",
            "app: cache hits \(app["cacheHits"] ?? 0), misses \(app["cacheMisses"] ?? 0), joined in-flight \(app["cacheJoins"] ?? 0); "
                + "tab reloads \(app["tabReloads"] ?? 0), cancelled loads \(app["cancelledLoads"] ?? 0)",
        ]
    }
}
