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
        for (type, count, last) in tally(saved.samples) {
            var fields: JSONObject = ["kind": "samples", "type": .string(type.rawValue), "count": .int(Int64(count))]
            if count == 1 { fields.append("uuid", .string(last.text)) }
            emit(.hkSaved, fields)
        }
        for object in deleted { emit(.hkDeleted, ["uuid": .string(object.uuid.text), "type": .string(object.type.name)]) }
        return actions
    }

    /// How many samples of each type, in `SampleType` order, with the last one's UUID.
    static func tally(_ samples: [HealthSample]) -> [(type: SampleType, count: Int, last: UUID)] {
        guard let first = samples.first else { return [] }
        // Most saves hold one type (a live builder's batch, a resting sample): no tables to fill.
        if samples.allSatisfy({ $0.type == first.type }) { return [(first.type, samples.count, samples.last!.uuid)] }
        var counts = [Int](repeating: 0, count: SampleType.allCases.count)
        var last = [UUID?](repeating: nil, count: SampleType.allCases.count)
        for sample in samples {
            counts[sample.type.index] += 1
            last[sample.type.index] = sample.uuid
        }
        return SampleType.allCases.filter { counts[$0.index] > 0 }.map { ($0, counts[$0.index], last[$0.index]!) }
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
