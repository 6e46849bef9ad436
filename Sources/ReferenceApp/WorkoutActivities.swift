import PairSimKit

/// The activities the app shows and logs, by the names its UI uses (and the watch app's logs).
enum WorkoutActivities {
    static let names: [(name: String, type: HKWorkoutActivityType)] = [
        ("running", .running), ("walking", .walking), ("cycling", .cycling), ("swimming", .swimming), ("rowing", .rowing),
        ("hiit", .highIntensityIntervalTraining), ("strength", .traditionalStrengthTraining), ("yoga", .yoga),
    ]

    static func type(named name: String) -> HKWorkoutActivityType? { names.first { $0.name == name }?.type }

    /// The UI's name for `type` ("workout" for one it does not list).
    static func name(of type: HKWorkoutActivityType) -> String { names.first { $0.type == type }?.name ?? "workout" }
}
