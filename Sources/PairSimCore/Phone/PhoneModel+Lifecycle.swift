/// The app's lifecycle (R: L1, L2): launch, scene phases, budgets, termination, device lock.
extension PhoneModel {
    mutating func setState(_ state: AppState, reason: String, now: EmulatedInstant, extra: JSONObject = [:]) -> [NodeAction] {
        let from = app
        app = state
        var fields: JSONObject = ["from": .string(from.rawValue), "to": .string(state.rawValue), "reason": .string(reason)]
        for member in extra.members { fields.append(member.key, member.value) }
        return [event(.appState, now, fields)]
    }

    /// Launches the app: in the foreground (the user) or in the background (a wake for `wokenFor`).
    mutating func launch(now: EmulatedInstant, reason: String, wokenFor: ObjectType? = nil) -> [NodeAction] {
        let inBackground = wokenFor != nil
        stopExecuting()
        snapshots.reset()
        uiLoaded = false
        var actions = setState(inBackground ? .background : .foreground, reason: reason, now: now)
        // didFinishLaunching: the coordinator starts its throttle window, background delivery is
        // (re-)enabled for every observed type, observers are registered (when done at launch).
        // Whether reading a type is allowed plays no part: the app cannot know (R: H3).
        coordinator.launched(at: now)
        for (type, asked, applied) in delivery.enable() {
            var fields: JSONObject = ["type": .string(type.name), "frequency": .string(applied.rawValue)]
            if asked != applied { fields.append("capped", .string("\(asked.rawValue) → \(applied.rawValue): iOS caps \(type.name)")) }
            actions.append(event(.bgdeliveryEnabled, now, fields))
        }
        if config.app.registerObserversAtLaunch { actions += registerObservers(now: now, wokenFor: wokenFor) }
        if inBackground {
            actions += startBudget(config.app.wakeBudget, now: now)
        } else {
            actions += uiAppears(now: now)
        }
        actions += importFromContainer(now: now)
        return actions
    }

    /// The UI appears for the first time since launch: tabs load (`.task`), and observers are
    /// registered here when the app (wrongly) does it from the UI.
    mutating func uiAppears(now: EmulatedInstant) -> [NodeAction] {
        uiLoaded = true
        var actions: [NodeAction] = []
        if !config.app.registerObserversAtLaunch, observers.isEmpty { actions += registerObservers(now: now, wokenFor: nil) }
        for tab in Tab.allCases { actions += reload(tab, source: "launch", now: now) }
        return actions
    }

    /// `HKObserverQuery` + `execute` for the observed types; each fires once at once (R: O1, O2).
    /// Every type is registered: HealthKit accepts a query for a type the app may not read (R: H3).
    mutating func registerObservers(now: EmulatedInstant, wokenFor: ObjectType?) -> [NodeAction] {
        observers = ObjectType.observed
        var actions = [event(.observerRegistered, now, [
            "types": .array(observers.map { .string($0.name) }),
            "when": .string(config.app.registerObserversAtLaunch ? "launch" : "first appearance"),
        ])]
        for type in observers {
            actions += observerFired(type, trigger: type == wokenFor ? .wake : .execute, now: now)
        }
        return actions
    }

    /// The app stops executing (suspended, ended, or a new process): work in progress — handlers
    /// not yet completed, a fetch in flight, tab loads — is gone; cached data stays (the memory of a
    /// suspended app is kept).
    mutating func stopExecuting() {
        execution += 1
        snapshots.cancelInFlight()
        tabs.reset()
    }

    mutating func startBudget(_ budget: EmulatedDuration, now: EmulatedInstant) -> [NodeAction] {
        let end = now + budget
        if let current = budgetEndsAt, current >= end, budgetToken != nil { return [] }
        if let token = budgetToken { timers.cancel(token) }
        budgetEndsAt = end
        budgetToken = timers.schedule(.budgetEnd, at: end)
        return []
    }

