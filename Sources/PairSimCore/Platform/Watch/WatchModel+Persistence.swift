/// What the watch keeps across restarts beyond its stores and outbox.
extension WatchModel {
    public func persistentValues() -> NodeValues { values(.all) }

    /// The values that may have changed since this last ran (R: K1): building all of them each
    /// turn was ~10 % of the watch's one-sample turns, and its ack turn runs while the ack is on
    /// its way to whoever else listens.
    public mutating func changedValues() -> NodeValues {
        defer { touched = [] }
        return values(touched)
    }

    /// `store.anchor`, `sync` and `wc` always, and the ones `keys` names.
    func values(_ keys: WatchValues) -> NodeValues {
        var values = NodeValues()
        values.insert(.storeAnchor(store.anchor))
        values.insert(.sync(sync.snapshot))
        values.insert(.watchConnectivity(wc.snapshot))
        if keys.contains(.session) { values.insert(.watchHostedWorkout(workout?.snapshot)) }
        if keys.contains(.counts) {
            values.insert(.watchRestingCount(restingCount))
            values.insert(.watchNextRestingAt(nextRestingAt))
            values.insert(.watchFailNextFinish(failNextFinish))
            values.insert(.watchHostedSessions(hostedSessions))
        }
        if keys.contains(.appDefaults) { values.insert(.watchAppDefaults(appDefaults)) }
        if keys.contains(.clock) { values.insert(.watchClock(time.clock)) }
        if keys.contains(.partitions) { values.insert(.watchPartitions(manualPartitions)) }
        if keys.contains(.uuids) { values.insert(.watchUUIDs(uuids.random.state)) }
        if keys.contains(.export) { values.insert(.cloudKitExport(exporter.snapshot)) }
        if keys.contains(.jobs) {
            values.insert(.watchPlan(plan))
            values.insert(.watchBulk(bulk))
            values.insert(.watchImport(healthImport))
        }
        return values
    }

    public mutating func restore(_ state: PersistedState, now: EmulatedInstant) throws(DecodeError) {
        try state.restore(store: &store, records: &records, sync: &sync, now: now)
        var partitions: [WatchPartition] = []
        for value in state.values {
            switch value {
            case .storeAnchor, .sync: break // with the stores, above
            case .watchConnectivity(let snapshot): wc.restore(snapshot)
            case .cloudKitExport(let snapshot): exporter.restore(snapshot)
            case .watchHostedWorkout(let snapshot):
                guard let snapshot else { break }
                // The sensor reads again from the restart: what it missed while the watch was down is gone.
                var restored = HostedWorkout(snapshot)
                if restored.activeSince != nil { restored.pauseActive(at: now) }
                workout = restored
            case .watchHostedSessions(let count): hostedSessions = count
            case .watchRestingCount(let count): restingCount = count
            case .watchNextRestingAt(let instant): nextRestingAt = instant
            case .watchFailNextFinish(let flag): failNextFinish = flag
            case .watchAppDefaults(let defaults): appDefaults = defaults
            case .watchClock(let clock): time.restore(clock, now: now)
            case .watchPartitions(let reasons): partitions = reasons
            case .watchUUIDs(let random): uuids.random.state = random
            case .watchPlan(let kept): plan = kept
            case .watchBulk(let kept): bulk = kept
            case .watchImport(let kept):
                healthImport = kept
                if var job = kept {
                    // The watch stopped with an import under way: again at the same place counts toward giving up.
                    // Only while checking, which reads on without waiting for anything: an import waiting for
                    // the phone's acknowledgements may well be stopped several times at one place.
                    if job.phase != .checking { (job.stops, job.stoppedAt) = (0, -1) }
                    else if job.done == job.stoppedAt { job.stops += 1 } else { (job.stops, job.stoppedAt) = (1, job.done) }
                    healthImport = job
                }
            case .phoneApp, .phoneDelivery, .phoneDefaults, .phoneSaveFailures, .phoneMissCompletions, .phoneDeferred, .phoneUUIDs, .phoneClock:
                throw DecodeError(path: value.key.name, reason: "a phone's value in the watch's state")
            }
        }
        // Out of range or offline when it stopped: so it comes back, until `in-range` / `online` (R: K9).
        for reason in partitions {
            for channel in Self.partitionChannels(reason) { _ = sync.setPartition(channel, reason: reason.rawValue, true, now: now) }
        }
        restored = !state.isEmpty
    }
}

extension WatchModel {
    /// The channels `out-of-range` (the radio link: HealthKit's sync and WatchConnectivity) or
    /// `offline` (every channel) stops.
    static func partitionChannels(_ reason: WatchPartition) -> [Channel] {
        reason == .outOfRange ? [.healthkit, .watchconnectivity] : Channel.allCases
    }

    /// The partitions the user's commands hold now, in a fixed order (`offline` first).
    var manualPartitions: [WatchPartition] {
        [WatchPartition.offline, .outOfRange].filter { reason in
            Self.partitionChannels(reason).contains { sync.isPartitioned($0, reason: reason.rawValue) }
        }
    }
}

/// The watch's persistent values, by the properties they are made from.
struct WatchValues: OptionSet, Sendable {
    let rawValue: UInt16
    /// The app's workout session (`workout`).
    static let session = WatchValues(rawValue: 1 << 0)
    /// `hostedSessions`, `restingCount`, `nextRestingAt`, `failNextFinish`.
    static let counts = WatchValues(rawValue: 1 << 1)
    static let uuids = WatchValues(rawValue: 1 << 2)
    static let export = WatchValues(rawValue: 1 << 3)
    /// `plan`, `bulk`, `healthImport`.
    static let jobs = WatchValues(rawValue: 1 << 4)
    /// The watch app's `AppDefaults`.
    static let appDefaults = WatchValues(rawValue: 1 << 5)
    /// The watch's clock (`time`).
    static let clock = WatchValues(rawValue: 1 << 6)
    /// `out-of-range` / `offline` in force.
    static let partitions = WatchValues(rawValue: 1 << 7)
    static let all = WatchValues(rawValue: (1 << 8) - 1)
}
