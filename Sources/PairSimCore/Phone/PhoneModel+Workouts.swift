import Foundation

/// Workouts on the phone (seeds 002 and 004, R: D1–D6): notification, detail, deletion, writes.
extension PhoneModel {
    /// The latest workout by end date, or nil (inner) when none, or nil (outer) when the query failed.
    mutating func latestWorkoutQuery() -> Workout?? {
        counters.queries += 1
        if locked { return nil }
        return .some(reads.latestWorkout)
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
        let workouts = locked ? [] : reads.workouts
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
        counters.queries += 1 // heart-rate samples in the workout's range
        let samples = reads.samples(.heartRate, from: workout.start, to: workout.end)
        guard let summary = HeartRateDetail.summarize(samples, start: workout.start, end: workout.end) else {
            // The app cannot tell "denied" from "none" (R: H3), so it says both (seed 002's message, as an app can show it).
            return degraded("noSamples", "no heart-rate data for this workout — check Health permissions (Settings → Health → Data Access)")
        }
        lines.append("heart rate: average \(summary.average.roundedToTenth), max \(summary.maximum.roundedToTenth), min \(summary.minimum.roundedToTenth) bpm — \(summary.values.count) points from \(summary.sampleCount) samples")
        lines += HeartRateChart.render(summary, duration: workout.end - workout.start)
        fields.append("points", .int(Int64(summary.values.count)))
        fields.append("average", .double(summary.average.roundedToTenth))
        fields.append("max", .double(summary.maximum.roundedToTenth))
        fields.append("min", .double(summary.minimum.roundedToTenth))
        return CommandResult(ok: true, reply: lines.joined(separator: "\n"), actions: [event(.detailLoaded, now, fields)])
    }

    /// `delete-workout <uuid>` (seed 002 step 7): the app deletes *one* record — named by its id,
    /// or the workout's only record — and, if it is linked, the HKWorkout too, fire-and-forget: a
    /// failure is logged and never blocks the record's deletion (R: D5, H5). Other records of the
    /// same session stay, and lose their chart. A workout the app holds no record of: only the
    /// HealthKit delete is tried.
    mutating func deleteWorkout(_ target: String, now: EmulatedInstant) throws(CommandError) -> CommandResult {
        if target == "latest" {
            // The newest item of the Train list: its last record, or its workout when it has none.
            guard let item = workoutList().first else { throw CommandError("delete-workout: no workouts yet") }
            return try deleteWorkout((item.records.last?.id ?? item.id).text, now: now)
        }
        guard let id = UUID(text: target) else { throw CommandError("delete-workout: \"\(target)\" is not a UUID (or 'latest')") }
        var record = records.records.first { $0.id == id }
        if record == nil {
            let linked = records.records.filter { $0.healthKitWorkoutID == id }.sorted { ($0.start, $0.id.text) < ($1.start, $1.id.text) }
            if linked.count > 1 {
                let names = linked.prefix(5).map(\.id.text).joined(separator: ", ") + (linked.count > 5 ? ", …" : "")
                throw CommandError("delete-workout: \(linked.count) records share workout \(target); the app deletes one record at a time — name one: \(names)")
            }
            record = linked.first
        }
        let workoutID = record.map(\.healthKitWorkoutID) ?? (store.workout(id) != nil ? id : nil)
        guard record != nil || workoutID != nil else { throw CommandError("delete-workout: no workout or record \(target)") }
        var actions: [NodeAction] = []
        var reply: [String] = []
        if let record {
            let (removed, ops) = records.delete([record.id])
            actions += ops.map(NodeAction.persist)
            actions += StoreEvents.records(saved: [], deleted: removed, node: .phone, now: now)
            actions += exportLater(deleted: removed, now: now)
            reply.append("deleted record \(record.id.text)")
            let siblings = workoutID.map { linked in records.records.filter { $0.healthKitWorkoutID == linked }.count } ?? 0
            if siblings > 0 { reply.append("\(siblings) other record(s) of the session stay") }
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
                actions += deleteFromHealthKit(workoutID, now: now)
                reply.append("deleted HealthKit workout \(workoutID.text)")
            }
        }
        return CommandResult(ok: true, reply: reply.joined(separator: "; "), actions: actions)
    }

    /// `delete-in-health <uuid>`: the user deletes a workout in the Health app (as any other app
    /// could): the HKWorkout goes on both devices, the app's records stay and show no chart (seed 002).
    mutating func deleteInHealth(_ target: String, now: EmulatedInstant) throws(CommandError) -> CommandResult {
        guard !locked else { throw CommandError("delete-in-health: the device is locked; unlock first") }
        if target == "latest" {
            guard let latest = store.latestWorkout else { throw CommandError("delete-in-health: no HealthKit workout on the phone") }
            return try deleteInHealth(latest.uuid.text, now: now)
        }
        guard let id = UUID(text: target) else { throw CommandError("delete-in-health: \"\(target)\" is not a UUID (or 'latest')") }
        guard store.workout(id) != nil else { throw CommandError("delete-in-health: no HealthKit workout \(target) on the phone") }
        let kept = records.records.filter { $0.healthKitWorkoutID == id }.count
        return CommandResult(ok: true, reply: "deleted workout \(target) in Apple Health; \(kept) record(s) linked to it stay",
                             actions: deleteFromHealthKit(id, now: now))
    }

    /// Deletes a workout from the phone's HealthKit and syncs the deletion to the watch.
    mutating func deleteFromHealthKit(_ id: UUID, now: EmulatedInstant) -> [NodeAction] {
        let deletion = HealthObjectsBatch(deleted: [DeletedObject(uuid: id, type: .workout)])
        let (changed, stored) = saveNoticing(deletion, now: now)
        return stored + healthDataChanged(changed, now: now)
            + sync.sendIfRoom(.healthkit, kind: .objects, body: deletion.body, summary: deletion.summary, now: now)
    }

    /// `fail-next-save`: HealthKit refuses this app's next save; true (and one failure used) if so.
    mutating func takeSaveFailure(_ source: ObjectSource, now: EmulatedInstant) -> [NodeAction]? {
        guard source == .phoneApp, saveFailures > 0 else { return nil }
        saveFailures -= 1
        return [event(.hkSaveFailed, now, level: .warning, ["reason": "injected failure (fail-next-save)",
                                                           "remaining": .int(Int64(saveFailures))])]
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
        var actions: [NodeAction] = []
        if !batch.isEmpty {
            actions += ingest(batch, now: now)
            actions += sync.sendIfRoom(.healthkit, kind: .objects, body: batch.body, summary: batch.summary, now: now)
        }
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
