import Foundation

/// Who wrote a HealthKit object. The app group (watch app + phone app) may delete its own objects only.
public enum ObjectSource: Hashable, Sendable, CustomStringConvertible {
    case watchApp
    case phoneApp
    /// Another app on either device, e.g. `other-app` or `strava`.
    case other(String)

    /// Wire and command spelling: `watch-app`, `phone-app`, or the other app's name.
    public var name: String {
        switch self {
        case .watchApp: "watch-app"
        case .phoneApp: "phone-app"
        case .other(let name): name
        }
    }

    public init(name: String) {
        switch name {
        case "watch-app", "watch": self = .watchApp
        case "phone-app", "phone": self = .phoneApp
        default: self = .other(name)
        }
    }

    /// True for the app group's own writes (deletable by the app).
    public var isOwnAppGroup: Bool { self == .watchApp || self == .phoneApp }
    public var description: String { name }
}

/// A quantity or category sample (`HKQuantitySample` / `HKCategorySample`).
public struct HealthSample: Hashable, Sendable {
    public var uuid: UUID
    public var type: SampleType
    public var start: EmulatedInstant
    public var end: EmulatedInstant
    /// Value in `type.unit` (sleep: a `SleepStage` raw value).
    public var value: Double
    public var source: ObjectSource

    public init(uuid: UUID, type: SampleType, start: EmulatedInstant, end: EmulatedInstant, value: Double, source: ObjectSource) {
        self.uuid = uuid
        self.type = type
        self.start = start
        self.end = end
        self.value = value
        self.source = source
    }
}

/// A finished workout (`HKWorkout`).
public struct Workout: Hashable, Sendable {
    public var uuid: UUID
    /// Activity type, e.g. `running`.
    public var activity: String
    public var start: EmulatedInstant
    public var end: EmulatedInstant
    /// Time spent running (end − start minus pauses).
    public var activeDuration: EmulatedDuration
    /// Active energy in kcal, if measured.
    public var activeEnergy: Double?
    public var source: ObjectSource

    public init(uuid: UUID, activity: String, start: EmulatedInstant, end: EmulatedInstant,
                activeDuration: EmulatedDuration, activeEnergy: Double?, source: ObjectSource) {
        self.uuid = uuid
        self.activity = activity
        self.start = start
        self.end = end
        self.activeDuration = activeDuration
        self.activeEnergy = activeEnergy
        self.source = source
    }
}

/// The app's own SwiftData record of one exercise in a session, synced through CloudKit.
public struct ExerciseRecord: Hashable, Sendable {
    public var id: UUID
    /// Exercise name as the app shows it, e.g. `Running`, `Squat`.
    public var exercise: String
    public var start: EmulatedInstant
    public var duration: EmulatedDuration
    /// The record's own calorie estimate (kcal).
    public var calories: Double?
    /// The HKWorkout this record belongs to; nil after a failed finish or a recovered session.
    public var healthKitWorkoutID: UUID?
    public var source: ObjectSource

    public init(id: UUID, exercise: String, start: EmulatedInstant, duration: EmulatedDuration, calories: Double?,
                healthKitWorkoutID: UUID?, source: ObjectSource) {
        self.id = id
        self.exercise = exercise
        self.start = start
        self.duration = duration
        self.calories = calories
        self.healthKitWorkoutID = healthKitWorkoutID
        self.source = source
    }

    /// End of the exercise (start + duration).
    public var end: EmulatedInstant { start + duration }
}

/// A deleted HealthKit object (`HKDeletedObject`), kept as a tombstone for anchored queries.
public struct DeletedObject: Hashable, Sendable {
    public var uuid: UUID
    public var type: ObjectType
    public init(uuid: UUID, type: ObjectType) {
        self.uuid = uuid
        self.type = type
    }
}
