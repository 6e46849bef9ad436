/// The phone's cost counters (R: C12), printed by `status` and at shutdown.
public struct PhoneCounters: Hashable, Sendable {
    public var workoutsSaved = 0
    public var samplesSaved = 0
    public var recordsSaved = 0
    public var wakes = 0
    public var observerCallbacks = 0
    public var completions = 0
    public var missedCompletions = 0
    public var refreshes: [String: Int] = [:]
    public var throttled = 0
    public var invalidations = 0
    public var cacheHits = 0
    public var cacheMisses = 0
    public var cacheJoins = 0
    public var queries = 0
    public var tabReloads = 0
    public var cancelledLoads = 0
    public var notifications = 0

    public init() {}

    /// Counters as event fields (fixed order).
    public func json(sync: SyncEngine) -> JSONObject {
        var o: JSONObject = [
            "workouts": .int(Int64(workoutsSaved)), "samples": .int(Int64(samplesSaved)), "records": .int(Int64(recordsSaved)),
            "wakes": .int(Int64(wakes)), "observerCallbacks": .int(Int64(observerCallbacks)),
            "completions": .int(Int64(completions)), "missedCompletions": .int(Int64(missedCompletions)),
        ]
        for source in ["foreground", "observer", "backgroundDelivery", "pullToRefresh"] {
            o.append("refresh.\(source)", .int(Int64(refreshes[source] ?? 0)))
        }
        for (key, value) in [("throttled", throttled), ("invalidations", invalidations), ("cacheHits", cacheHits),
                             ("cacheMisses", cacheMisses), ("cacheJoins", cacheJoins), ("queries", queries),
                             ("tabReloads", tabReloads), ("cancelledLoads", cancelledLoads), ("notifications", notifications)] {
            o.append(key, .int(Int64(value)))
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
            .map { "\($0) \(refreshes[$0] ?? 0)" }.joined(separator: ", ")
        return [
            "wakes \(wakes), observer callbacks \(observerCallbacks), completions \(completions), missed \(missedCompletions)",
            "refreshes: \(refreshText); throttled \(throttled); invalidations \(invalidations)",
            "cache: hits \(cacheHits), misses \(cacheMisses), joined in-flight \(cacheJoins); queries \(queries)",
            "tabs: reloads \(tabReloads), cancelled loads \(cancelledLoads); notifications \(notifications)",
        ]
    }
}
