/// What the watch keeps across restarts beyond its stores and outbox.
extension WatchModel {
    public func persistentValues() -> [String: JSON] { values(.all) }

    /// The values that may have changed since this last ran (R: K1): building all of them each
    /// turn was ~10 % of the watch's one-sample turns, and its ack turn runs while the ack is on
    /// its way to whoever else listens.
    public mutating func changedValues() -> [String: JSON] {
        defer { touched = [] }
        return values(touched)
    }

    /// `store.anchor`, `sync` and `wc` always, and the ones `keys` names.
    func values(_ keys: WatchValues) -> [String: JSON] {
        var values: [String: JSON] = [:]
        values["store.anchor"] = .int(store.anchor)
        values["sync"] = sync.json
        values["wc"] = wc.json
        if keys.contains(.session) {
            values["watch.session"] = session.json
            if hostedApp != nil { values["watch.hostedWorkout"] = workout?.json ?? .null }
        }
        if keys.contains(.counts) {
            values["watch.sessionCount"] = .int(sessionCount)
            values["watch.restingCount"] = .int(restingCount)
            values["watch.nextRestingAt"] = nextRestingAt.map { .int($0.milliseconds) } ?? .null
            values["watch.failNextFinish"] = .bool(failNextFinish)
            if hostedApp != nil { values["watch.hostedSessions"] = .int(hostedSessions) }
        }
        if keys.contains(.appDefaults), hostedApp != nil {
            values["watch.appDefaults"] = .object(appDefaults)
        }
        if keys.contains(.clock) { values["watch.clock"] = time.clock.json }
        if keys.contains(.partitions) { values["watch.partitions"] = .array(manualPartitions.map(JSON.string)) }
        if keys.contains(.uuids) { values["watch.uuids"] = .int(Int64(bitPattern: uuids.random.state)) }
        if keys.contains(.export) { values["cloudkit.export"] = exporter.json }
        if keys.contains(.jobs) {
            values["watch.plan"] = plan?.json ?? .null
            values["watch.bulk"] = bulk?.json ?? .null
            values["watch.import"] = healthImport?.json ?? .null
        }
        return values
    }

    public mutating func restore(_ state: PersistedState, now: EmulatedInstant) throws(DecodeError) {
        try state.restore(store: &store, records: &records, sync: &sync, now: now)
        let values = state.values
        if let json = values["watch.session"] { session = try WorkoutSession(json: json) }
        if hostedApp != nil, let json = values["watch.hostedWorkout"], json != .null {
            var restored = try HostedWorkout(json: json)
            // The sensor reads again from the restart: what it missed while the watch was down is gone.
            restored.nextSampleAt = nil
            if restored.activeSince != nil { restored.pauseActive(at: now) }
            workout = restored
        }
        hostedSessions = values["watch.hostedSessions"]?.intValue ?? hostedSessions
        if hostedApp != nil, let defaults = values["watch.appDefaults"]?.objectValue { appDefaults = defaults }
        sessionCount = values["watch.sessionCount"]?.intValue ?? sessionCount
        restingCount = values["watch.restingCount"]?.intValue ?? restingCount
        nextRestingAt = values["watch.nextRestingAt"]?.intValue.map(EmulatedInstant.init(milliseconds:))
        failNextFinish = values["watch.failNextFinish"]?.boolValue ?? false
        if let state = values["watch.uuids"]?.intValue { uuids.random.state = UInt64(bitPattern: state) }
        if let export = values["cloudkit.export"] { try exporter.restore(export) }
        plan = values["watch.plan"].flatMap(WorkoutPlan.init(json:))
        bulk = values["watch.bulk"].flatMap(BulkWrite.init(json:))
        healthImport = values["watch.import"].flatMap(HealthImportJob.init(json:))
        if var job = healthImport {
            // The watch stopped with an import under way: again at the same place counts toward giving up.
            // Only while checking, which reads on without waiting for anything: an import waiting for
            // the phone's acknowledgements may well be stopped several times at one place.
            if job.phase != .checking { (job.stops, job.stoppedAt) = (0, -1) }
            else if job.done == job.stoppedAt { job.stops += 1 } else { (job.stops, job.stoppedAt) = (1, job.done) }
            healthImport = job
        }
        if let json = values["wc"] { try wc.restore(json: json) }
        if let clock = values["watch.clock"] { time.restore(try DeviceClock(json: clock, path: "watch.clock"), now: now) }
        // Out of range or offline when it stopped: so it comes back, until `in-range` / `online` (R: K9).
        for reason in (values["watch.partitions"]?.arrayValue ?? []).compactMap(\.stringValue) where Self.partitionReasons.contains(reason) {
            for channel in Self.partitionChannels(reason) { _ = sync.setPartition(channel, reason: reason, true, now: now) }
        }
        restored = !state.isEmpty
    }
}

extension WatchModel {
    static let partitionReasons = ["offline", "out-of-range"]

    /// The channels `out-of-range` (the radio link: HealthKit's sync and WatchConnectivity) or
    /// `offline` (every channel) stops.
    static func partitionChannels(_ reason: String) -> [Channel] {
        reason == "out-of-range" ? [.healthkit, .watchconnectivity] : Channel.allCases
    }

    /// The partitions the user's commands hold now, in a fixed order.
    var manualPartitions: [String] {
        Self.partitionReasons.filter { reason in Self.partitionChannels(reason).contains { sync.isPartitioned($0, reason: reason) } }
    }
}

/// The watch's persistent values, by the properties they are made from.
struct WatchValues: OptionSet, Sendable {
    let rawValue: UInt16
    static let session = WatchValues(rawValue: 1 << 0)
    /// `sessionCount`, `restingCount`, `nextRestingAt`, `failNextFinish`.
    static let counts = WatchValues(rawValue: 1 << 1)
    static let uuids = WatchValues(rawValue: 1 << 2)
    static let export = WatchValues(rawValue: 1 << 3)
    /// `plan`, `bulk`, `healthImport`.
    static let jobs = WatchValues(rawValue: 1 << 4)
    /// A developer's watch app's `AppDefaults`.
    static let appDefaults = WatchValues(rawValue: 1 << 5)
    /// The watch's clock (`time`).
    static let clock = WatchValues(rawValue: 1 << 6)
    /// `out-of-range` / `offline` in force.
    static let partitions = WatchValues(rawValue: 1 << 7)
    static let all = WatchValues(rawValue: (1 << 8) - 1)
}
