import Foundation

/// CloudKit's export side: record changes collect and leave in one batch every `exportInterval`
/// (CKSyncEngine batches too). With no interval each change leaves at once.
public struct CloudKitExporter: Hashable, Sendable {
    public let interval: EmulatedDuration?
    public private(set) var pending = RecordsBatch()
    public private(set) var nextExportAt: EmulatedInstant?

    public init(interval: EmulatedDuration?) {
        self.interval = interval.flatMap { $0 > .zero ? $0 : nil }
    }

    /// Adds changes; returns true when they should be exported right away (no batching).
    public mutating func add(saved: [ExerciseRecord] = [], deleted: [UUID] = [], now: EmulatedInstant) -> Bool {
        // A record saved then deleted before export leaves only the deletion.
        let deletedSet = Set(deleted)
        pending.saved.removeAll { deletedSet.contains($0.id) }
        for record in saved {
            pending.saved.removeAll { $0.id == record.id }
            pending.saved.append(record)
        }
        pending.deleted.append(contentsOf: deleted.filter { !pending.deleted.contains($0) })
        guard !pending.isEmpty else { return false }
        guard let interval else { return true }
        if nextExportAt == nil { nextExportAt = now + interval }
        return false
    }

    /// True when a batch is due at `now`.
    public func isDue(at now: EmulatedInstant) -> Bool {
        guard !pending.isEmpty else { return false }
        guard let nextExportAt else { return true }
        return now >= nextExportAt
    }

    /// Takes the pending batch.
    public mutating func take() -> RecordsBatch {
        defer {
            pending = RecordsBatch()
            nextExportAt = nil
        }
        return pending
    }

    /// What a restart keeps: the pending batch and when it leaves (R: K7).
    public struct Snapshot: Hashable, Sendable {
        public var pending: RecordsBatch
        public var nextExportAt: EmulatedInstant?

        public init(pending: RecordsBatch, nextExportAt: EmulatedInstant?) {
            self.pending = pending
            self.nextExportAt = nextExportAt
        }
    }

    public var snapshot: Snapshot { Snapshot(pending: pending, nextExportAt: nextExportAt) }

    /// Restores the pending batch.
    public mutating func restore(_ snapshot: Snapshot) {
        pending = snapshot.pending
        nextExportAt = snapshot.nextExportAt
    }
}

extension CloudKitExporter.Snapshot {
    /// The turn journal's spelling.
    public var json: JSON {
        .object(["saved": .array(pending.saved.map(\.json)), "deleted": .array(pending.deleted.map { .string($0.text) }),
                 "nextExportAt": nextExportAt.map { .int($0.milliseconds) } ?? .null])
    }

    public init(json: JSON) throws(DecodeError) {
        guard let object = json.objectValue else { throw DecodeError(path: "cloudkit.export", reason: "expected an object") }
        let reader = FieldReader(object, path: "cloudkit.export")
        self.init(pending: try RecordsBatch(persisted: object),
                  nextExportAt: reader.has("nextExportAt") ? try reader.instant("nextExportAt") : nil)
    }
}
