import Foundation

/// One row of the Train tab's workout list: a workout shown once, whichever way its parts arrived.
public struct WorkoutListItem: Hashable, Sendable {
    /// How the HKWorkout and the app's records were joined (R: D1).
    public enum Match: String, Hashable, Sendable {
        /// Records carry the workout's UUID.
        case uuid
        /// A record without a UUID overlaps the workout in time (fallback).
        case overlap
        /// Only the HKWorkout (no record yet, or written by the phone's HealthKit alone).
        case workoutOnly
        /// Only records: the HKWorkout has not arrived, was deleted, or never existed.
        case recordsOnly
        /// A workout another app wrote.
        case external
    }

    public var workout: Workout?
    public var records: [ExerciseRecord]
    public var match: Match

    /// The workout's UUID if linked, else the first record's id: what `open-workout` and
    /// `delete-workout` accept.
    public var id: UUID { workout?.uuid ?? records[0].id }
    public var start: EmulatedInstant { workout?.start ?? records.map(\.start).min()! }
    public var end: EmulatedInstant { workout?.end ?? records.map(\.end).max()! }
    public var title: String { records.first?.exercise ?? workout?.activity ?? "workout" }

    /// R: D4: HealthKit's active energy wins over the records' own estimate when present.
    public var calories: (value: Double, source: String)? {
        if let energy = workout?.activeEnergy { return (energy, "healthkit") }
        let own = records.compactMap(\.calories)
        return own.isEmpty ? nil : (own.reduce(0, +), "record")
    }
}

/// Builds the Train tab's list from HealthKit workouts and SwiftData records (R: D1): match by
/// `healthKitWorkoutID`, fall back to time overlap for records without one, mark other apps'
/// workouts as external. Each workout appears once.
public enum WorkoutList {
    public static func build(workouts: [Workout], records: [ExerciseRecord]) -> [WorkoutListItem] {
        var byWorkout: [UUID: [ExerciseRecord]] = [:]
        var matchKind: [UUID: WorkoutListItem.Match] = [:]
        var orphans: [UUID: [ExerciseRecord]] = [:] // records whose linked workout is not here, by that UUID
        var unlinked: [ExerciseRecord] = []
        let known = Dictionary(workouts.map { ($0.uuid, $0) }, uniquingKeysWith: { a, _ in a })
        for record in records.sorted(by: { ($0.start, $0.id.text) < ($1.start, $1.id.text) }) {
            if let id = record.healthKitWorkoutID {
                if known[id] != nil {
                    byWorkout[id, default: []].append(record)
                    matchKind[id] = .uuid
                } else {
                    orphans[id, default: []].append(record)
                }
            } else {
                unlinked.append(record)
            }
        }
        var standalone: [[ExerciseRecord]] = []
        for record in unlinked {
            let candidates = workouts.filter { $0.source.isOwnAppGroup && overlap($0, record) > .zero }
            if let best = candidates.max(by: { (overlap($0, record), $1.uuid.text) < (overlap($1, record), $0.uuid.text) }) {
                byWorkout[best.uuid, default: []].append(record)
                if matchKind[best.uuid] == nil { matchKind[best.uuid] = .overlap }
            } else {
                standalone.append([record])
            }
        }
        var items: [WorkoutListItem] = workouts.map { workout in
            let records = byWorkout[workout.uuid] ?? []
            let match: WorkoutListItem.Match = !workout.source.isOwnAppGroup ? .external : (matchKind[workout.uuid] ?? .workoutOnly)
            return WorkoutListItem(workout: workout, records: records, match: match)
        }
        for id in orphans.keys.sorted(by: { $0.text < $1.text }) {
            items.append(WorkoutListItem(workout: nil, records: orphans[id]!, match: .recordsOnly))
        }
        items += standalone.map { WorkoutListItem(workout: nil, records: $0, match: .recordsOnly) }
        return items.sorted { ($0.start, $0.id.text) > ($1.start, $1.id.text) }
    }

    static func overlap(_ workout: Workout, _ record: ExerciseRecord) -> EmulatedDuration {
        let start = max(workout.start, record.start)
        let end = min(workout.end, record.end)
        return end > start ? end - start : .zero
    }

    /// Counts by match kind, for `tab.loaded`.
    public static func summary(_ items: [WorkoutListItem]) -> JSONObject {
        var o: JSONObject = ["workouts": .int(Int64(items.count))]
        for (kind, key) in [(WorkoutListItem.Match.uuid, "linked"), (.overlap, "linkedByTime"), (.workoutOnly, "workoutOnly"),
                            (.recordsOnly, "recordsOnly"), (.external, "external")] {
            let count = items.filter { $0.match == kind }.count
            if count > 0 { o.append(key, .int(Int64(count))) }
        }
        return o
    }
}
