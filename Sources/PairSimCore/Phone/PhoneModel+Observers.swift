/// Observer queries and background delivery on the phone (R: O1–O7).
extension PhoneModel {
    /// Data of `types` changed in the store (or arrived while locked): running apps hear it from
    /// their observers at once; others get a background-delivery wake within the type's frequency.
    mutating func healthDataChanged(_ types: [ObjectType], now: EmulatedInstant) -> [NodeAction] {
        var actions: [NodeAction] = []
        for type in types where ObjectType.observed.contains(type) {
            if app.isRunning {
                if observers.contains(type) { actions += observerFired(type, trigger: .change, now: now) }
                continue
            }
            if app == .forceQuit {
                actions.append(event(.bgdeliverySkipped, now, ["type": .string(type.name), "reason": "app was force-quit"]))
                continue
            }
            if locked, !config.healthKit.wakeWhileLocked {
                if !deferredUntilUnlock.contains(type) { deferredUntilUnlock.append(type) }
                continue
            }
            if let wakeAt = delivery.dataChanged(type, now: now) {
                timers.schedule(.wake(type), at: wakeAt)
                actions.append(event(.bgdeliveryPending, now, [
                    "type": .string(type.name), "frequency": .string(delivery.state(type)!.frequency.rawValue),
                    "wakeAt": .string(wakeAt.description),
                ]))
            }
        }
        return actions
    }

    /// A wake timer for `type` fired: launch or resume the app in the background and call its observer.
    mutating func wake(_ type: ObjectType, now: EmulatedInstant) -> [NodeAction] {
        if locked, !config.healthKit.wakeWhileLocked {
            delivery.deferWake(type)
            if !deferredUntilUnlock.contains(type) { deferredUntilUnlock.append(type) }
            return []
        }
        guard delivery.takeWake(type, now: now) else { return [] }
        counters.wakes += 1
        var actions: [NodeAction] = []
        let before = app
        let strike = delivery.state(type)!.consecutiveMisses
        switch app {
        case .notRunning:
            actions.append(event(.bgdeliveryWake, now, ["type": .string(type.name), "app": .string(before.rawValue),
                                                        "launched": true, "retry": .int(Int64(strike))]))
            return actions + launch(now: now, reason: "background delivery", wokenFor: type)
                + (observers.contains(type) ? [] : missingObserver(type, now: now))
        case .suspended:
            actions += setState(.background, reason: "background delivery", now: now)
            actions += startBudget(config.app.wakeBudget, now: now)
            actions += importFromContainer(now: now)
        case .background:
            actions += startBudget(config.app.wakeBudget, now: now)
        case .foreground, .inactive:
            break
        case .forceQuit:
            preconditionFailure("Invalid state: wake for \(type) while force-quit (delivery is disabled)")
        }
        actions.insert(event(.bgdeliveryWake, now, ["type": .string(type.name), "app": .string(before.rawValue),
                                                    "launched": false, "retry": .int(Int64(strike))]), at: 0)
        if observers.contains(type) {
            actions += observerFired(type, trigger: .wake, now: now)
        } else {
            actions += missingObserver(type, now: now)
        }
        return actions
    }

    func missingObserver(_ type: ObjectType, now: EmulatedInstant) -> [NodeAction] {
        [event(.observerMissing, now, level: .warning, [
            "type": .string(type.name),
            "reason": .string(config.app.registerObserversAtLaunch
                ? "no observer query for this type is registered"
                : "the app registers observer queries only when its UI appears (registerObserversAtLaunch: false); this background launch has none, so the wake is ignored and its completion never called"),
        ])]
    }

    /// The app's `HKObserverQuery` update handler for `type` (seeds 000, 001, 004): refresh or cache
    /// invalidation, the workout notification, then the completion handler. Like the seeds, it runs
    /// no anchored query of its own: the snapshot service reads what changed.
    mutating func observerFired(_ type: ObjectType, trigger: ObserverTrigger, now: EmulatedInstant) -> [NodeAction] {
        counters.observerCallbacks += 1
        var actions = [event(.observerFired, now, ["type": .string(type.name), "trigger": .string(trigger.rawValue),
                                                   "app": .string(app.rawValue)])]
        if app.isOnScreen {
            // Seed 001's handler asks the coordinator on every callback, the one at execute included
            // (so the first minute after launch shows as throttled, R: C2).
            actions += requestRefresh(.observer(type), now: now)
        } else {
            // R: O7, C5: in the background only the cache is invalidated; the fresh fetch waits for the foreground.
            if trigger == .wake { counters.refreshes[RefreshSource.backgroundDelivery.name, default: 0] += 1 }
            actions += invalidate(reason: trigger == .wake ? "backgroundDelivery" : "observer in background", now: now)
        }
        if type == .workout { actions += notifyIfNewWorkout(now: now) }
        if let skips = missCompletions[type], skips > 0 {
            missCompletions[type] = skips - 1 == 0 ? nil : skips - 1
            actions.append(event(.observerCompletionSkipped, now, level: .warning, [
                "type": .string(type.name), "trigger": .string(trigger.rawValue), "remaining": .int(Int64(skips - 1)),
            ]))
        } else {
            timers.schedule(.completion(type, trigger: trigger, execution: execution), at: now + config.app.handlerDuration)
        }
        return actions
    }

    /// The handler called `completionHandler()`.
    mutating func completion(_ type: ObjectType, trigger: ObserverTrigger, now: EmulatedInstant) -> [NodeAction] {
        counters.completions += 1
        guard trigger == .wake else { return [] }
        var actions = [event(.bgdeliveryCompletion, now, ["type": .string(type.name)])]
        if let next = delivery.completed(type, now: now) {
            timers.schedule(.wake(type), at: next)
            actions.append(event(.bgdeliveryPending, now, ["type": .string(type.name), "frequency": .string(delivery.state(type)!.frequency.rawValue),
                                                           "wakeAt": .string(next.description)]))
        }
        return actions
    }

    func queryFailed(_ kind: String, type: ObjectType?, now: EmulatedInstant) -> NodeAction {
        var fields: JSONObject = ["query": .string(kind)]
        if let type { fields.append("type", .string(type.name)) }
        fields.append("reason", "databaseInaccessible (device locked)")
        return event(.hkQueryFailed, now, level: .warning, fields)
    }

    /// Deleted-object tombstones older than the retention are purged (R: H2).
    mutating func purgeTombstones(now: EmulatedInstant) -> [NodeAction] {
        let before = store.tombstones.count
        let ops = store.purgeTombstones(olderThan: config.healthKit.tombstoneRetention, now: now)
        guard !ops.isEmpty else { return [] }
        return ops.map(NodeAction.persist) + [event(.hkTombstonesPurged, now, [
            "count": .int(Int64(before - store.tombstones.count)), "retention": .string(config.healthKit.tombstoneRetention.description),
        ])]
    }
}
