import Foundation
import PairSimKit

/// One row of the Train tab's workout list: a workout shown once, whichever way its parts arrived.
struct WorkoutListItem {
    /// How the HKWorkout and the app's records were joined (R: D1).
    enum Match: String {
        /// Records carry the workout's UUID.
        case uuid
        /// A record without a UUID overlaps the workout in time (fallback).
        case overlap
        /// Only the HKWorkout (no record yet).
        case workoutOnly
        /// Only records: the HKWorkout has not arrived, was deleted, or never existed.
        case recordsOnly
        /// A workout another app wrote.
        case external
    }

    var workout: HKWorkout?
    var records: [ExerciseRecordValue]
    var match: Match

    /// The workout's UUID if there is one, else the first record's id.
    var id: UUID { workout?.uuid ?? records[0].id }
    var start: Date { workout?.startDate ?? records.map(\.startDate).min()! }
    var end: Date { workout?.endDate ?? records.map(\.endDate).max()! }
    var title: String { records.first?.exercise ?? workout.map { WorkoutActivities.name(of: $0.workoutActivityType) } ?? "workout" }

    /// R: D4: HealthKit's active energy wins over the records' own estimate when present.
    var calories: (value: Double, source: String)? {
        if let energy = workout?.totalEnergyBurned { return (energy.doubleValue(for: .kilocalorie()), "healthkit") }
        let own = records.compactMap(\.calories)
        return own.isEmpty ? nil : (own.reduce(0, +), "record")
    }
}

/// Builds the Train tab's list from HealthKit workouts and the app's records (R: D1): match by
/// `healthKitWorkoutID`, fall back to time overlap for records without one, mark other apps'
/// workouts as external. Each workout appears once.
enum WorkoutList {
    /// Written by this app or its watch app: their bundle identifiers share this app's, as an
    /// app group's do (`com.pairsim.app`, `com.pairsim.app.watchkitapp`).
    static func isOurs(_ workout: HKWorkout) -> Bool {
        workout.sourceRevision.source.bundleIdentifier.hasPrefix(HKSource.default().bundleIdentifier)
    }

    static func build(workouts: [HKWorkout], records: [ExerciseRecordValue]) -> [WorkoutListItem] {
        var byWorkout: [UUID: [ExerciseRecordValue]] = [:]
        var matchKind: [UUID: WorkoutListItem.Match] = [:]
        var orphans: [UUID: [ExerciseRecordValue]] = [:] // records whose linked workout is not here, by that UUID
        var unlinked: [ExerciseRecordValue] = []
        let known = Set(workouts.map(\.uuid))
        for record in records.sorted(by: { ($0.startDate, $0.id.uuidString) < ($1.startDate, $1.id.uuidString) }) {
            if let id = record.healthKitWorkoutID {
                if known.contains(id) {
                    byWorkout[id, default: []].append(record)
                    matchKind[id] = .uuid
                } else {
                    orphans[id, default: []].append(record)
                }
            } else {
                unlinked.append(record)
            }
        }
        var standalone: [[ExerciseRecordValue]] = []
        for record in unlinked {
            let candidates = workouts.filter { WorkoutList.isOurs($0) && overlap($0, record) > 0 }
            if let best = candidates.max(by: { (overlap($0, record), $1.uuid.uuidString) < (overlap($1, record), $0.uuid.uuidString) }) {
                byWorkout[best.uuid, default: []].append(record)
                if matchKind[best.uuid] == nil { matchKind[best.uuid] = .overlap }
            } else {
                standalone.append([record])
            }
        }
        var items: [WorkoutListItem] = workouts.map { workout in
            let records = byWorkout[workout.uuid] ?? []
            let match: WorkoutListItem.Match = !WorkoutList.isOurs(workout) ? .external : (matchKind[workout.uuid] ?? .workoutOnly)
            return WorkoutListItem(workout: workout, records: records, match: match)
        }
        for id in orphans.keys.sorted(by: { $0.uuidString < $1.uuidString }) {
            items.append(WorkoutListItem(workout: nil, records: orphans[id]!, match: .recordsOnly))
        }
        items += standalone.map { WorkoutListItem(workout: nil, records: $0, match: .recordsOnly) }
        return items.sorted { ($0.start, $0.id.uuidString) > ($1.start, $1.id.uuidString) }
    }

    static func overlap(_ workout: HKWorkout, _ record: ExerciseRecordValue) -> TimeInterval {
        let start = max(workout.startDate, record.startDate)
        let end = min(workout.endDate, record.endDate)
        return end > start ? end.timeIntervalSince(start) : 0
    }

    /// Counts by match kind, for `tab.loaded`.
    static func summary(_ items: [WorkoutListItem]) -> [(String, AppLog.Value)] {
        var fields: [(String, AppLog.Value)] = [("workouts", .int(items.count))]
        for (kind, key) in [(WorkoutListItem.Match.uuid, "linked"), (.overlap, "linkedByTime"), (.workoutOnly, "workoutOnly"),
                            (.recordsOnly, "recordsOnly"), (.external, "external")] {
            let count = items.filter { $0.match == kind }.count
            if count > 0 { fields.append((key, .int(count))) }
        }
        return fields
    }
}
