import Foundation
import PairSimCore

/// The models' small state — what `persistentValues()` returns, typed (`NodeValue`, R: K7) — in
/// typed tables, one set of tables per value. A changed value rewrites its own rows only; none of
/// them grows with the stores. Every case is written and read here by its fields: adding a case
/// to `NodeValue` does not compile until it has its tables.
enum StateTables {
    // MARK: Writing

    /// `previous`: the value this key last had in the database, when known — then only the rows
    /// that differ are written (R: K1, K7); unknown, the value's tables are written whole.
    /// `previousRows`: the rows this returned for `previous`, when kept (else made again from it).
    /// Returns the rows written for a value kept in tables of its own (nil: a column or `sync`).
    @discardableResult
    static func write(_ value: NodeValue, _ db: Database, previous: NodeValue? = nil, previousRows: [StateRows]? = nil) throws -> [StateRows]? {
        if let (column, stored) = scalar(value) {
            // Cached: written nearly every turn (store.anchor), so compiling it each time showed (~20 µs a turn).
            try db.cachedStatement(sql: "UPDATE node_state SET \(column) = ? WHERE id = 1").execute(arguments: [stored])
            return nil
        }
        switch value {
        case .sync(let snapshot):
            if case .sync(let before)? = previous { try writeSync(snapshot, previous: before, db) } else { try writeAllSync(snapshot, db) }
            return nil
        case .watchHostedSessions(let count):
            try db.execute(sql: "UPDATE watch_hosted SET sessions = ? WHERE id = 1", arguments: [count])
            return nil
        case .cloudKitExport(let export):
            var unchanged = false
            if case .cloudKitExport(let before)? = previous { unchanged = before.nextExportAt == export.nextExportAt }
            if !unchanged {
                try db.execute(sql: "UPDATE node_state SET next_export_at = ? WHERE id = 1", arguments: [export.nextExportAt?.milliseconds])
            }
        default: break
        }
        let tables = rows(value)
        let before = previousRows ?? previous.map(rows)
        for (index, table) in tables.enumerated() { try table.write(over: before?[index], db) }
        return tables
    }

    /// A value kept in one column of the `node_state` row: the column and what goes in it.
    static func scalar(_ value: NodeValue) -> (column: String, stored: DatabaseValueConvertible?)? {
        switch value {
        case .storeAnchor(let anchor): ("store_anchor", anchor)
        case .watchUUIDs(let state): ("watch_uuid_state", Int64(bitPattern: state))
        case .phoneUUIDs(let state): ("phone_uuid_state", Int64(bitPattern: state))
        case .watchRestingCount(let count): ("resting_count", count)
        case .watchNextRestingAt(let instant): ("next_resting_at", instant?.milliseconds)
        case .watchFailNextFinish(let flag): ("fail_next_finish", flag)
        case .phoneSaveFailures(let count): ("save_failures", count)
        default: nil
        }
    }

