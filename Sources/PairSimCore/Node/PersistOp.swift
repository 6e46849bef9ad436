import Foundation

/// A change to a node's bulk data the driver must make durable (the real runtime writes a turn's
/// operations and the model's changed `persistentValues()` to SQLite in one transaction; the
/// simulator ignores them). Restoring a node from everything persisted rebuilds the same model.
public enum PersistOp: Hashable, Sendable {
    /// Insert or replace HealthKit samples, each with the store anchor it was added at.
    case putSamples([HealthSample], anchor: Int64)
    /// Insert or replace workouts.
    case putWorkouts([Workout], anchor: Int64)
    /// Remove objects and keep their tombstones (anchor of the deletion).
    case deleteObjects([DeletedObject], anchor: Int64, at: EmulatedInstant)
    /// Remember UUIDs deleted before they arrived, so late copies are refused (no tombstone).
    case blockIDs([UUID])
    /// Drop tombstones recorded at or before `anchor` (retention expired).
    case purgeTombstones(throughAnchor: Int64)
    /// Insert or replace exercise records.
    case putRecords([ExerciseRecord])
    /// Remove exercise records.
    case deleteRecords([UUID])
    /// Keep an outbox message until it is acknowledged.
    case outboxPut(Channel, OutboxRecord)
    /// Forget acknowledged outbox messages.
    case outboxRemove(Channel, [UInt64])
    /// Objects that reached a locked phone, held until unlock (appended in arrival order).
    case hold(HealthObjectsBatch)
    /// Forget everything held: at unlock, committed with the merge into the store.
    case releaseHeld
    /// Record changes reach the CloudKit container and wait there until the app runs.
    case containerAdd(RecordsBatch)
    /// The app imported everything waiting in the container.
    case containerClear
}

/// An outbox message as stored: enough to transmit it again after a restart.
public struct OutboxRecord: Hashable, Sendable {
    public var seq: UInt64
    public var kind: MessageKind
    public var frame: WireFrame
    public var createdAt: EmulatedInstant
    /// Summary fields for events about it (`workouts=1 samples=360`).
    public var summary: JSONObject
    /// Set when the body is exactly `HealthObjectsBatch(samples:)` of the samples the store saved
    /// with this anchor, in their order: a storage may then keep this reference instead of the
    /// body's bytes, and rebuild the same frame from the stored batch.
    public var samplesAnchor: Int64?

    public init(seq: UInt64, kind: MessageKind, frame: WireFrame, createdAt: EmulatedInstant, summary: JSONObject,
                samplesAnchor: Int64? = nil) {
        self.seq = seq
        self.kind = kind
        self.frame = frame
        self.createdAt = createdAt
        self.summary = summary
        self.samplesAnchor = samplesAnchor
    }
}

/// What a receiver has of one sender stream: everything up to `cumulative`, plus `above`.
public struct InboundWindow: Hashable, Sendable {
    public var stream: String
    public var cumulative: UInt64
    public var above: Set<UInt64>

    public init(stream: String, cumulative: UInt64 = 0, above: Set<UInt64> = []) {
        self.stream = stream
        self.cumulative = cumulative
        self.above = above
    }

    /// True if `seq` was already received.
    public func contains(_ seq: UInt64) -> Bool { seq <= cumulative || above.contains(seq) }

    /// Records `seq`, sliding `cumulative` over any run it completes.
    public mutating func insert(_ seq: UInt64) {
        guard !contains(seq) else { return }
        above.insert(seq)
        slide()
    }

    /// Counts every sequence number below `below` as received (`below` > `cumulative` + 1).
    mutating func settle(below: UInt64) {
        cumulative = below - 1
        above = above.filter { $0 > cumulative }
        slide()
    }

    private mutating func slide() {
        while above.remove(cumulative + 1) != nil { cumulative += 1 }
    }
}
