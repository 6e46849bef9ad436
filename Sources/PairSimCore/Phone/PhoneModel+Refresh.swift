/// Refresh coordination, the snapshot cache and the tabs (R: C1–C12).
extension PhoneModel {
    /// `AppRefreshCoordinator.requestRefresh(source:)`.
    mutating func requestRefresh(_ source: RefreshSource, now: EmulatedInstant) -> [NodeAction] {
        var fields: JSONObject = ["source": .string(source.name)]
        if case .observer(let type) = source { fields.append("type", .string(type.name)) }
        switch coordinator.requestRefresh(source, now: now) {
        case .throttled(let reason, let remaining):
            counters.throttled += 1
            fields.append("reason", .string(reason))
            fields.append("remaining", .string(remaining.description))
            return [event(.coordinatorThrottled, now, fields)]
        case .accepted:
            counters.refreshes[source.name, default: 0] += 1
            var actions = [event(.coordinatorRefresh, now, fields)]
            actions += invalidate(reason: source.name, now: now)
            // The refresh signal: every tab reloads, or only those showing the type (R: C3, C11).
            var targets = Tab.allCases
            if config.refresh.tabMapping, case .observer(let type) = source { targets = Tab.showing(type) }
            if uiLoaded {
                for tab in targets { actions += reload(tab, source: source.name, now: now) }
            }
            return actions
        }
    }

    /// `invalidateCache()`: also seed 001's `invalidateCacheOnly()` when nothing reloads (R: C5, O7).
    mutating func invalidate(reason: String, now: EmulatedInstant) -> [NodeAction] {
        counters.invalidations += 1
        let inFlight = snapshots.invalidate()
        var fields: JSONObject = ["reason": .string(reason)]
        if inFlight { fields.append("inFlight", .string("fetch #\(snapshots.inFlightID!) finishes, its result marked expired")) }
        return [event(.cacheInvalidated, now, fields)]
    }

    /// Pull-to-refresh bypasses the coordinator: invalidate and reload the pulled tab (R: C4).
    mutating func pullToRefresh(_ tab: Tab, now: EmulatedInstant) -> [NodeAction] {
        counters.refreshes[RefreshSource.pullToRefresh(tab).name, default: 0] += 1
        return invalidate(reason: "pullToRefresh", now: now) + reload(tab, source: "pullToRefresh", now: now)
    }

    /// Reloads a tab: cancel its previous load, start a new one on the snapshot service (R: C10).
    mutating func reload(_ tab: Tab, source: String, now: EmulatedInstant) -> [NodeAction] {
        counters.tabReloads += 1
        let (load, cancelled) = tabs.reload(tab)
        var actions: [NodeAction] = []
        if let cancelled {
            counters.cancelledLoads += 1
            actions.append(event(.tabLoadCancelled, now, ["tab": .string(tab.rawValue), "load": .int(Int64(cancelled)),
                                                          "by": .int(Int64(load))]))
        }
        actions.append(event(.tabReload, now, ["tab": .string(tab.rawValue), "load": .int(Int64(load)), "source": .string(source)]))
        switch snapshots.fetch(for: SnapshotService.Waiter(tab: tab, load: load), now: now) {
        case .hit(let snapshot):
            counters.cacheHits += 1
            actions += tabLoaded(tab, load: load, snapshot: snapshot, cache: "hit", now: now)
        case .joined(let id):
            counters.cacheJoins += 1
            actions.append(event(.snapshotFetch, now, ["id": .int(Int64(id)), "for": .string(tab.rawValue), "joined": true]))
        case .started(let id, let completesAt):
            counters.cacheMisses += 1
            timers.schedule(.snapshot(id: id, execution: execution), at: completesAt)
            actions.append(event(.snapshotFetch, now, ["id": .int(Int64(id)), "for": .string(tab.rawValue), "joined": false,
                                                       "queries": .int(Int64(HealthSnapshot.queryCount)),
                                                       "completesAt": .string(completesAt.description)]))
        }
        return actions
    }

    /// A fetch's queries finished: waiting tab loads complete (unless cancelled meanwhile).
    mutating func snapshotCompleted(id: Int, now: EmulatedInstant) -> [NodeAction] {
        counters.queries += HealthSnapshot.queryCount
        let snapshot: HealthSnapshot? = locked ? nil : HealthSnapshot(reads: reads, now: now)
        let (waiters, expired) = snapshots.complete(id: id, snapshot: snapshot)
        var actions: [NodeAction] = []
        if snapshot == nil {
            actions.append(queryFailed("snapshot", type: nil, now: now))
        } else {
            actions.append(event(.snapshotFetched, now, ["id": .int(Int64(id)), "waiters": .int(Int64(waiters.count)),
                                                         "expired": .bool(expired)]))
        }
        for waiter in waiters {
            if let snapshot {
                actions += tabLoaded(waiter.tab, load: waiter.load, snapshot: snapshot, cache: "fetched", now: now)
            } else if tabs.finish(waiter.tab, load: waiter.load, content: nil) {
                actions.append(event(.tabLoadFailed, now, level: .warning, ["tab": .string(waiter.tab.rawValue),
                                                                           "load": .int(Int64(waiter.load)),
                                                                           "reason": "databaseInaccessible"]))
            }
        }
        return actions
    }

    /// Shows `snapshot` on `tab` if `load` is still the tab's current load.
    mutating func tabLoaded(_ tab: Tab, load: Int, snapshot: HealthSnapshot, cache: String, now: EmulatedInstant) -> [NodeAction] {
        var content = snapshot.fields(for: tab)
        if tab == .train {
            let items = WorkoutList.build(workouts: snapshot.workouts, records: records.records)
            for member in WorkoutList.summary(items).members { content.append(member.key, member.value) }
        }
        // A cancelled load never updates the tab (checked after the await in the seed's code).
        guard tabs.finish(tab, load: load, content: content) else { return [] }
        var fields: JSONObject = ["tab": .string(tab.rawValue), "load": .int(Int64(load)), "cache": .string(cache)]
        for member in content.members { fields.append(member.key, member.value) }
        return [event(.tabLoaded, now, fields)]
    }
}
