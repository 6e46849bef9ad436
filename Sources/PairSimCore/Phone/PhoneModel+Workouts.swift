import Foundation

/// Workouts on the phone (seeds 002 and 004, R: D1–D6): notification, detail, deletion, writes.
extension PhoneModel {
    /// The latest workout by end date, or nil (inner) when none, or nil (outer) when the query failed.
    mutating func latestWorkoutQuery() -> Workout?? {
        counters.queries += 1
        if locked { return nil }
        return .some(readable(.workout) ? store.latestWorkout : nil)
    }

    /// Seed 004's notifier on a workout observer callback (R: D6).
    mutating func notifyIfNewWorkout(now: EmulatedInstant) -> [NodeAction] {
        let latest = latestWorkoutQuery()
        var actions: [NodeAction] = latest == nil ? [queryFailed("latest workout", type: .workout, now: now)] : []
        switch notifier.callback(latest: latest) {
        case .posted(let workout):
            counters.notifications += 1
            actions.append(event(.notificationPosted, now, [
                "title": "Workout completed", "body": .string("\(workout.activity.capitalized) saved — open the app to see it"),
                "uuid": .string(workout.uuid.text),
            ]))
        case .recordedFirstLaunch(let id):
            actions.append(event(.notificationSuppressed, now, ["reason": "first launch: latest workout recorded", "uuid": .optional(id?.text)]))
        case .lockedNotice:
            counters.notifications += 1
            actions.append(event(.notificationPosted, now, [
                "title": "Device locked", "body": "A workout synced while your iPhone was locked — open the app to update",
            ]))
        case .unchanged, .lockedAgain:
            break
        }
        return actions
    }

    /// The Train tab's list as the app would build it now (nil when HealthKit reads fail).
    func workoutList() -> [WorkoutListItem] {
        let workouts = locked || !readable(.workout) ? [] : store.workouts
        return WorkoutList.build(workouts: workouts, records: records.records)
    }

    /// `open-workout <uuid>|latest`: the lazily loaded detail with its heart-rate chart (R: D2, D3, D4).
    mutating func openWorkout(_ target: String, now: EmulatedInstant) throws(CommandError) -> CommandResult {
        let items = workoutList()
        let item: WorkoutListItem
        if target == "latest" {
            guard let first = items.first else { throw CommandError("open-workout: no workouts yet") }
            item = first
        } else {
            guard let id = UUID(text: target) else { throw CommandError("open-workout: \"\(target)\" is not a UUID (or 'latest')") }
            guard let found = items.first(where: { $0.workout?.uuid == id || $0.records.contains { $0.id == id || $0.healthKitWorkoutID == id } }) else {
                throw CommandError("open-workout: no workout or record \(target)")
            }
            item = found
        }
        var lines = ["\(item.title) — \(item.start) to \(item.end) (\(item.end - item.start))"]
        if let calories = item.calories { lines.append("calories: \(calories.value) kcal (from \(calories.source))") }
        if item.match == .external { lines.append("written by \(item.workout!.source.name) (external)") }
        var fields: JSONObject = ["uuid": .string(item.id.text), "match": .string(item.match.rawValue)]
        if let calories = item.calories {
            fields.append("calories", .double(calories.value))
            fields.append("caloriesFrom", .string(calories.source))
        }
        func degraded(_ reason: String, _ text: String) -> CommandResult {
            fields.append("reason", .string(reason))
            return CommandResult(ok: true, reply: (lines + [text]).joined(separator: "\n"),
                                 actions: [event(.detailDegraded, now, fields)])
        }
        counters.queries += 1 // the workout by UUID
        if locked {
            return CommandResult(ok: true, reply: (lines + ["no chart: HealthKit query failed (databaseInaccessible: device locked)"]).joined(separator: "\n"),
                                 actions: [queryFailed("workout detail", type: .workout, now: now),
                                           event(.detailDegraded, now, fields + ["reason": "queryFailed"])])
        }
        guard let workout = item.workout else {
            let linked = item.records.contains { $0.healthKitWorkoutID != nil }
            return linked
                ? degraded("workoutMissing", "no chart: the HealthKit workout is not there (deleted in Health, or not synced yet)")
                : degraded("notLinked", "no chart: this record has no HealthKit workout (healthKitWorkoutID is nil)")
        }
        guard readable(.sample(.heartRate)) else { return degraded("permission", "heart rate: permission needed (allow Heart Rate in Health settings)") }
        counters.queries += 1 // heart-rate samples in the workout's range
        let samples = store.samples(.heartRate, from: workout.start, to: workout.end)
        guard let summary = HeartRateDetail.summarize(samples, start: workout.start, end: workout.end) else {
            return degraded("noSamples", "no heart-rate samples for this workout")
        }
        lines.append("heart rate: average \(summary.average.roundedToTenth), max \(summary.maximum.roundedToTenth), min \(summary.minimum.roundedToTenth) bpm — \(summary.values.count) points from \(summary.sampleCount) samples")
        lines += HeartRateChart.render(summary, duration: workout.end - workout.start)
        fields.append("points", .int(Int64(summary.values.count)))
        fields.append("average", .double(summary.average.roundedToTenth))
        fields.append("max", .double(summary.maximum.roundedToTenth))
        fields.append("min", .double(summary.minimum.roundedToTenth))
        return CommandResult(ok: true, reply: lines.joined(separator: "\n"), actions: [event(.detailLoaded, now, fields)])
    }