    /// The rows of each table that holds `value`, always the same tables in the same order (none
    /// for a value kept in columns).
    static func rows(_ value: NodeValue) -> [StateRows] {
        switch value {
        case .storeAnchor, .watchUUIDs, .phoneUUIDs, .watchRestingCount, .watchNextRestingAt, .watchFailNextFinish,
             .phoneSaveFailures, .sync, .watchHostedSessions:
            return []
        case .cloudKitExport(let export):
            let queue = QueuedRecordRow.Queue.export.rawValue
            return [.keyed("queued_records", key: ["id"], order: nil, ["id", "queue", "exercise", "start_ms", "duration_ms", "calories", "workout_id", "source"],
                           export.pending.saved.map { record -> [DatabaseValueConvertible?] in
                               [record.id.text, queue, record.exercise, record.start.milliseconds, record.duration.milliseconds, record.calories,
                                record.healthKitWorkoutID?.text, record.source.name]
                           }, scope: ("queue", queue)),
                    .keyed("export_deletions", key: ["id"], order: nil, ["id"], export.pending.deleted.map { [$0.text] })]
        case .watchPlan(let plan):
            return [.single("watch_plan", ["remaining", "every_ms", "duration_ms", "next_at", "generated", "started"], plan.map { plan in
                [Int64(plan.remaining), plan.every.milliseconds, plan.duration.milliseconds, plan.nextAt.milliseconds, Int64(plan.generated), plan.started]
            })]
        case .watchBulk(let bulk):
            return [.single("watch_bulk", ["type", "total", "done", "first_ms", "span_ms", "random_state"], bulk.map { bulk in
                [bulk.type.rawValue, Int64(bulk.total), Int64(bulk.done), bulk.first.milliseconds, bulk.span.milliseconds,
                 Int64(bitPattern: bulk.random.state)]
            })]
        case .watchImport(let job): return [importRow(job)]
        case .watchClock(let clock): return [clockRow("watch", clock)]
        case .phoneClock(let clock): return [clockRow("phone", clock)]
        case .watchPartitions(let reasons):
            return [.keyed("watch_partitions", key: ["reason"], order: nil, ["reason"], reasons.map { [$0.rawValue] }, ordered: false)]
        case .watchHostedWorkout(let workout): return [hostedWorkoutRow(workout)]
        case .watchConnectivity(let session): return watchConnectivityRows(session)
        case .phoneApp(let app):
            return [.single("phone_app", ["state", "locked", "frontmost_at_lock", "background_since"],
                            [app.state.rawValue, app.locked, app.frontmostAtLock, app.backgroundSince?.milliseconds]),
                    .keyed("phone_denied", key: ["type"], order: nil, ["type"], app.denied.map { [$0.name] })]
        case .phoneDelivery(let delivery):
            return [.keyed("background_delivery", key: ["type"], order: "position",
                           ["type", "frequency", "enabled", "stopped", "pending", "last_wake_at", "misses", "wake_at"],
                           delivery.entries.map { entry -> [DatabaseValueConvertible?] in
                               [entry.type.name, entry.frequency.rawValue, entry.enabled, entry.stopped, entry.pending, entry.lastWakeAt?.milliseconds,
                                Int64(entry.misses), entry.wakeAt?.milliseconds]
                           })]
        case .phoneDefaults(let defaults), .watchAppDefaults(let defaults):
            return [.keyed("user_defaults", key: ["key"], order: "position", ["key", "value"],
                           defaults.members.map { [$0.key, JSONWriter.string($0.value)] })]
        case .phoneMissCompletions(let misses):
            return [.keyed("phone_miss_completions", key: ["type"], order: "position", ["type", "count"],
                           ObjectType.all.compactMap { type in misses[type].map { [type.name, Int64($0)] } })]
        case .phoneDeferred(let types):
            return [.positional("phone_deferred", ["type"], types.map { [$0.name] })]
        }
    }

    static func clockRow(_ node: String, _ clock: DeviceClock) -> StateRows {
        .single("device_clock", ["node", "offset_ms", "drift_ppm", "since_ms", "time_zone"],
                [node, clock.offset.milliseconds, clock.driftPPM, clock.since.milliseconds, clock.timeZone])
    }

    /// The hosted watch app's workout, one row.
    static func hostedWorkoutRow(_ workout: HostedWorkout.Snapshot?) -> StateRows {
        .single("watch_hosted_workout", ["number", "activity", "state", "active_ms", "readings", "samples", "energy", "finished", "random_state",
                                         "steady", "noise", "collecting", "collection_start_ms", "collection_end_ms", "active_since_ms", "start_ms",
                                         "crashed", "builder_lost", "recovered"],
                workout.map { w in [
                    w.number, w.activity, Int64(w.state.rawValue), w.active.milliseconds, w.readings, Int64(w.samples), w.energy, w.finished,
                    Int64(bitPattern: w.random), w.steady, w.noise, w.collecting.map { $0.map(\.rawValue).joined(separator: ",") },
                    w.collectionStart?.milliseconds, w.collectionEnd?.milliseconds, w.activeSince?.milliseconds, w.startDate?.milliseconds,
                    w.crashed, w.builderLost, w.wasRecovered,
                ] })
    }

    // MARK: Reading

