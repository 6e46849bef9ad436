/// The platform's part of the phone's `status` reply (the app adds its own lines).
extension PhonePlatform {
    /// `status --json` (schema in docs/COMMANDS.md); the host adds the app's own lines as `app`.
    func statusJSON(now: EmulatedInstant) -> JSONObject {
        var object: JSONObject = ["node": "phone", "at": .int(now.milliseconds), "seed": .int(Int64(bitPattern: seed))]
        object.append("appState", .string(app.rawValue))
        object.append("locked", .bool(locked))
        object.append("clock", .object(time.clock.fields(at: now)))
        object.append("observers", .array(observerQueries.map { .string($0.type.name) }))
        object.append("stores", .object([
            "workouts": .int(Int64(store.workoutCount)), "samples": .int(Int64(store.sampleCount)),
            "byType": store.countsJSON, "tombstones": .int(Int64(store.tombstones.count)), "records": .int(Int64(records.count)),
            "heldUntilUnlock": .int(Int64(lockBuffer.itemCount)),
            "waitingInCloudKit": .int(Int64(container.saved.count + container.deleted.count)),
        ]))
        object.append("channels", sync.channelsJSON(now: now))
        object.append("rejected", sync.rejectedJSON)
        object.append("watchConnectivity", .object(wc.statusJSON))
        return object
    }

    func status(now: EmulatedInstant) -> String {
        var lines = ["phone at \(now) seed \(seed)"]
        var appLine = "app: \(app.rawValue)\(locked ? ", device LOCKED" + (frontmostAtLock ? " (app on screen at lock)" : "") : "")"
        if let end = budgetEndsAt { appLine += ", budget until \(end)" }
        if let since = backgroundSince, !app.isOnScreen { appLine += ", off screen since \(since)" }
        lines.append(appLine)
        lines.append(time.statusLine(at: now))
        lines.append("observer queries: \(observerQueries.isEmpty ? "none" : observerQueries.map(\.type.shortName).joined(separator: ", "))"
            + (denied.isEmpty ? "" : "; read denied: \(denied.sorted().map(\.shortName).joined(separator: ", "))"))
        var delivered: [String] = []
        for type in ObjectType.all {
            guard let state = delivery.state(type) else { continue }
            var text = "\(type.shortName) \(state.frequency.rawValue)"
            if !state.enabled { text += " off" }
            if state.stopped { text += " STOPPED" }
            if state.consecutiveMisses > 0 { text += " misses \(state.consecutiveMisses)" }
            if let at = state.wakeAt { text += " wake \(at)" }
            if state.awaitingCompletion { text += " awaiting completion" }
            delivered.append(text)
        }
        lines.append("background delivery: " + (delivered.isEmpty ? "none enabled" : delivered.joined(separator: "; ")))
        if saveFailures > 0 { lines.append("HealthKit will refuse the app's next \(saveFailures) save(s)") }
        lines.append("healthkit store: \(store.workoutCount) workouts, \(store.sampleCount) samples, \(store.tombstones.count) tombstones"
            + (lockBuffer.isEmpty ? "" : "; \(lockBuffer.itemCount) held until unlock"))
        lines.append("records: \(records.count)" + (container.isEmpty ? "" : "; \(container.saved.count + container.deleted.count) waiting in CloudKit"))
        lines += counters.lines
        for channel in Channel.allCases {
            let c = sync.counters(channel)
            lines.append("\(channel): received \(c.receivedMessages) (\(c.receivedBytes) B), duplicates dropped \(c.duplicatesDropped), pending out \(sync.pending(channel))")
        }
        lines.append("wire rejected: \(sync.rejected.values.reduce(0, +))")
        lines += wc.statusLines
        return lines.joined(separator: "\n")
    }
}
