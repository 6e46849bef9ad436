import Foundation

/// Who wrote a HealthKit object. The app group (watch app + phone app) may delete its own objects only.
///
/// Stored inline as up to 24 bytes of UTF-8 (no heap string), so samples copy as plain memory:
/// the sync path moves millions of them.
public struct ObjectSource: Hashable, Sendable, CustomStringConvertible {
    /// Longest source name, in UTF-8 bytes.
    public static let maxNameBytes = 24
    let a: UInt64, b: UInt64, c: UInt64

    init(a: UInt64, b: UInt64, c: UInt64) {
        self.a = a
        self.b = b
        self.c = c
    }

    /// This app on the watch.
    public static var watchApp: ObjectSource { ObjectSource(a: 0x7061_2D68_6374_6177, b: 0x70, c: 0) }
    /// This app on the phone.
    public static var phoneApp: ObjectSource { ObjectSource(a: 0x7061_2D65_6E6F_6870, b: 0x70, c: 0) }
    /// Another app, e.g. `other("strava")`.
    public static func other(_ name: String) -> ObjectSource { ObjectSource(name: name) }

    /// `watch-app`, `phone-app` (also spelled `watch`, `phone`) or another app's name; names
    /// longer than 24 bytes are cut (use `parse` to refuse them instead).
    public init(name: String) {
        let spelled = name == "watch" ? "watch-app" : name == "phone" ? "phone-app" : name
        // Straight into the three words: a [UInt8] buffer here was ~1.5 µs of each decoded batch.
        var words: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &words) { raw in
            var index = 0
            for byte in spelled.utf8 {
                guard index < Self.maxNameBytes else { break }
                raw[index] = byte
                index += 1
            }
        }
        (a, b, c) = words
    }

    /// A source name cut to at most 24 bytes at a character boundary (an Apple Health export's
    /// `sourceName`, e.g. `Kim’s Apple Watch`, can be longer).
    /// Never one of the app group's own names: `watch`, `phone`, `watch-app` and `phone-app` get
    /// ` (export)` after them, so another source can never pass for the app.
    public init(truncating name: String) {
        var cut = ""
        for character in name {
            guard cut.utf8.count + character.utf8.count <= Self.maxNameBytes else { break }
            cut.append(character)
        }
        if ["watch", "phone", "watch-app", "phone-app"].contains(cut) { cut += " (export)" }
        self.init(name: cut.isEmpty ? "unknown" : cut)
    }

    /// A source name from the wire: nil when empty or longer than 24 bytes.
    public static func parse(_ name: String) -> ObjectSource? {
        guard !name.isEmpty, name.utf8.count <= maxNameBytes, !name.utf8.contains(0) else { return nil }
        return ObjectSource(name: name)
    }

    /// Wire and command spelling.
    public var name: String {
        var words = (a, b, c)
        return withUnsafeBytes(of: &words) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
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
