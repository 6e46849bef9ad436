import Foundation
import PairSimKit

/// Seed 002's workout features: the lazily loaded detail (R: D2–D4), deleting one record and its
/// workout (R: D5), and a workout logged by hand (its record links to the HKWorkout, or not when
/// HealthKit refused the save).
struct WorkoutDetail {
    let store: HKHealthStore

    /// The Train list as the app builds it now; `failed` when HealthKit could not be read.
    func list() async -> (items: [WorkoutListItem], failed: Bool) {
        let records = ExerciseRecords.shared.all()
        do {
            let workouts = try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: [SortDescriptor(\.endDate, order: .reverse)])
                .result(for: store)
            return (WorkoutList.build(workouts: workouts, records: records), false)
        } catch {
            return (WorkoutList.build(workouts: [], records: records), true)
        }
    }

    /// `open-workout <uuid>|latest`.
    func open(_ action: UserAction) async throws -> String {
        guard action.arguments.count == 1, let target = action.argument(0) else { throw AppError("open-workout: expected a UUID or 'latest'") }
        let (items, failed) = await list()
        let item: WorkoutListItem
        if target == "latest" {
            guard let first = items.first else { throw AppError("open-workout: no workouts yet") }
            item = first
        } else {
            guard let id = UUID(uuidString: target) else { throw AppError("open-workout: \"\(target)\" is not a UUID (or 'latest')") }
            guard let found = items.first(where: { $0.workout?.uuid == id || $0.records.contains { $0.id == id || $0.healthKitWorkoutID == id } }) else {
                throw AppError("open-workout: no workout or record \(target)")
            }
            item = found
        }
        var lines = ["\(item.title) — \(AppTime.text(item.start)) to \(AppTime.text(item.end)) (\(AppTime.text(.seconds(item.end.timeIntervalSince(item.start)))))"]
        if let calories = item.calories { lines.append("calories: \(calories.value) kcal (from \(calories.source))") }
        if item.match == .external { lines.append("written by \(item.workout!.sourceRevision.source.name) (external)") }
        var fields: [(String, AppLog.Value)] = [("uuid", .string(item.id.uuidString)), ("match", .string(item.match.rawValue))]
        if let calories = item.calories {
            fields.append(("calories", .double(calories.value)))
            fields.append(("caloriesFrom", .string(calories.source)))
        }
        func degraded(_ reason: String, _ text: String) -> String {
            AppLog.event("detail.degraded", fields + [("reason", .string(reason))])
            return (lines + [text]).joined(separator: "\n")
        }
        if failed { return degraded("queryFailed", "no chart: HealthKit query failed (databaseInaccessible: device locked)") }
        guard let workout = item.workout else {
            let linked = item.records.contains { $0.healthKitWorkoutID != nil }
            return linked
                ? degraded("workoutMissing", "no chart: the HealthKit workout is not there (deleted in Health, or not synced yet)")
                : degraded("notLinked", "no chart: this record has no HealthKit workout (healthKitWorkoutID is nil)")
        }
        let samples: [HKSample]
        do {
            let during = HKQuery.predicateForSamples(withStart: workout.startDate, end: workout.endDate)
            samples = try await HKSampleQueryDescriptor(predicates: [.quantitySample(type: ObservedTypes.heartRate, predicate: during)], sortDescriptors: [])
                .result(for: store)
        } catch {
            return degraded("queryFailed", "no chart: HealthKit query failed (\(error))")
        }
        let bpm = HKUnit.count().unitDivided(by: .minute())
        let quantities = samples.compactMap { $0 as? HKQuantitySample }
        let start = Int64((workout.startDate.timeIntervalSince1970 * 1_000).rounded()), end = Int64((workout.endDate.timeIntervalSince1970 * 1_000).rounded())
        guard let summary = HeartRateDetail.summarize(times: quantities.map { Int64(($0.startDate.timeIntervalSince1970 * 1_000).rounded()) },
                                                      values: quantities.map { $0.quantity.doubleValue(for: bpm) }, start: start, end: end) else {
            // The app cannot tell "denied" from "none" (R: H3), so it says both (seed 002's message, as an app can show it).
            return degraded("noSamples", "no heart-rate data for this workout — check Health permissions (Settings → Health → Data Access)")
        }
        func tenth(_ value: Double) -> Double { (value * 10).rounded() / 10 }
        lines.append("heart rate: average \(tenth(summary.average)), max \(tenth(summary.maximum)), min \(tenth(summary.minimum)) bpm — \(summary.values.count) points from \(summary.sampleCount) samples")
        lines += HeartRateChart.render(summary, durationMilliseconds: end - start)
        fields += [("points", .int(summary.values.count)), ("average", .double(tenth(summary.average))),
                   ("max", .double(tenth(summary.maximum))), ("min", .double(tenth(summary.minimum)))]
        AppLog.event("detail.loaded", fields)
        return lines.joined(separator: "\n")
    }

    /// `delete-workout <uuid>|latest` (seed 002 step 7): one record — named by its id, or a
    /// workout's only record — and, if it is linked, the HKWorkout too, fire-and-forget: a failure
    /// is logged and never blocks the record's deletion (R: D5, H5). A workout already gone from
    /// HealthKit is skipped (the UUID query finds nothing).
    func delete(_ action: UserAction) async throws -> String {
        guard action.arguments.count == 1, var target = action.argument(0) else { throw AppError("delete-workout: expected a UUID or 'latest'") }
        let (items, _) = await list()
        if target == "latest" {
            guard let item = items.first else { throw AppError("delete-workout: no workouts yet") }
            target = (item.records.last?.id ?? item.id).uuidString
        }
        guard let id = UUID(uuidString: target) else { throw AppError("delete-workout: \"\(target)\" is not a UUID (or 'latest')") }
        let records = ExerciseRecords.shared.all()
        var record = records.first { $0.id == id }
        if record == nil {
            let linked = records.filter { $0.healthKitWorkoutID == id }
            if linked.count > 1 {
                let names = linked.prefix(5).map(\.id.uuidString).joined(separator: ", ") + (linked.count > 5 ? ", …" : "")
                throw AppError("delete-workout: \(linked.count) records share workout \(target); the app deletes one record at a time — name one: \(names)")
            }
            record = linked.first
        }
        let workouts = items.compactMap(\.workout)
        let workoutID = record.map(\.healthKitWorkoutID) ?? (workouts.contains { $0.uuid == id } ? id : nil)
        guard record != nil || workoutID != nil else { throw AppError("delete-workout: no workout or record \(target)") }
        var reply: [String] = []
        if let record {
            ExerciseRecords.shared.delete(ids: [record.id])
            reply.append("deleted record \(record.id.uuidString)")
            let siblings = workoutID.map { linked in ExerciseRecords.shared.all().filter { $0.healthKitWorkoutID == linked }.count } ?? 0
            if siblings > 0 { reply.append("\(siblings) other record(s) of the session stay") }
        }
        if let workoutID {
            if let workout = workouts.first(where: { $0.uuid == workoutID }) {
                do {
                    try await store.delete(workout)
                    reply.append("deleted HealthKit workout \(workoutID.uuidString)")
                } catch {
                    reply.append("HealthKit workout not deleted: \(error)")
                }
            } else {
                reply.append("HealthKit workout not deleted: not found in HealthKit (already deleted?)")
            }
        }
        return reply.joined(separator: "; ")
    }

    /// `log-workout <activity> [--duration D] [--energy kcal]`: saved to HealthKit, then a record
    /// linked to it — or with `healthKitWorkoutID = nil` when the save failed (seed 002).
    func log(_ action: UserAction, now: Date) async throws -> String {
        guard action.arguments.count == 1, let name = action.argument(0), let activity = WorkoutActivities.type(named: name) else {
            throw AppError("log-workout: expected an activity (\(WorkoutActivities.names.map(\.name).joined(separator: ", ")))")
        }
        var seconds: TimeInterval = 1_800
        if let text = action.options["duration"] {
            guard let parsed = AppTime.duration(text), parsed > 0, parsed <= 86_400 else {
                throw AppError("log-workout: --duration must be above 0 and at most 24h, got \"\(text)\"")
            }
            seconds = parsed
        }
        var energy: HKQuantity?
        if let text = action.options["energy"] {
            guard let value = Double(text), (0...20_000).contains(value) else { throw AppError("log-workout: --energy must be 0…20000 kcal, got \"\(text)\"") }
            energy = HKQuantity(unit: .kilocalorie(), doubleValue: value)
        }
        // Not before the run began (emulated time starts at the topology's epoch).
        let start = max(now.addingTimeInterval(-seconds), Date(timeIntervalSince1970: 0))
        seconds = now.timeIntervalSince(start)
        let workout = HKWorkout(activityType: activity, start: start, end: now, totalEnergyBurned: energy)
        var linked: UUID? = workout.uuid
        do { try await store.save(workout) } catch { linked = nil }
        let record = ExerciseRecordValue(exercise: name.capitalized, startDate: start, duration: seconds,
                                         calories: energy?.doubleValue(for: .kilocalorie()), healthKitWorkoutID: linked)
        ExerciseRecords.shared.save([record])
        return linked == nil
            ? "HealthKit refused the \(name) workout; record=\(record.id.uuidString) saved with healthKitWorkoutID=nil"
            : "logged \(name) workout=\(workout.uuid.uuidString) record=\(record.id.uuidString)"
    }
}
