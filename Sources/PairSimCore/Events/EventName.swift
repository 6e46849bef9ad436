/// Every event a node can emit. docs/EVENTS.md documents each one; names are a user contract.
public enum EventName: String, CaseIterable, Sendable {
    // Node lifecycle and commands
    case nodeStarted = "node.started"
    case nodeReady = "node.ready"
    case nodeStopped = "node.stopped"
    case nodeKilled = "node.killed"
    case commandFailed = "command.failed"
    // Watch workouts and samples
    case workoutStarted = "workout.started"
    case workoutPaused = "workout.paused"
    case workoutResumed = "workout.resumed"
    case workoutFinished = "workout.finished"
    case workoutFinishFailed = "workout.finish.failed"
    case workoutCrashed = "workout.crashed"
    case workoutRecovered = "workout.recovered"
    case sampleWritten = "sample.written"
    case samplesWritten = "samples.written"
    // Apple Health export import (watch)
    case importStarted = "import.started"
    case importChecked = "import.checked"
    case importFinished = "import.finished"
    case importFailed = "import.failed"
    // Stores
    case hkSaved = "hk.saved"
    case hkDeleted = "hk.deleted"
    case recordSaved = "record.saved"
    case recordDeleted = "record.deleted"
    // CloudKit
    case ckExport = "ck.export"
    case ckPending = "ck.pending"
    case ckImport = "ck.import"
    // Phone HealthKit
    case hkBuffered = "hk.buffered"
    case hkMerged = "hk.merged"
    case hkHidden = "hk.hidden"
    case hkSaveFailed = "hk.save.failed"
    case hkQueryFailed = "hk.query.failed"
    case hkDeleteFailed = "hk.delete.failed"
    case hkTombstonesPurged = "hk.tombstones.purged"
    case authChanged = "auth.changed"
    // App lifecycle
    case appState = "app.state"
    case appMisbehaved = "app.misbehaved"
    case appCrashed = "app.crashed"
    case appPrint = "app.print"
    case deviceLocked = "device.locked"
    case deviceUnlocked = "device.unlocked"
    case deviceRebooted = "device.rebooted"
    // Observers and background delivery
    case observerRegistered = "observer.registered"
    case observerFired = "observer.fired"
    case observerMissing = "observer.missing"
    case observerCompletionSkipped = "observer.completion.skipped"
    case bgdeliveryEnabled = "bgdelivery.enabled"
    case bgdeliveryPending = "bgdelivery.pending"
    case bgdeliveryWake = "bgdelivery.wake"
    case bgdeliveryCompletion = "bgdelivery.completion"
    case bgdeliveryMissed = "bgdelivery.missed"
    case bgdeliveryBackoff = "bgdelivery.backoff"
    case bgdeliveryStopped = "bgdelivery.stopped"
    case bgdeliverySkipped = "bgdelivery.skipped"
    // Refresh coordination
    case coordinatorRefresh = "coordinator.refresh"
    case coordinatorThrottled = "coordinator.throttled"
    case cacheInvalidated = "cache.invalidated"
    case snapshotFetch = "snapshot.fetch"
    case snapshotFetched = "snapshot.fetched"
    case tabReload = "tab.reload"
    case tabLoadCancelled = "tab.load.cancelled"
    case tabLoaded = "tab.loaded"
    case tabLoadFailed = "tab.load.failed"
    // Workouts on the phone
    case notificationPosted = "notification.posted"
    case notificationSuppressed = "notification.suppressed"
    case detailLoaded = "detail.loaded"
    case detailDegraded = "detail.degraded"
    case watchWorkoutFinished = "watch.workoutFinished"
    // The delta-sync example app
    case deltaFetched = "delta.fetched"
    case deltaFailed = "delta.failed"
    // Sync and wire
    case syncSent = "sync.sent"
    case syncLost = "sync.lost"
    case syncDuplicated = "sync.duplicated"
    case syncHeld = "sync.held"
    case syncRetransmit = "sync.retransmit"
    case syncAckLost = "sync.ack.lost"
    case syncDropped = "sync.dropped"
    case syncAcked = "sync.acked"
    case syncReceived = "sync.received"
    case syncDuplicate = "sync.duplicate"
    case syncOutboxFull = "sync.outbox.full"
    case syncPartitionStart = "sync.partition.start"
    case syncPartitionEnd = "sync.partition.end"
    case wireRejected = "wire.rejected"

    case wcActivated = "wc.activated"
    case watchApp = "watch.app"
    case wcReachability = "wc.reachability"
    case wcQueued = "wc.queued"
    case wcRefused = "wc.refused"
    case wcFailed = "wc.failed"
    case wcStalled = "wc.stalled"
    case wcCancelled = "wc.cancelled"
    case wcFinished = "wc.finished"
    case wcReceived = "wc.received"
    case wcDelivered = "wc.delivered"
    case wcReplied = "wc.replied"
    case wcExpired = "wc.expired"
}

extension Event {
    /// Creates an event with a catalogued name.
    public init(at: EmulatedInstant, node: NodeName, _ name: EventName, level: Level = .info, fields: JSONObject = [:]) {
        self.init(at: at, node: node, name: name.rawValue, level: level, fields: fields)
    }
}
