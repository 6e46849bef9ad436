/// The app's lifecycle as iOS runs it (R: L1, L2): launch, scene phases, execution budgets,
/// suspension, termination, and the device lock.
extension PhonePlatform {
    mutating func setState(_ state: AppState, reason: String, now: EmulatedInstant, extra: JSONObject = [:]) -> [NodeAction] {
        let from = app
        app = state
        if from == .suspended, state.isRunning {
            // Work the app had in flight resumes: what arrived for it meanwhile is delivered now.
            appCalls += heldCalls
            heldCalls = []
        }
        var fields: JSONObject = ["from": .string(from.rawValue), "to": .string(state.rawValue), "reason": .string(reason)]
        for member in extra.members { fields.append(member.key, member.value) }
        var actions: [NodeAction] = [event(.appState, now, fields)]
        if from != state { backgroundStretchChanged(to: state, now: now) }
        if from == .suspended, state.isRunning, !changedWhileSuspended.isEmpty {
            let changed = changedWhileSuspended
            changedWhileSuspended = []
            for type in changed {
                for query in observerQueries where query.type == type { actions += observerFired(query, trigger: .change, now: now) }
            }
        }
        return actions
    }

    /// Launches the app's process: in the foreground (the user) or in the background (a wake for
    /// `wokenFor`). The app hears `didFinishLaunching`, then (on screen) the scene becomes active.
    mutating func launch(now: EmulatedInstant, reason: String, wokenFor: ObjectType? = nil, inBackground background: Bool = false,
                         budget: EmulatedDuration? = nil) -> [NodeAction] {
        let inBackground = wokenFor != nil || background
        observerQueries = []
        changedWhileSuspended = []
        openCompletions = [:]
        var actions = setState(inBackground ? .background : .foreground, reason: reason, now: now)
        wakeOnLaunch = wokenFor
        let launchReason: AppLaunchReason = switch reason {
        case "user", "initial", "unlock": .user
        case "background delivery": .healthKit
        case "WatchConnectivity message": .watchConnectivity
        case "background task": .backgroundTask
        case "CloudKit notification": .remoteNotification
        default: .system
        }
        call(.launch(background: inBackground, reason: launchReason, defaults: defaults, records: records.records))
        if inBackground {
            actions += startBudget(budget ?? config.app.wakeBudget, now: now)
        } else {
            call(.scenePhase(.active))
            // Requests a force quit held back may run again (BGTaskScheduler).
            rearmBGRequests(now: now)
        }
        actions += importFromContainer(now: now)
        return actions
    }

    mutating func startBudget(_ budget: EmulatedDuration, now: EmulatedInstant) -> [NodeAction] {
        let end = now + budget
        if let current = budgetEndsAt, current >= end, budgetToken != nil { return [] }
        setBudgetEnd(end, cutShort: false)
        return []
    }

    /// The app's running time in the background ends at `end` (`cutShort`: because its work is done).
    mutating func setBudgetEnd(_ end: EmulatedInstant, cutShort: Bool) {
        if let token = budgetToken { timers.cancel(token) }
        budgetEndsAt = end
        budgetToken = timers.schedule(.budgetEnd, at: end)
        budgetCutShort = cutShort
    }

    mutating func cancelBudget() {
        if let token = budgetToken { timers.cancel(token) }
        budgetToken = nil
        budgetEndsAt = nil
        budgetCutShort = false
    }

    /// The background budget ran out: the app is suspended (its work freezes until it runs
    /// again), and wakes without a completion are missed.
    mutating func budgetExpired(now: EmulatedInstant) -> [NodeAction] {
        budgetEndsAt = nil
        let cutShort = budgetCutShort
        budgetCutShort = false
        guard app == .background else { return [] }
        // UIKit background tasks and BGTasks keep it running, to their own deadlines (R: F2).
        if holdsBackgroundExecution { return resolveMissedWakes(now: now) }
        var actions = setState(.suspended, reason: cutShort ? "work done" : "budget expired", now: now)
        actions += resolveMissedWakes(now: now)
        return actions
    }

    /// `foreground`: the user opens the app (launching it if needed), or unlocking the device
    /// brings it back (`reason: "unlock"`).
    mutating func comeToForeground(now: EmulatedInstant, reason: String = "user") -> [NodeAction] {
        switch app {
        case .notRunning, .forceQuit:
            return launch(now: now, reason: reason)
        case .foreground:
            return []
        case .inactive:
            let actions = setState(.foreground, reason: reason, now: now)
            call(.scenePhase(.active))
            return actions
        case .background, .suspended:
            cancelBudget()
            let away = backgroundSince.map { now - $0 } ?? .zero
            var actions = setState(.foreground, reason: reason, now: now, extra: ["away": .string(away.description)])
            backgroundSince = nil
            call(.scenePhase(.active))
            actions += importFromContainer(now: now)
            return actions
        }
    }

    /// `background`: the user leaves the app; it runs for its background budget, then is suspended.
    mutating func goToBackground(now: EmulatedInstant, reason: String) -> [NodeAction] {
        guard app.isOnScreen else { return [] }
        backgroundSince = now
        var actions = setState(.background, reason: reason, now: now)
        call(.scenePhase(.background))
        actions += startBudget(config.app.backgroundBudget, now: now)
        return actions
    }

