import Foundation
package import PairSimCore

/// One exercise the app recorded (the seeds' SwiftData `ExerciseRecord`), synced between the
/// phone and the watch through CloudKit.
public struct ExerciseRecordValue: Hashable, Sendable {
    public let id: UUID
    public var exercise: String
    public var startDate: Date
    /// Seconds.
    public var duration: TimeInterval
    /// The record's own calorie estimate (kcal).
    public var calories: Double?
    /// The HKWorkout it belongs to; nil when there is none (a failed save, a recovered session).
    public var healthKitWorkoutID: UUID?
    /// True when the watch app wrote it.
    public let fromWatch: Bool

    /// A new record (the app gives its own id from `AppRuntime`'s seed when nil).
    public init(id: UUID? = nil, exercise: String, startDate: Date, duration: TimeInterval, calories: Double?, healthKitWorkoutID: UUID?) {
        self.id = id ?? AppRuntime.newUUID()
        self.exercise = exercise
        self.startDate = startDate
        self.duration = duration
        self.calories = calories
        self.healthKitWorkoutID = healthKitWorkoutID
        fromWatch = false
    }

    package init(_ record: ExerciseRecord) {
        id = record.id
        exercise = record.exercise
        startDate = Date(record.start)
        duration = TimeInterval(record.duration.milliseconds) / 1_000
        calories = record.calories
        healthKitWorkoutID = record.healthKitWorkoutID
        fromWatch = record.source == .watchApp
    }

    package var core: ExerciseRecord {
        ExerciseRecord(id: id, exercise: exercise, start: startDate.instant, duration: .milliseconds(Int64((duration * 1_000).rounded())),
                       calories: calories, healthKitWorkoutID: healthKitWorkoutID, source: fromWatch ? .watchApp : .phoneApp)
    }

    /// When it ended.
    public var endDate: Date { startDate.addingTimeInterval(duration) }
}

/// The app's records store (a SwiftData `ModelContext` with CloudKit sync): reads are immediate;
/// saves and deletes sync to the watch; `onChange` hears imports (SwiftData's live queries).
public struct ExerciseRecords: Sendable {
    public static let shared = ExerciseRecords()

    /// Every record, oldest start first.
    public func all() -> [ExerciseRecordValue] {
        AppRuntime.require("ExerciseRecords.all").records.values.map(ExerciseRecordValue.init)
            .sorted { $0.startDate != $1.startDate ? $0.startDate < $1.startDate : $0.id.uuidString < $1.id.uuidString }
    }

    public func record(id: UUID) -> ExerciseRecordValue? {
        AppRuntime.require("ExerciseRecords.record").records[id].map(ExerciseRecordValue.init)
    }

    public func save(_ records: [ExerciseRecordValue]) {
        let runtime = AppRuntime.require("ExerciseRecords.save")
        for record in records { runtime.records[record.id] = record.core }
        runtime.send(.saveRecords(records.map(\.core)))
    }

    public func delete(ids: [UUID]) {
        let runtime = AppRuntime.require("ExerciseRecords.delete")
        for id in ids { runtime.records[id] = nil }
        runtime.send(.deleteRecords(ids))
    }

    /// Calls `handler` with what an import saved and deleted, while this process lives.
    public func onChange(_ handler: @escaping (_ saved: [ExerciseRecordValue], _ deleted: [UUID]) -> Void) {
        let runtime = AppRuntime.require("ExerciseRecords.onChange")
        // Listening for synced changes is what subscribes the app to CloudKit's notifications.
        if runtime.recordObservers.isEmpty { runtime.send(.subscribeRecords) }
        runtime.recordObservers.append { saved, deleted in
            handler(saved.map(ExerciseRecordValue.init), deleted)
        }
    }
}
