/// HealthKit on the phone: what arrives from the watch (held while locked), what other apps and
/// the app write, and which changes the app may notice (R: H1–H5, S4).
extension PhonePlatform {
    public mutating func receive(frames: [[UInt8]], now: EmulatedInstant) -> [NodeAction] {
        let (inbound, actions) = sync.receive(frames: frames, now: now)
        switch inbound {
        case .data(let envelope):
            return actions + apply(envelope, bytes: frames[1].count, now: now)
        case .link(let reachable):
            wc.peerLink = reachable
            return actions + refreshReachability(now: now)
        case .ack(.watchconnectivity):
            return actions + watchConnectivityAcknowledged(now: now)
        case .ack, .duplicate, .hello, .unreachable, .rejected:
            return actions
        }
    }

    mutating func apply(_ envelope: Envelope, bytes: Int, now: EmulatedInstant) -> [NodeAction] {
        switch envelope.kind {
        case .objects:
            let batch: HealthObjectsBatch
            do { batch = try HealthObjectsBatch(envelope: envelope, limits: topology.wire) } catch {
                return [sync.rejectBody(envelope, error, bytes: bytes, now: now)]
            }
            return sync.accept(envelope, bytes: bytes, summary: batch.summary, now: now) + ingest(batch, now: now)
        case .records:
            let batch: RecordsBatch
            do { batch = try RecordsBatch(body: envelope.body, limits: topology.wire) } catch {
                return [sync.rejectBody(envelope, error, bytes: bytes, now: now)]
            }
            return sync.accept(envelope, bytes: bytes, summary: batch.summary, now: now) + receiveRecords(batch, now: now)
        case .message, .reply, .userinfo, .context, .file:
            return applyWatchConnectivity(envelope, bytes: bytes, now: now)
        case .ack, .hello, .link:
            preconditionFailure("Invalid state: \(envelope.kind) is handled by the sync engine")
        }
    }

    /// New HealthKit objects on the phone: stored (or buffered while locked), then observers or wakes.
    mutating func ingest(_ batch: HealthObjectsBatch, now: EmulatedInstant) -> [NodeAction] {
        if locked {
            lockBuffer.workouts += batch.workouts
            lockBuffer.samples += batch.samples
            lockBuffer.deleted += batch.deleted
            let arriving = Self.types(of: batch)
            let (types, hidden) = noticeable(arriving, in: batch)
            var actions: [NodeAction] = [.persist(.hold(batch)), event(.hkBuffered, now, ["items": .int(Int64(batch.itemCount)), "types": .array(arriving.map { .string($0.name) }),
                                                   "waiting": .int(Int64(lockBuffer.itemCount))])]
            actions += hiddenChanges(hidden, now: now)
            // Seed 004's reading: background delivery still wakes the app while locked; its queries will fail.
            if config.healthKit.wakeWhileLocked { actions += healthDataChanged(types, now: now) }
            else { for type in types where !deferredUntilUnlock.contains(type) { deferredUntilUnlock.append(type) } }
            return actions
        }
        let (changed, actions) = saveNoticing(batch, now: now)
        return actions + healthDataChanged(changed, now: now)
    }

    /// Saves `batch` in the store; returns the changed types the app can notice (R: H3) and the events.
    mutating func saveNoticing(_ batch: HealthObjectsBatch, now: EmulatedInstant) -> ([ObjectType], [NodeAction]) {
        // Judged before saving: a deletion's source is known only while the object is still there.
        let judged = denied.isEmpty ? nil : reads.noticeable(batch)
        let (changed, stored) = saveToStore(batch, now: now)
        guard let judged else { return (changed, stored) }
        let (visible, hidden) = noticeable(changed, judged: judged)
        return (visible, stored + hiddenChanges(hidden, now: now))
    }

    /// Splits `types` of `batch` into the ones the app notices and the ones HealthKit hides from it.
    func noticeable(_ types: [ObjectType], in batch: HealthObjectsBatch) -> (visible: [ObjectType], hidden: [ObjectType]) {
        denied.isEmpty ? (types, []) : noticeable(types, judged: reads.noticeable(batch))
    }

    func noticeable(_ types: [ObjectType], judged: (visible: Set<ObjectType>, hidden: Set<ObjectType>)) -> (visible: [ObjectType], hidden: [ObjectType]) {
        (types.filter { judged.visible.contains($0) }, types.filter { judged.hidden.contains($0) })
    }

    /// HealthKit tells the app nothing of these changes; PairSim says so, for the developer.
    func hiddenChanges(_ types: [ObjectType], now: EmulatedInstant) -> [NodeAction] {
        types.filter { type in ObjectType.observed.contains(type) || observerQueries.contains { $0.type == type } }.map { type in
            event(.hkHidden, now, ["type": .string(type.name),
                                   "reason": "read not authorized: another source's data and its change are invisible to the app"])
        }
    }

    /// The types a batch touches (arrivals while locked are not in the store yet).
    static func types(of batch: HealthObjectsBatch) -> [ObjectType] {
        var types = Set(batch.samples.map { ObjectType.sample($0.type) })
        if !batch.workouts.isEmpty { types.insert(.workout) }
        for object in batch.deleted { types.insert(object.type) }
        return types.sorted()
    }

    /// Saves and deletes in the store; returns the types that changed and the events.
    mutating func saveToStore(_ batch: HealthObjectsBatch, now: EmulatedInstant) -> ([ObjectType], [NodeAction]) {
        let (saved, saveOps) = store.save(workouts: batch.workouts, samples: batch.samples)
        let (deleted, deleteOps) = store.delete(batch.deleted, now: now)
        var actions = (saveOps + deleteOps).map(NodeAction.persist)
        counters.workoutsSaved += saved.workouts.count
        counters.samplesSaved += saved.samples.count
        actions += StoreEvents.health(saved: saved, deleted: deleted, node: .phone, now: now)
        var changed = saved.changedTypes
        for object in deleted where !changed.contains(object.type) { changed.append(object.type) }
        return (changed.sorted(), actions)
    }

    /// Objects written on the phone (by another app, the Health app or this app) enter the store
    /// and sync to the watch like any HealthKit write.
    mutating func writeOnPhone(_ batch: HealthObjectsBatch, now: EmulatedInstant) -> [NodeAction] {
        guard !batch.isEmpty else { return [] }
        return ingest(batch, now: now) + sync.sendIfRoom(.healthkit, kind: .objects, body: batch.body, summary: batch.summary, now: now)
    }

    /// Deletes objects from the phone's HealthKit and syncs the deletion to the watch.
    mutating func deleteFromHealthKit(_ objects: [DeletedObject], now: EmulatedInstant) -> [NodeAction] {
        let deletion = HealthObjectsBatch(deleted: objects)
        let (changed, stored) = saveNoticing(deletion, now: now)
        return stored + healthDataChanged(changed, now: now)
            + sync.sendIfRoom(.healthkit, kind: .objects, body: deletion.body, summary: deletion.summary, now: now)
    }
}
