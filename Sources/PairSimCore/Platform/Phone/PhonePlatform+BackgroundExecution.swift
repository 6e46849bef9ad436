/// App execution in the background as iOS runs it (R: F2): suspension soon after the app's last
/// piece of work iOS waits for, UIKit background tasks with their expiration, and BackgroundTasks'
/// refresh and processing tasks run at the system's discretion (docs/APPS.md, docs/FIDELITY.md).
extension PhonePlatform {
    /// The lead of an expiration handler: it runs this long before the time runs out.
    static let expirationLead = EmulatedDuration.seconds(1)
    /// At most this many refresh requests and processing requests wait at once (Apple's
    /// `BGTaskScheduler.Error.Code.tooManyPendingTaskRequests`: one refresh, ten processing).
    static let pendingLimits = (refresh: 1, processing: 10)

    /// UIKit background tasks or BGTasks keep a backgrounded app running past its budget.
    var holdsBackgroundExecution: Bool { !uiTasks.isEmpty || !runningBGTasks.isEmpty }

    /// The app's last piece of work iOS waits for ended (a wake's completion handler, a UIKit
    /// background task, a BGTask): a backgrounded app is suspended soon after
    /// (`app.suspendAfterCompletion`), not at the end of its budget.
    mutating func backgroundWorkDone(now: EmulatedInstant) -> [NodeAction] {
        guard app == .background, !openCompletions.values.contains(where: \.wake), !holdsBackgroundExecution else { return [] }
        guard let grace = config.app.suspendAfterCompletion else {
            // `off`: the budget decides; one that already ran out (held by the work) ends now.
            return budgetEndsAt == nil ? budgetExpired(now: now) : []
        }
        let end = now + grace
        if let current = budgetEndsAt, current <= end { return [] }
        setBudgetEnd(end, cutShort: true)
        return []
    }

    /// The app entered the background or left it: UIKit tasks' time counts from the former.
    mutating func backgroundStretchChanged(to state: AppState, now: EmulatedInstant) {
        if state == .background {
            if backgroundRunSince == nil { backgroundRunSince = now }
            if !uiTasks.isEmpty { armUITaskDeadline(now: now) }
        } else {
            backgroundRunSince = nil
            disarmUITaskDeadline()
        }
    }

    // MARK: UIKit background tasks

    mutating func beginUITask(_ token: Int, name: String?, now: EmulatedInstant) -> [NodeAction] {
        uiTasks.insert(token)
        if app == .background { armUITaskDeadline(now: now) }
        return [event(.appTaskBegan, now, ["task": .int(Int64(token)), "name": .string(name ?? ""), "open": .int(Int64(uiTasks.count))])]
    }

    mutating func endUITask(_ token: Int, now: EmulatedInstant) -> [NodeAction] {
        guard uiTasks.remove(token) != nil else { return [] }
        var actions = [event(.appTaskEnded, now, ["task": .int(Int64(token)), "open": .int(Int64(uiTasks.count))])]
        if uiTasks.isEmpty {
            disarmUITaskDeadline()
            actions += backgroundWorkDone(now: now)
        }
        return actions
    }

    mutating func armUITaskDeadline(now: EmulatedInstant) {
        guard uiTaskDeadline == nil else { return }
        let deadline = max(now, (backgroundRunSince ?? now) + config.app.backgroundTaskTime)
        uiTaskDeadline = deadline
        uiTaskTimers = [timers.schedule(.uiTasksExpiring, at: max(now, deadline - Self.expirationLead)),
                        timers.schedule(.uiTasksDeadline, at: deadline)]
    }

    mutating func disarmUITaskDeadline() {
        for token in uiTaskTimers { timers.cancel(token) }
        uiTaskTimers = []
        uiTaskDeadline = nil
    }

    /// The tasks' time is nearly over: their expiration handlers run.
    mutating func uiTasksExpiring(now: EmulatedInstant) -> [NodeAction] {
        guard app == .background, !uiTasks.isEmpty else { return [] }
        call(.backgroundTimeExpiring(tasks: uiTasks.sorted()))
        return [event(.appTaskExpiring, now, ["open": .int(Int64(uiTasks.count)), "endsAt": .string((uiTaskDeadline ?? now).description)])]
    }

    /// The tasks' time is over: tasks still open end the app, as iOS does.
    mutating func uiTasksDeadline(now: EmulatedInstant) -> [NodeAction] {
        uiTaskTimers = []
        uiTaskDeadline = nil
        guard app == .background, !uiTasks.isEmpty else { return [] }
        counters.misbehaviours += 1
        let open = uiTasks.count
        var actions = [event(.appMisbehaved, now, level: .warning, [
            "kind": "background-task-not-ended",
            "detail": .string("\(open) background task(s) still open when the background time ran out (endBackgroundTask never called): iOS ends the app"),
        ])]
        actions += endProcess(forceQuit: false, now: now, reason: "background task not ended")
        return actions
    }

    // MARK: BGTaskScheduler