    mutating func cancelBudget() {
        if let token = budgetToken { timers.cancel(token) }
        budgetToken = nil
        budgetEndsAt = nil
    }

    /// The background budget ran out: the app is suspended, and wakes without a completion are missed.
    mutating func budgetExpired(now: EmulatedInstant) -> [NodeAction] {
        budgetEndsAt = nil
        guard app == .background else { return [] }
        stopExecuting()
        var actions = setState(.suspended, reason: "budget expired", now: now)
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
            return setState(.foreground, reason: reason, now: now)
        case .background, .suspended:
            cancelBudget()
            let away = backgroundSince.map { now - $0 } ?? .zero
            var actions = setState(.foreground, reason: reason, now: now, extra: ["away": .string(away.description)])
            backgroundSince = nil
            if !uiLoaded {
                actions += uiAppears(now: now)
            } else if config.refresh.foregroundRule == .lastRefresh || away >= config.refresh.foregroundAfter {
                // R: C6: the scene phase (watched in one place) asks the coordinator, whose
                // throttle on lastRefreshDate decides (seed 001); `timeAway` is the older reading.
                actions += requestRefresh(.foreground, now: now)
            }
            actions += importFromContainer(now: now)
            return actions
        }
    }

    /// `background`: the user leaves the app; it runs for its background budget, then is suspended.
    mutating func goToBackground(now: EmulatedInstant, reason: String) -> [NodeAction] {
        guard app.isOnScreen else { return [] }
        backgroundSince = now
        var actions = setState(.background, reason: reason, now: now)
        actions += startBudget(config.app.backgroundBudget, now: now)
        return actions
    }

    /// The process ends: by the user (force quit) or by the system (terminate).
    mutating func endProcess(forceQuit: Bool, now: EmulatedInstant) -> [NodeAction] {
        cancelBudget()
        stopExecuting()
        observers = []
        uiLoaded = false
        snapshots.reset()
        if backgroundSince == nil { backgroundSince = now }
        // A force quit ends delivery outright (no backoff to log); a terminated app's misses count.
        if forceQuit { delivery.disableAll() }
        var actions = resolveMissedWakes(now: now)
        actions += setState(forceQuit ? .forceQuit : .notRunning, reason: forceQuit ? "user force quit" : "system terminated", now: now)
        return actions
    }

    /// Every wake still awaiting its completion is a miss: backoff, or delivery stops (R: O5).
    mutating func resolveMissedWakes(now: EmulatedInstant) -> [NodeAction] {
        var actions: [NodeAction] = []
        for type in delivery.awaiting {
            guard let outcome = delivery.missed(type, now: now) else { continue }
            counters.missedCompletions += 1
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
        return actions
    }

    /// Unlock merges what arrived while locked into the store, brings the app that was frontmost
    /// back to the screen, then delivers the pending changes (R: H4, L1): an app that is running
    /// hears them from its observers at once, others get their (not yet used) wake.
    mutating func unlock(now: EmulatedInstant) -> [NodeAction] {
        guard locked else { return [] }
        locked = false
        notifier.unlocked()
        let buffered = lockBuffer
        lockBuffer = HealthObjectsBatch()
        var actions = [event(.deviceUnlocked, now, ["buffered": .int(Int64(buffered.itemCount))])]
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

    /// After a node restart: the app keeps its state, but work in progress is gone.
    mutating func resumeAfterRestart(now: EmulatedInstant) -> [NodeAction] {
        stopExecuting()
        if let at = exporter.nextExportAt { exportToken = timers.schedule(.export, at: max(at, now)) }
        for type in ObjectType.observed {
            if let at = delivery.state(type)?.wakeAt { timers.schedule(.wake(type), at: max(at, now)) }
        }
        if app == .background { return startBudget(config.app.wakeBudget, now: now) }
        if app.isOnScreen {
            uiLoaded = false
            return uiAppears(now: now)
        }
        return []
    }
}