    /// Every value that was written, as the model gave it (a value left at its empty default may
    /// read back as nothing: `NodeValue.isEmpty`).
    static func read(_ db: Database) throws -> NodeValues {
        var values = NodeValues()
        let row = try Row.fetchOne(db, sql: "SELECT * FROM node_state WHERE id = 1")!
        func int(_ column: String) -> Int64? { row[column] }
        if let anchor = int("store_anchor") { values.insert(.storeAnchor(anchor)) }
        if let state = int("watch_uuid_state") { values.insert(.watchUUIDs(UInt64(bitPattern: state))) }
        if let state = int("phone_uuid_state") { values.insert(.phoneUUIDs(UInt64(bitPattern: state))) }
        if let count = int("resting_count") { values.insert(.watchRestingCount(count)) }
        if let instant = int("next_resting_at") { values.insert(.watchNextRestingAt(EmulatedInstant(milliseconds: instant))) }
        if let flag = row["fail_next_finish"] as Bool? { values.insert(.watchFailNextFinish(flag)) }
        if let count = int("save_failures") { values.insert(.phoneSaveFailures(count)) }
        if let sync = try readSync(db) { values.insert(.sync(sync)) }
        if let export = try readExport(db, nextExportAt: int("next_export_at")) { values.insert(.cloudKitExport(export)) }
        if let plan = try Row.fetchOne(db, sql: "SELECT * FROM watch_plan") {
            var kept = WorkoutPlan(remaining: Int(plan["remaining"] as Int64), every: .milliseconds(plan["every_ms"]),
                                   duration: .milliseconds(plan["duration_ms"]), nextAt: EmulatedInstant(milliseconds: plan["next_at"]))
            kept.generated = Int(plan["generated"] as Int64)
            kept.started = plan["started"]
            values.insert(.watchPlan(kept))
        }
        if let bulk = try Row.fetchOne(db, sql: "SELECT * FROM watch_bulk") {
            let name: String = bulk["type"]
            guard let type = SampleType(rawValue: name) else { throw RuntimeError("watch_bulk.type: unknown sample type \(name)") }
            var kept = BulkWrite(type: type, total: Int(bulk["total"] as Int64), first: EmulatedInstant(milliseconds: bulk["first_ms"]),
                                 span: .milliseconds(bulk["span_ms"]), seed: 0)
            kept.done = Int(bulk["done"] as Int64)
            kept.random.state = UInt64(bitPattern: bulk["random_state"])
            values.insert(.watchBulk(kept))
        }
        if let job = try readImport(db) { values.insert(.watchImport(job)) }
        if let sessions = try Int64.fetchOne(db, sql: "SELECT sessions FROM watch_hosted WHERE id = 1"), sessions > 0 {
            values.insert(.watchHostedSessions(sessions))
        }
        if let workout = try readHostedWorkout(db) { values.insert(.watchHostedWorkout(workout)) }
        let partitions = try String.fetchAll(db, sql: "SELECT reason FROM watch_partitions ORDER BY reason").map { reason in
            guard let partition = WatchPartition(rawValue: reason) else { throw RuntimeError("watch_partitions.reason: unknown partition \(reason)") }
            return partition
        }
        if !partitions.isEmpty { values.insert(.watchPartitions(partitions)) }
        if let clock = try Row.fetchOne(db, sql: "SELECT * FROM device_clock WHERE id = 1") {
            let kept = DeviceClock(offset: .milliseconds(clock["offset_ms"]), driftPPM: clock["drift_ppm"], timeZone: clock["time_zone"],
                                   since: EmulatedInstant(milliseconds: clock["since_ms"]))
            switch clock["node"] as String {
            case "watch": values.insert(.watchClock(kept))
            case "phone": values.insert(.phoneClock(kept))
            case let node: throw RuntimeError("device_clock.node: unknown node \(node)")
            }
        }
        if let wc = try readWatchConnectivity(db) { values.insert(.watchConnectivity(wc)) }
        guard let app = try Row.fetchOne(db, sql: "SELECT * FROM phone_app") else {
            // The watch keeps a developer's watch app's `AppDefaults` in the same table.
            let defaults = try readUserDefaults(db)
            if !defaults.members.isEmpty { values.insert(.watchAppDefaults(defaults)) }
            return values
        }
        let state: String = app["state"]
        guard let appState = AppState(rawValue: state) else { throw RuntimeError("phone_app.state: unknown app state \(state)") }
        values.insert(.phoneApp(PhoneAppSnapshot(state: appState, locked: app["locked"], frontmostAtLock: app["frontmost_at_lock"],
                                                 backgroundSince: (app["background_since"] as Int64?).map(EmulatedInstant.init(milliseconds:)),
                                                 denied: try types(db, sql: "SELECT type FROM phone_denied ORDER BY rowid"))))
        let delivery = try Row.fetchAll(db, sql: "SELECT * FROM background_delivery ORDER BY position").map { entry in
            let frequency: String = entry["frequency"]
            guard let applied = DeliveryFrequency(rawValue: frequency) else { throw RuntimeError("background_delivery.frequency: unknown \(frequency)") }
            return BackgroundDelivery.Snapshot.Entry(
                type: try type(entry["type"], "background_delivery"), frequency: applied, enabled: entry["enabled"], stopped: entry["stopped"],
                pending: entry["pending"], lastWakeAt: (entry["last_wake_at"] as Int64?).map(EmulatedInstant.init(milliseconds:)),
                misses: Int(entry["misses"] as Int64), wakeAt: (entry["wake_at"] as Int64?).map(EmulatedInstant.init(milliseconds:)))
        }
        values.insert(.phoneDelivery(BackgroundDelivery.Snapshot(entries: delivery)))
        values.insert(.phoneDefaults(try readUserDefaults(db)))
        var misses: [ObjectType: Int] = [:]
        for entry in try Row.fetchAll(db, sql: "SELECT type, count FROM phone_miss_completions ORDER BY position") {
            misses[try type(entry["type"], "phone_miss_completions")] = Int(entry["count"] as Int64)
        }
        values.insert(.phoneMissCompletions(misses))
        values.insert(.phoneDeferred(try types(db, sql: "SELECT type FROM phone_deferred ORDER BY position")))
        return values
    }