    mutating func bgSubmit(_ id: Int, _ request: BGRequest, now: EmulatedInstant) -> [NodeAction] {
        let others = bgRequests.values.filter { $0.request.processing == request.processing && $0.request.identifier != request.identifier }
        let limit = request.processing ? Self.pendingLimits.processing : Self.pendingLimits.refresh
        guard others.count < limit else {
            call(.done(id: id, error: "tooManyPendingTaskRequests"))
            return [event(.bgtaskRefused, now, level: .warning, ["identifier": .string(request.identifier), "code": "tooManyPendingTaskRequests"])]
        }
        if let old = bgRequestTimers.removeValue(forKey: request.identifier) { timers.cancel(old) }
        let earliest = max(now, request.earliestBegin.map { time.clock.instant(reading: $0) } ?? now) // a date on the phone's clock
        var dueAt = earliest
        if !request.processing {
            // At the system's discretion: drawn from the seed, the identifier and the moment.
            var draw = SplitMix64(seed: seed, label: "bgtask \(request.identifier) \(now.milliseconds)")
            dueAt = earliest + .milliseconds(Int64(draw.uniform(0, Double(config.app.refreshTaskDelay.milliseconds))))
        }
        bgRequests[request.identifier] = PendingBGTask(request: request, dueAt: dueAt)
        bgRequestTimers[request.identifier] = timers.schedule(.bgTaskDue(request.identifier), at: dueAt)
        call(.done(id: id, error: nil))
        var fields: JSONObject = ["identifier": .string(request.identifier), "kind": .string(request.processing ? "processing" : "refresh"),
                                  "earliest": .string(earliest.description)]
        if request.processing {
            fields.append("requiresExternalPower", .bool(request.requiresExternalPower))
        } else {
            fields.append("runsAt", .string(dueAt.description))
        }
        return [event(.bgtaskSubmitted, now, fields)]
    }

    mutating func bgCancel(_ identifier: String?, now: EmulatedInstant) -> [NodeAction] {
        let cancelled = identifier.map { bgRequests[$0] == nil ? [] : [$0] } ?? bgRequests.keys.sorted()
        var actions: [NodeAction] = []
        for name in cancelled {
            bgRequests[name] = nil
            if let token = bgRequestTimers.removeValue(forKey: name) { timers.cancel(token) }
            actions.append(event(.bgtaskCancelled, now, ["identifier": .string(name)]))
        }
        return actions
    }

    /// A request's time came: it runs if the system's conditions hold, else it waits for them.
    mutating func bgTaskDue(_ identifier: String, now: EmulatedInstant) -> [NodeAction] {
        guard let pending = bgRequests[identifier], pending.dueAt <= now else { return [] }
        if app == .forceQuit { return [] }  // runs once the user opens the app again (`launch`)
        if pending.request.processing, !(locked && (charging || !pending.request.requiresExternalPower)) {
            return []  // waits for the device to be idle (locked) and, if asked, on power
        }
        bgRequests[identifier] = nil
        let token = token()
        let processing = pending.request.processing
        let time = processing ? config.app.processingTaskTime : config.app.refreshTaskTime
        var actions = [event(.bgtaskStarted, now, ["identifier": .string(identifier), "kind": .string(processing ? "processing" : "refresh"),
                                                   "app": .string(app.rawValue), "late": .string((now - pending.dueAt).description)])]
        switch app {
        case .notRunning:
            actions += launch(now: now, reason: "background task", inBackground: true, budget: time)
        case .suspended:
            actions += setState(.background, reason: "background task", now: now)
            actions += startBudget(time, now: now)
        case .background:
            actions += startBudget(time, now: now)
        case .foreground, .inactive, .forceQuit:
            break
        }
        let deadline = now + time
        let taskTimers = [timers.schedule(.bgTaskExpiring(token), at: deadline - Self.expirationLead), timers.schedule(.bgTaskDeadline(token), at: deadline)]
        runningBGTasks[token] = RunningBGTask(identifier: identifier, processing: processing, deadline: deadline, timers: taskTimers)
        call(.bgTaskLaunch(token: token, identifier: identifier, processing: processing))
        return actions
    }

    /// Processing requests wait for an idle device: checked when it locks or is plugged in, and
    /// force-quit apps' requests when the user opens the app again.
    mutating func rearmBGRequests(now: EmulatedInstant) {
        for (identifier, pending) in bgRequests where bgRequestTimers[identifier] == nil {
            bgRequestTimers[identifier] = timers.schedule(.bgTaskDue(identifier), at: max(now, pending.dueAt))
        }
    }

    mutating func bgTaskCompleted(_ token: Int, success: Bool, now: EmulatedInstant) -> [NodeAction] {
        guard let task = runningBGTasks.removeValue(forKey: token) else { return [] }
        for timer in task.timers { timers.cancel(timer) }
        return [event(.bgtaskCompleted, now, ["identifier": .string(task.identifier), "success": .bool(success)])] + backgroundWorkDone(now: now)
    }

    mutating func bgTaskExpiring(_ token: Int, now: EmulatedInstant) -> [NodeAction] {
        guard let task = runningBGTasks[token], app.isRunning else { return [] }
        call(.bgTaskExpiring(token: token))
        return [event(.bgtaskExpiring, now, ["identifier": .string(task.identifier), "endsAt": .string(task.deadline.description)])]
    }

    /// The task's time is over: not completed, iOS ends the app (on screen it just ends the task).
    mutating func bgTaskDeadline(_ token: Int, now: EmulatedInstant) -> [NodeAction] {
        guard let task = runningBGTasks.removeValue(forKey: token) else { return [] }
        counters.misbehaviours += 1
        var actions = [event(.appMisbehaved, now, level: .warning, [
            "kind": "bgtask-not-completed",
            "detail": .string("BGTask \(task.identifier) ran out of time without setTaskCompleted(success:)"
                + (app == .background ? ": iOS ends the app" : "")),
        ])]
        if app == .background { actions += endProcess(forceQuit: false, now: now, reason: "background task not completed") }
        return actions
    }

    /// `plug-in` / `unplug`.
    mutating func setCharging(_ on: Bool, now: EmulatedInstant) -> [NodeAction] {
        charging = on
        if on { rearmBGRequests(now: now) }
        return [event(.deviceCharging, now, ["charging": .bool(on)])]
    }
}