    /// `delete-workout <uuid>`: the records always go (synced to the watch); the linked HKWorkout
    /// goes too if allowed, fire-and-forget — a failure is logged and never blocks (R: D5, H5).
    mutating func deleteWorkout(_ target: String, now: EmulatedInstant) throws(CommandError) -> CommandResult {
        guard let id = UUID(text: target) else { throw CommandError("delete-workout: \"\(target)\" is not a UUID") }
        let direct = records.records.filter { $0.id == id || $0.healthKitWorkoutID == id }
        let workoutID = store.workout(id) != nil ? id : direct.compactMap(\.healthKitWorkoutID).first
        // Deleting one record of a session deletes the session: every record linked to its workout.
        let matching = workoutID.map { linked in records.records.filter { $0.id == id || $0.healthKitWorkoutID == linked } } ?? direct
        guard !matching.isEmpty || workoutID != nil else { throw CommandError("delete-workout: no workout or record \(target)") }
        var actions: [NodeAction] = []
        var reply: [String] = []
        if !matching.isEmpty {
            let (removed, ops) = records.delete(matching.map(\.id))
            actions += ops.map(NodeAction.persist)
            actions += StoreEvents.records(saved: [], deleted: removed, node: .phone, now: now)
            actions += exportLater(deleted: removed, now: now)
            reply.append("deleted \(removed.count) record(s)")
        }
        if let workoutID {
            let failure: String?
            if locked { failure = "databaseInaccessible (device locked)" }
            else if let workout = store.workout(workoutID) {
                failure = workout.source.isOwnAppGroup ? nil : "not authorized: written by \(workout.source.name), not this app group"
            } else {
                failure = "not found in HealthKit (already deleted?)"
            }
            if let failure {
                actions.append(event(.hkDeleteFailed, now, level: .warning, ["uuid": .string(workoutID.text), "reason": .string(failure)]))
                reply.append("HealthKit workout not deleted: \(failure)")
            } else {
                let deletion = HealthObjectsBatch(deleted: [DeletedObject(uuid: workoutID, type: .workout)])
                let (changed, stored) = saveToStore(deletion, now: now)
                actions += stored + healthDataChanged(changed, now: now)
                actions += sync.sendIfRoom(.healthkit, kind: .objects, body: deletion.body, summary: deletion.summary, now: now)
                reply.append("deleted HealthKit workout \(workoutID.text)")
            }
        }
        return CommandResult(ok: true, reply: reply.joined(separator: "; "), actions: actions)
    }

    /// Queues record changes for the phone's CloudKit export to the watch.
    mutating func exportLater(saved: [ExerciseRecord] = [], deleted: [UUID] = [], now: EmulatedInstant) -> [NodeAction] {
        if exporter.add(saved: saved, deleted: deleted, now: now) { return exportRecords(now: now) }
        if exportToken == nil, let at = exporter.nextExportAt { exportToken = timers.schedule(.export, at: at) }
        return []
    }

    mutating func exportRecords(now: EmulatedInstant) -> [NodeAction] {
        guard !exporter.pending.isEmpty else { return [] }
        guard sync.hasRoom(.cloudkit) else {
            exportToken = timers.schedule(.export, at: now + .seconds(5))
            return [sync.outboxFullEvent(.cloudkit, now: now)]
        }
        let batch = exporter.take()
        return [event(.ckExport, now, batch.summary)] + sync.send(.cloudkit, kind: .records, body: batch.body, summary: batch.summary, now: now)
    }

    /// Another app (or this app, by hand) writes to the phone's HealthKit; it syncs to the watch too.
    mutating func writeOnPhone(_ batch: HealthObjectsBatch, records made: [ExerciseRecord], now: EmulatedInstant) -> [NodeAction] {
        var actions = ingest(batch, now: now)
        actions += sync.sendIfRoom(.healthkit, kind: .objects, body: batch.body, summary: batch.summary, now: now)
        if !made.isEmpty {
            let (saved, ops) = records.save(made)
            actions += ops.map(NodeAction.persist)
            actions += StoreEvents.records(saved: saved, deleted: [], node: .phone, now: now)
            actions += exportLater(saved: saved, now: now)
        }
        return actions
    }
}

extension JSONObject {
    static func + (lhs: JSONObject, rhs: JSONObject) -> JSONObject {
        var result = lhs
        for member in rhs.members { result[member.key] = member.value }
        return result
    }
}