    static func type(_ name: String, _ table: String) throws -> ObjectType {
        guard let type = ObjectType(name: name) else { throw RuntimeError("\(table).type: unknown type \(name)") }
        return type
    }

    static func types(_ db: Database, sql: String) throws -> [ObjectType] {
        try String.fetchAll(db, sql: sql).map { try type($0, "types") }
    }

    /// The app's `AppDefaults` (the phone's app, or a developer's watch app), in order.
    static func readUserDefaults(_ db: Database) throws -> JSONObject {
        var defaults = JSONObject()
        for entry in try Row.fetchAll(db, sql: "SELECT key, value FROM user_defaults ORDER BY position") {
            defaults.append(entry["key"], try JSONParser().parse(entry["value"] as String))
        }
        return defaults
    }

    static func readHostedWorkout(_ db: Database) throws -> HostedWorkout.Snapshot? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM watch_hosted_workout") else { return nil }
        guard let state = WorkoutSessionState(rawValue: Int(row["state"] as Int64)) else {
            throw RuntimeError("watch_hosted_workout.state: not a session state")
        }
        let collecting = try (row["collecting"] as String?).map { list in
            try list.split(separator: ",").map { name in
                guard let type = SampleType(rawValue: String(name)) else { throw RuntimeError("watch_hosted_workout.collecting: unknown type \(name)") }
                return type
            }
        }
        func instant(_ column: String) -> EmulatedInstant? { (row[column] as Int64?).map(EmulatedInstant.init(milliseconds:)) }
        return HostedWorkout.Snapshot(
            number: row["number"], activity: row["activity"], state: state, collecting: collecting, collectionStart: instant("collection_start_ms"),
            collectionEnd: instant("collection_end_ms"), active: .milliseconds(row["active_ms"]), activeSince: instant("active_since_ms"),
            readings: row["readings"], samples: Int(row["samples"] as Int64), energy: row["energy"], finished: row["finished"],
            startDate: instant("start_ms"), random: UInt64(bitPattern: row["random_state"]), steady: row["steady"], noise: row["noise"],
            crashed: row["crashed"], builderLost: row["builder_lost"], wasRecovered: row["recovered"])
    }

    static func readExport(_ db: Database, nextExportAt: Int64?) throws -> CloudKitExporter.Snapshot? {
        let saved = try QueuedRecordRow.fetchAll(db, sql: "SELECT * FROM queued_records WHERE queue = ? ORDER BY seq",
                                                 arguments: [QueuedRecordRow.Queue.export.rawValue])
        let deleted = try String.fetchAll(db, sql: "SELECT id FROM export_deletions ORDER BY seq")
        guard !saved.isEmpty || !deleted.isEmpty || nextExportAt != nil else { return nil }
        return CloudKitExporter.Snapshot(
            pending: RecordsBatch(saved: try saved.map { try $0.record("queued_records") }, deleted: try deleted.map { text in
                guard let id = UUID(text: text) else { throw RuntimeError("export_deletions.id: not a UUID: \(text.prefix(40))") }
                return id
            }),
            nextExportAt: nextExportAt.map(EmulatedInstant.init(milliseconds:)))
    }
}