    /// `inactive`: the app stays on screen but stops receiving events.
    mutating func becomeInactive(now: EmulatedInstant) -> [NodeAction] {
        let actions = setState(.inactive, reason: "user", now: now)
        call(.scenePhase(.inactive))
        return actions
    }

    /// The process ends: by the user (force quit) or by the system (terminate).
    mutating func endProcess(forceQuit: Bool, now: EmulatedInstant, reason: String? = nil) -> [NodeAction] {
        cancelBudget()
        observerQueries = []
        changedWhileSuspended = []
        openCompletions = [:]
        if backgroundSince == nil { backgroundSince = now }
        // A force quit ends delivery outright (no backoff to log); a terminated app's misses count.
        if forceQuit { delivery.disableAll() }
        var actions = resolveMissedWakes(now: now)
        actions += setState(forceQuit ? .forceQuit : .notRunning, reason: reason ?? (forceQuit ? "user force quit" : "system terminated"), now: now)
        processEnded()
        return actions
    }

    /// The app's process is gone: nothing more reaches it, its timers with it.
    mutating func processEnded() {
        appCalls = []
        heldCalls = []
        wc.processEnded()
        wcReplyTokens = [:]
        for (_, token) in appTimers { timers.cancel(token) }
        appTimers = [:]
        uiTasks = []
        disarmUITaskDeadline()
        for task in runningBGTasks.values { for timer in task.timers { timers.cancel(timer) } }
        runningBGTasks = [:]
        wakeOnLaunch = nil
        appCalls.append(.terminated)
    }

    /// Every wake still awaiting its completion is a miss: backoff, or delivery stops (R: O5).
    mutating func resolveMissedWakes(now: EmulatedInstant) -> [NodeAction] {
        var actions: [NodeAction] = []
        for type in delivery.awaiting {
            guard let outcome = delivery.missed(type, now: now) else { continue }
            counters.missedCompletions += 1
            // A completion handler called after this is too late: HealthKit no longer waits for it.
            openCompletions = openCompletions.filter { !($0.value.wake && $0.value.type == type) }
            switch outcome {
            case .backoff(let strike, let delay, let retryAt):
                timers.schedule(.wake(type), at: retryAt)
                actions.append(event(.bgdeliveryMissed, now, level: .warning, ["type": .string(type.name), "strike": .int(Int64(strike))]))
                actions.append(event(.bgdeliveryBackoff, now, ["type": .string(type.name), "delay": .string(delay.description),
                                                              "retryAt": .string(retryAt.description)]))
            case .stopped(let strike):
                actions.append(event(.bgdeliveryMissed, now, level: .warning, ["type": .string(type.name), "strike": .int(Int64(strike))]))
                actions.append(event(.bgdeliveryStopped, now, level: .warning, [
                    "type": .string(type.name), "reason": .string("\(strike) consecutive missed completion handlers; until the next launch"),
                ]))
            }
        }
        return actions
    }

    mutating func lock(now: EmulatedInstant) -> [NodeAction] {
        guard !locked else { return [] }
        locked = true
        frontmostAtLock = app.isOnScreen
        var actions = [event(.deviceLocked, now)]
        actions += goToBackground(now: now, reason: "device locked")
        // An idle device: processing tasks may run (R: F2).
        rearmBGRequests(now: now)
        return actions
    }

    /// Unlock merges what arrived while locked into the store, brings the app that was frontmost
    /// back to the screen, then delivers the pending changes (R: H4, L1): an app that is running
    /// hears them from its observers at once, others get their (not yet used) wake.
    mutating func unlock(now: EmulatedInstant) -> [NodeAction] {
        guard locked else { return [] }
        locked = false
        wc.awaitingFirstUnlock = false
        let buffered = lockBuffer
        lockBuffer = HealthObjectsBatch()
        var actions = [event(.deviceUnlocked, now, ["buffered": .int(Int64(buffered.itemCount))])]
        if !buffered.isEmpty { actions.append(.persist(.releaseHeld)) }
        var changed: [ObjectType] = []
        if !buffered.isEmpty {
            let (types, stored) = saveNoticing(buffered, now: now)
            actions += stored
            actions.append(event(.hkMerged, now, ["items": .int(Int64(buffered.itemCount)), "types": .array(Self.types(of: buffered).map { .string($0.name) })]))
            changed = types
        }
        if frontmostAtLock, app != .forceQuit { actions += comeToForeground(now: now, reason: "unlock") }
        frontmostAtLock = false
        let deferred = deferredUntilUnlock
        deferredUntilUnlock = []
        for type in deferred where !changed.contains(type) { changed.append(type) }
        actions += healthDataChanged(changed.sorted(), now: now)
        return actions
    }

    /// After a node restart the platform keeps its state, but the app's process is new: an app
    /// that was running is launched again (in the same place); a suspended one is gone.
    mutating func resumeAfterRestart(now: EmulatedInstant) -> [NodeAction] {
        if let at = exporter.nextExportAt { exportToken = timers.schedule(.export, at: max(at, now)) }
        for type in ObjectType.all {
            if let at = delivery.state(type)?.wakeAt { timers.schedule(.wake(type), at: max(at, now)) }
        }
        switch app {
        case .foreground, .inactive:
            return launch(now: now, reason: "node restarted")
        case .background, .suspended:
            return setState(.notRunning, reason: "node restarted: the app's process is gone", now: now)
        case .notRunning, .forceQuit:
            return []
        }
    }
}
