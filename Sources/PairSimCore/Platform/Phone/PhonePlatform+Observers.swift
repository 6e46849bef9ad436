/// HealthKit's observer dispatch and background delivery (R: O1–O6).
extension PhonePlatform {
    /// Data of `types` changed in the store (or arrived while locked): a running app hears it from
    /// its observer queries at once; otherwise a background-delivery wake is scheduled within the
    /// type's frequency.
    mutating func healthDataChanged(_ types: [ObjectType], now: EmulatedInstant) -> [NodeAction] {
        var actions: [NodeAction] = []
        for type in types {
            if app.isRunning {
                for query in observerQueries where query.type == type { actions += observerFired(query, trigger: .change, now: now) }
                continue
            }
            // A long-running observer query lives as long as the app's process: suspended with no
            // background delivery to wake it (never enabled, or stopped after three misses), the
            // app hears the change once it runs again (docs/FIDELITY.md).
            let delivering = delivery.state(type).map { $0.enabled && !$0.stopped } ?? false
            if app == .suspended, !delivering, observerQueries.contains(where: { $0.type == type }) {
                if !changedWhileSuspended.contains(type) { changedWhileSuspended.append(type) }
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

    /// A wake timer for `type` fired: launch or resume the app in the background and call its observers.
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
            // The launch's execute callback for `type` is the wake's delivery (see appSettled).
            actions.append(event(.bgdeliveryWake, now, ["type": .string(type.name), "app": .string(before.rawValue),
                                                        "launched": true, "retry": .int(Int64(strike))]))
            return actions + launch(now: now, reason: "background delivery", wokenFor: type)
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
        let queries = observerQueries.filter { $0.type == type }
        if queries.isEmpty { return actions + missingObserver(type, now: now) }
        for query in queries { actions += observerFired(query, trigger: .wake, now: now) }
        return actions
    }

    /// A wake with no observer query for its type: nobody hears it, its completion never comes.
    mutating func missingObserver(_ type: ObjectType, now: EmulatedInstant) -> [NodeAction] {
        counters.missingObservers += 1
        return [event(.observerMissing, now, level: .warning, [
            "type": .string(type.name),
            "reason": "the app has no observer query for this type in this process (registered too late, or not at all): the wake is ignored and its completion never called",
        ])]
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
