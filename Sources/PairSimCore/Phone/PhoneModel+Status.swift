/// The phone's `status` reply.
extension PhoneModel {
    func status(now: EmulatedInstant) -> String {
        var lines = ["phone at \(now) seed \(seed)"]
        var appLine = "app: \(app.rawValue)\(locked ? ", device LOCKED" + (frontmostAtLock ? " (app on screen at lock)" : "") : "")"
        if let end = budgetEndsAt { appLine += ", budget until \(end)" }
        if let since = backgroundSince, !app.isOnScreen { appLine += ", off screen since \(since)" }
        lines.append(appLine)
        lines.append("observers: \(observers.isEmpty ? "none registered" : observers.map(\.shortName).joined(separator: ", "))"
            + (denied.isEmpty ? "" : "; read denied: \(denied.sorted().map(\.shortName).joined(separator: ", "))"))
        var delivered: [String] = []
        for type in ObjectType.observed {
            guard let state = delivery.state(type) else { continue }
            var text = "\(type.shortName) \(state.frequency.rawValue)"
            if !state.enabled { text += " off" }
            if state.stopped { text += " STOPPED" }
            if state.consecutiveMisses > 0 { text += " misses \(state.consecutiveMisses)" }
            if let at = state.wakeAt { text += " wake \(at)" }
            if state.awaitingCompletion { text += " awaiting completion" }
            delivered.append(text)
        }
        lines.append("background delivery: " + delivered.joined(separator: "; "))
        if saveFailures > 0 { lines.append("HealthKit will refuse the app's next \(saveFailures) save(s)") }
        if !missCompletions.isEmpty {
            lines.append("will miss completions: " + missCompletions.keys.sorted().map { "\($0.shortName) ×\(missCompletions[$0]!)" }.joined(separator: ", "))
        }
        let cache = snapshots.isValid(at: now) ? "valid (taken \(snapshots.cachedAt!))" : snapshots.cached == nil ? "empty" : "expired"
        lines.append("coordinator: last refresh \(coordinator.lastRefreshDate); cache \(cache)\(snapshots.inFlightID.map { ", fetch #\($0) in flight" } ?? "")")
        for tab in Tab.allCases {
            let state = tabs.tabs[tab]!
            var text = "tab \(tab.rawValue): loads \(state.loads)"
            if let loading = state.loading { text += ", loading #\(loading)" }
            if let shown = state.shown { text += " — " + shown.members.map { "\($0.key)=\(Event.humanValue($0.value))" }.joined(separator: " ") }
            lines.append(text)
        }
        lines.append("healthkit store: \(store.workoutCount) workouts, \(store.sampleCount) samples, \(store.tombstones.count) tombstones"
            + (lockBuffer.isEmpty ? "" : "; \(lockBuffer.itemCount) held until unlock"))
        lines.append("records: \(records.count)" + (container.isEmpty ? "" : "; \(container.saved.count + container.deleted.count) waiting in CloudKit"))
        lines.append("notifier: last seen \(notifier.lastSeenID?.text ?? "none")")
        lines += counters.lines
        for channel in Channel.allCases {
            let c = sync.counters(channel)
            lines.append("\(channel): received \(c.receivedMessages) (\(c.receivedBytes) B), duplicates dropped \(c.duplicatesDropped), pending out \(sync.pending(channel))")
        }
        lines.append("wire rejected: \(sync.rejected.values.reduce(0, +))")
        return lines.joined(separator: "\n")
    }
}
