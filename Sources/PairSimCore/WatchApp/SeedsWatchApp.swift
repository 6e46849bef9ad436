import Foundation

/// The seeds' watch app (seed 002 steps 1–2, R: W3, W4): what it decides about a session — which
/// exercises a session of an activity records when the user names none, and, at the end, one
/// `ExerciseRecord` per exercise with the app's own rough calorie estimate, every one linked to
/// the HKWorkout's UUID (nil when there is none). The watch's platform — the workout session and
/// builder, the HealthKit store, the heart-rate sensor — lives in `Platform/Watch` and asks it.
///
/// The watch app is not pluggable yet: the phone's is (PairSimKit); the watch's will be when
/// WatchConnectivity gives it an API of its own.
public enum SeedsWatchApp {
    /// The exercises a session of `activity` records by default.
    public static func defaultExercises(_ activity: String) -> [String] {
        switch activity {
        case "strength": ["Squat", "Bench Press", "Deadlift"]
        case "hiit": ["HIIT"]
        default: [activity.capitalized]
        }
    }

    /// The records the app saves when a session finishes: its active time split evenly between
    /// the exercises, each with a share of the energy less 10 % (deliberately rougher than
    /// HealthKit's, R: D4).
    public static func records(exercises: [String], start: EmulatedInstant, activeDuration: EmulatedDuration, energy: Double,
                               workoutID: UUID?, newID: () -> UUID) -> [ExerciseRecord] {
        let parts = Int64(max(exercises.count, 1))
        let share = EmulatedDuration.milliseconds(activeDuration.milliseconds / parts)
        return exercises.enumerated().map { index, name in
            ExerciseRecord(id: newID(), exercise: name, start: start + share * Int64(index), duration: share,
                           calories: (energy / Double(parts) * 0.9).roundedToTenth, healthKitWorkoutID: workoutID, source: .watchApp)
        }
    }
}
