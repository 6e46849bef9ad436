import PairSimCore

/// What report.html draws beyond the raw ticks (R: I3): the phone app's states as bands, the
/// causal chain of each workout from the watch to the phone's notification, and how long each
/// channel's messages took.
enum ReportAnalysis {
    /// `[start, end, state]` for each stretch of the app's state, and `[start, end, "locked"]` for the lock.
    static func bands(_ events: [Event], end: EmulatedInstant) -> [JSON] {
        var bands: [JSON] = []
        var state: (String, EmulatedInstant)?, lockedAt: EmulatedInstant?
        func band(_ from: EmulatedInstant, _ to: EmulatedInstant, _ name: String) {
            if to > from { bands.append(.array([.int(from.milliseconds), .int(to.milliseconds), .string(name)])) }
        }
        for event in events where event.node == .phone {
            switch event.name {
            case EventName.appState.rawValue:
                guard let to = event["to"]?.stringValue else { continue }
                if let (name, since) = state { band(since, event.at, name) }
                state = (to, event.at)
            case EventName.deviceLocked.rawValue: lockedAt = lockedAt ?? event.at
            case EventName.deviceUnlocked.rawValue:
                if let since = lockedAt { band(since, event.at, "locked") }
                lockedAt = nil
            default: break
            }
        }
        if let (name, since) = state { band(since, end, name) }
        if let since = lockedAt { band(since, end, "locked") }
        return bands
    }

    /// For each workout finished on the watch: finished → received on the phone's healthkit channel
    /// → saved in the phone's store → the app hears of it (wake or observer) → refresh or cache
    /// invalidation → "Workout completed". Steps that never happened are left out.
    static func causalLinks(_ events: [Event]) -> [JSON] {
        var links: [JSON] = []
        for (index, finished) in events.enumerated() where finished.node == .watch && finished.name == EventName.workoutFinished.rawValue {
            guard let uuid = finished["uuid"]?.stringValue else { continue }
            var steps: [JSON] = [step(finished, "finished on the watch")]
            var position = index
            func next(_ label: String, _ matches: (Event) -> Bool) {
                guard let found = events[(position + 1)...].firstIndex(where: matches) else { return }
                position = found
                steps.append(step(events[found], label))
            }
            next("received over healthkit") { $0.node == .phone && $0.name == EventName.syncReceived.rawValue && $0["workout"]?.stringValue == uuid }
            next("saved in the phone's HealthKit") { $0.node == .phone && $0.name == EventName.hkSaved.rawValue && $0["uuid"]?.stringValue == uuid }
            next("the app hears of it") { event in
                event.node == .phone && (event.name == EventName.bgdeliveryWake.rawValue || event.name == EventName.observerFired.rawValue)
                    && event["type"]?.stringValue == "workout"
            }
            next("refresh or invalidation") { event in
                event.node == .phone && (event.name == EventName.coordinatorRefresh.rawValue || event.name == EventName.cacheInvalidated.rawValue)
            }
            if let posted = events[(index + 1)...].first(where: { $0.node == .phone && $0.name == EventName.notificationPosted.rawValue && $0["uuid"]?.stringValue == uuid }) {
                steps.append(step(posted, "notification posted"))
            }
            links.append(.object(["uuid": .string(uuid), "steps": .array(steps)]))
        }
        return links
    }

    static func step(_ event: Event, _ label: String) -> JSON {
        .array([.int(event.at.milliseconds), .string(ReportWriter.lane(event)), .string(label + " — " + event.humanLine)])
    }

    /// Upper bounds of the delay buckets (ms) and their labels; the last bucket is open.
    static let delayBuckets: [(Int64, String)] = [
        (1_000, "<1s"), (2_000, "1–2s"), (5_000, "2–5s"), (10_000, "5–10s"), (30_000, "10–30s"), (60_000, "30s–1m"),
        (120_000, "1–2m"), (300_000, "2–5m"), (600_000, "5–10m"), (1_200_000, "10–20m"), (Int64.max, "≥20m"),
    ]

    /// Per channel: how many received messages took how long (send → receipt, `sync.received` delay).
    static func delayHistograms(_ events: [Event]) -> JSON {
        var object = JSONObject()
        for channel in Channel.allCases {
            var counts = [Int64](repeating: 0, count: delayBuckets.count)
            for event in events where event.name == EventName.syncReceived.rawValue && event["channel"]?.stringValue == channel.rawValue {
                guard let text = event["delay"]?.stringValue, let delay = EmulatedDuration(parsing: text) else { continue }
                counts[delayBuckets.firstIndex { delay.milliseconds < $0.0 }!] += 1
            }
            object.append(channel.rawValue, .object(["labels": .array(delayBuckets.map { .string($0.1) }),
                                                     "counts": .array(counts.map(JSON.int))]))
        }
        return .object(object)
    }

    /// Both devices' clocks, side by side (R: F5): a row at each clock event and at the end —
    /// `[true ms, what, phone reads, watch reads]` — rebuilt from the `clock.*` events; empty
    /// when both kept true time in UTC.
    static func clocks(_ events: [Event], end: EmulatedInstant) -> [JSON] {
        var clocks: [NodeName: DeviceClock] = [.phone: .exact, .watch: .exact]
        var rows: [JSON] = []
        func row(_ at: EmulatedInstant, _ what: String) {
            rows.append(.array([.int(at.milliseconds), .string(what),
                                .string(clocks[.phone]!.localText(at: at)), .string(clocks[.watch]!.localText(at: at))]))
        }
        // The clocks as they stand after everything at an instant, for each event at it: both
        // nodes' `clock.started` at zero come before either row.
        let changes = events.filter { $0.name.hasPrefix("clock.") && clocks[$0.node] != nil }
        var index = 0
        while index < changes.count {
            let at = changes[index].at
            let group = changes[index...].prefix { $0.at == at }
            for event in group {
                var clock = clocks[event.node]!
                switch event.name {
                case EventName.clockStarted.rawValue, EventName.clockSet.rawValue:
                    if let offset = event["offsetMs"]?.intValue { clock.set(reading: event.at + .milliseconds(offset), at: event.at) }
                    if let drift = event["driftPPM"]?.doubleValue { clock.driftPPM = drift }
                    if let zone = event["timeZone"]?.stringValue, DeviceClock.isKnownZone(zone) { clock.timeZone = zone }
                case EventName.clockTimeZone.rawValue:
                    if let zone = event["to"]?.stringValue, DeviceClock.isKnownZone(zone) { clock.timeZone = zone }
                default:
                    break
                }
                clocks[event.node] = clock
            }
            for event in group {
                let clock = clocks[event.node]!
                let what: String
                switch event.name {
                case EventName.clockStarted.rawValue: what = "\(event.node.rawValue) clock: \(clock.settingsText)"
                case EventName.clockSet.rawValue: what = "\(event.node.rawValue) set-time"
                case EventName.clockTimeZone.rawValue: what = "\(event.node.rawValue) set-time-zone \(event["to"]?.stringValue ?? "")"
                default: what = "\(event.node.rawValue) daylight saving " + (event["daylightSaving"]?.boolValue == true ? "begins" : "ends")
                }
                row(at, what)
            }
            index += group.count
        }
        if !rows.isEmpty { row(end, "end") }
        return rows
    }
}
