import Foundation

/// The store events both nodes log, built in one place so their fields match docs/EVENTS.md.
public enum StoreEvents {
    /// `hk.saved` for each new workout and one per sample type, `hk.deleted` per deletion.
    public static func health(saved: HealthStore.SaveResult, deleted: [DeletedObject], node: NodeName, now: EmulatedInstant) -> [NodeAction] {
        var actions: [NodeAction] = []
        func emit(_ name: EventName, _ fields: JSONObject) { actions.append(.emit(Event(at: now, node: node, name, fields: fields))) }
        for workout in saved.workouts {
            // `start`/`end` as the device that made it stamped them, on its own clock (R: F5).
            emit(.hkSaved, ["kind": "workout", "uuid": .string(workout.uuid.text), "activity": .string(workout.activity),
                            "start": .string(workout.start.description), "end": .string(workout.end.description),
                            "activeEnergy": workout.activeEnergy.map(JSON.double) ?? .null, "source": .string(workout.source.name)])
        }
        var counts = [Int](repeating: 0, count: SampleType.allCases.count)
        var single = [UUID?](repeating: nil, count: SampleType.allCases.count)
        for sample in saved.samples {
            counts[sample.type.index] += 1
            single[sample.type.index] = sample.uuid
        }
        for type in SampleType.allCases where counts[type.index] > 0 {
            var fields: JSONObject = ["kind": "samples", "type": .string(type.rawValue), "count": .int(Int64(counts[type.index]))]
            if counts[type.index] == 1, let uuid = single[type.index] { fields.append("uuid", .string(uuid.text)) }
            emit(.hkSaved, fields)
        }
        for object in deleted { emit(.hkDeleted, ["uuid": .string(object.uuid.text), "type": .string(object.type.name)]) }
        return actions
    }

    /// `record.saved` and `record.deleted`.
    public static func records(saved: [ExerciseRecord], deleted: [UUID], node: NodeName, now: EmulatedInstant) -> [NodeAction] {
        saved.map { record in
            .emit(Event(at: now, node: node, .recordSaved, fields: [
                "id": .string(record.id.text), "exercise": .string(record.exercise),
                "healthKitWorkoutID": .optional(record.healthKitWorkoutID?.text),
            ]))
        } + deleted.map { .emit(Event(at: now, node: node, .recordDeleted, fields: ["id": .string($0.text)])) }
    }
}
