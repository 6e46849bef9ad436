/// Applying what arrives from the watch.
extension PhoneModel {
    public mutating func receive(frames: [[UInt8]], now: EmulatedInstant) -> [NodeAction] {
        let (inbound, actions) = sync.receive(frames: frames, now: now)
        switch inbound {
        case .data(let envelope):
            return actions + apply(envelope, bytes: frames[1].count, now: now)
        case .hello:
            return actions + sync.peerAppeared(now: now)
        case .duplicate, .ack, .rejected:
            return actions
        }
    }

    mutating func apply(_ envelope: Envelope, bytes: Int, now: EmulatedInstant) -> [NodeAction] {
        switch envelope.kind {
        case .objects:
            let batch: HealthObjectsBatch
            do { batch = try HealthObjectsBatch(body: envelope.body, limits: topology.wire) } catch {
                return [sync.rejectBody(envelope, error, bytes: bytes, now: now)]
            }
            return sync.accept(envelope, summary: batch.summary, now: now) + applyObjects(batch, now: now)
        case .records:
            let batch: RecordsBatch
            do { batch = try RecordsBatch(body: envelope.body, limits: topology.wire) } catch {
                return [sync.rejectBody(envelope, error, bytes: bytes, now: now)]
            }
            return sync.accept(envelope, summary: batch.summary, now: now) + applyRecords(batch, now: now)
        case .ack, .hello:
            preconditionFailure("Invalid state: \(envelope.kind) is handled by the sync engine")
        }
    }

    mutating func applyObjects(_ batch: HealthObjectsBatch, now: EmulatedInstant) -> [NodeAction] {
        let (saved, saveOps) = store.save(workouts: batch.workouts, samples: batch.samples)
        let (deleted, deleteOps) = store.delete(batch.deleted, now: now)
        var actions = (saveOps + deleteOps).map(NodeAction.persist)
        counters.workoutsSaved += saved.workouts.count
        counters.samplesSaved += saved.samples.count
        for workout in saved.workouts {
            actions.append(event(.hkSaved, now, [
                "kind": "workout", "uuid": .string(workout.uuid.uuidString), "activity": .string(workout.activity),
                "activeEnergy": workout.activeEnergy.map(JSON.double) ?? .null, "source": .string(workout.source.name),
            ]))
        }
        for type in Set(saved.samples.map(\.type)).sorted() {
            let ofType = saved.samples.filter { $0.type == type }
            var fields: JSONObject = ["kind": "samples", "type": .string(type.rawValue), "count": .int(Int64(ofType.count))]
            if ofType.count == 1 { fields.append("uuid", .string(ofType[0].uuid.uuidString)) }
            actions.append(event(.hkSaved, now, fields))
        }
        for object in deleted {
            actions.append(event(.hkDeleted, now, ["uuid": .string(object.uuid.uuidString), "type": .string(object.type.name)]))
        }
        return actions
    }

    mutating func applyRecords(_ batch: RecordsBatch, now: EmulatedInstant) -> [NodeAction] {
        let (saved, saveOps) = records.save(batch.saved)
        let (removed, deleteOps) = records.delete(batch.deleted)
        var actions = (saveOps + deleteOps).map(NodeAction.persist)
        counters.recordsSaved += saved.count
        for record in saved {
            actions.append(event(.recordSaved, now, [
                "id": .string(record.id.uuidString), "exercise": .string(record.exercise),
                "healthKitWorkoutID": .optional(record.healthKitWorkoutID?.uuidString),
            ]))
        }
        for id in removed { actions.append(event(.recordDeleted, now, ["id": .string(id.uuidString)])) }
        return actions
    }
}
