/// Background tasks (R: A9): `WKApplicationRefreshBackgroundTask` at the app's request, within a
/// budget; `WKWatchConnectivityRefreshBackgroundTask` when the phone's user info, context or file
/// arrives while the app is suspended; `WKSnapshotRefreshBackgroundTask` when it leaves the screen.
/// The app runs in the background until it has completed them, then is suspended; a task not
/// completed within `watch.backgroundRefresh.taskTime` is a misbehaviour, and the app is
/// suspended all the same.
extension WatchModel {
    /// Moves the app's process to `state`, with an `app.state` event; running again, it gets
    /// what was held for it.
    mutating func setAppState(_ state: WatchAppState, reason: String, now: EmulatedInstant) -> [NodeAction] {
        guard appState != state else { return [] }
        let from = appState
        appState = state
        if state == .foreground || state == .background, !heldCalls.isEmpty {
            appCalls += heldCalls
            heldCalls = []
        }
        return [event(.appState, now, ["from": .string(from.rawValue), "to": .string(state.rawValue), "reason": .string(reason)])]
    }

    /// The app runs off screen with nothing to do: suspended (a workout session keeps it running).
    mutating func suspendIfIdle(now: EmulatedInstant) -> [NodeAction] {
        guard appState == .background, openTasks.isEmpty, workout?.state != .running, workout?.state != .paused else { return [] }
        return setAppState(.suspended, reason: "no work left", now: now)
    }

    /// Hands the app a background task, waking it into the background when suspended.
    mutating func startTask(_ kind: BackgroundTask.Kind, now: EmulatedInstant) -> [NodeAction] {
        guard appRunning else { return [] }
        let token = token()
        openTasks[token] = (kind, now + topology.watch.backgroundTaskTime)
        var actions = appState == .suspended ? setAppState(.background, reason: "background task", now: now) : []
        let task = BackgroundTask(token: token, kind: kind)
        call(.backgroundTasks([task]))
        actions.append(event(.taskStarted, now, ["task": .string(task.name), "token": .int(Int64(token))]))
        return actions
    }

    /// The app completed task `token`.
    mutating func completeTask(_ token: Int, snapshot: Bool, now: EmulatedInstant) -> [NodeAction] {
        guard let (kind, _) = openTasks.removeValue(forKey: token) else { return [] }
        return [event(.taskCompleted, now, ["task": .string(BackgroundTask(token: token, kind: kind).name), "token": .int(Int64(token)),
                                            "snapshot": .bool(snapshot)])]
    }

    /// `scheduleBackgroundRefresh`: runs at the preferred date, or once the hour's budget allows.
    mutating func scheduleRefresh(_ id: Int, at: EmulatedInstant, now: EmulatedInstant) {
        refreshes[id] = max(at, now)
        call(.done(id: id, error: nil))
    }

    /// When refresh `at` may run: the preferred date, unless the last hour's runs used the budget.
    func refreshDue(_ at: EmulatedInstant) -> EmulatedInstant {
        let budget = topology.watch.refreshPerHour
        guard budget > 0 else { return .zero + .days(365_000) }
        let recent = refreshRuns.filter { $0 > at - .hours(1) }
        guard recent.count >= budget else { return at }
        return recent[recent.count - budget] + .hours(1)
    }

    /// When the background tasks next need the driver: a refresh coming due, a task's time running out.
    var tasksDeadline: EmulatedInstant? {
        var next: EmulatedInstant?
        for at in refreshes.values { next = next.earliest(refreshDue(at)) }
        for task in openTasks.values { next = next.earliest(task.deadline) }
        return next
    }

    /// Refreshes that came due start; tasks whose time ran out end, reported.
    mutating func advanceTasks(now: EmulatedInstant) -> [NodeAction] {
        var actions: [NodeAction] = []
        for (id, at) in refreshes.sorted(by: { ($0.value, $0.key) < ($1.value, $1.key) }) where refreshDue(at) <= now {
            refreshes[id] = nil
            refreshRuns.append(now)
            refreshRuns.removeAll { $0 <= now - .hours(1) }
            actions += startTask(.appRefresh(id: id), now: now)
        }
        for (token, task) in openTasks.sorted(by: { $0.key < $1.key }) where task.deadline <= now {
            openTasks[token] = nil
            let name = BackgroundTask(token: token, kind: task.kind).name
            actions.append(misbehaved("task-not-completed", "the \(name) background task was not completed within \(topology.watch.backgroundTaskTime) (setTaskCompletedWithSnapshot); watchOS suspends the app", now: now))
        }
        return actions + suspendIfIdle(now: now)
    }
}
