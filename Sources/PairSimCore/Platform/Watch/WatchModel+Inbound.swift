/// What the watch takes from the phone: deletions and phone-side changes on both channels.
extension WatchModel {
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
        var actions: [NodeAction] = []
        switch envelope.kind {
        case .objects:
            let batch: HealthObjectsBatch
            do { batch = try HealthObjectsBatch(envelope: envelope, limits: topology.wire) } catch {
                return [sync.rejectBody(envelope, error, bytes: bytes, now: now)]
            }
            let (saved, saveOps) = store.save(workouts: batch.workouts, samples: batch.samples)
            let (deleted, deleteOps) = store.delete(batch.deleted, now: now)
            actions += (saveOps + deleteOps).map(NodeAction.persist)
            actions += StoreEvents.health(saved: saved, deleted: deleted, node: .watch, now: now)
            actions += sync.accept(envelope, bytes: bytes, summary: batch.summary, now: now)
        case .records:
            let batch: RecordsBatch
            do { batch = try RecordsBatch(body: envelope.body, limits: topology.wire) } catch {
                return [sync.rejectBody(envelope, error, bytes: bytes, now: now)]
            }
            let (saved, saveOps) = records.save(batch.saved)
            let (removed, deleteOps) = records.delete(batch.deleted)
            actions += (saveOps + deleteOps).map(NodeAction.persist)
            actions += StoreEvents.records(saved: saved, deleted: removed, node: .watch, now: now)
            actions += sync.accept(envelope, bytes: bytes, summary: batch.summary, now: now)
        case .message, .reply, .userinfo, .context, .file:
            return applyWatchConnectivity(envelope, bytes: bytes, now: now)
        case .ack, .hello, .link:
            preconditionFailure("Invalid state: \(envelope.kind) is handled by the sync engine")
        }
        return actions
    }
}
