/// Every event a node can emit. docs/EVENTS.md documents each one; names are a user contract.
public enum EventName: String, CaseIterable, Sendable {
    // Node lifecycle and commands
    case nodeStarted = "node.started"
    case nodeReady = "node.ready"
    case nodeStopped = "node.stopped"
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
    // Stores
    case hkSaved = "hk.saved"
    case hkDeleted = "hk.deleted"
    case recordSaved = "record.saved"
    case recordDeleted = "record.deleted"
    // CloudKit
    case ckExport = "ck.export"
    // Sync and wire
    case syncSent = "sync.sent"
    case syncLost = "sync.lost"
    case syncDuplicated = "sync.duplicated"
    case syncHeld = "sync.held"
    case syncRetransmit = "sync.retransmit"
    case syncAcked = "sync.acked"
    case syncReceived = "sync.received"
    case syncDuplicate = "sync.duplicate"
    case syncOutboxFull = "sync.outbox.full"
    case syncPartitionStart = "sync.partition.start"
    case syncPartitionEnd = "sync.partition.end"
    case wireRejected = "wire.rejected"
}

extension Event {
    /// Creates an event with a catalogued name.
    public init(at: EmulatedInstant, node: NodeName, _ name: EventName, level: Level = .info, fields: JSONObject = [:]) {
        self.init(at: at, node: node, name: name.rawValue, level: level, fields: fields)
    }
}
