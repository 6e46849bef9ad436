import Foundation

/// The app's SwiftData store of ExerciseRecords, idempotent by record id.
public struct RecordStore: Hashable, Sendable {
    var recordsByID: [UUID: ExerciseRecord] = [:]
    var deletedIDs: Set<UUID> = []

    public init() {}

    public var count: Int { recordsByID.count }
    public func record(_ id: UUID) -> ExerciseRecord? { recordsByID[id] }

    /// All records, oldest start first.
    /// True if the record `id` was deleted here.
    public func isDeleted(_ id: UUID) -> Bool { deletedIDs.contains(id) }

    public var records: [ExerciseRecord] {
        recordsByID.values.sorted { ($0.start, $0.id.text) < ($1.start, $1.id.text) }
    }

    /// Saves records (an update replaces; a deleted id stays deleted). Returns what changed.
    public mutating func save(_ records: [ExerciseRecord]) -> ([ExerciseRecord], [PersistOp]) {
        var changed: [ExerciseRecord] = []
        for record in records where !deletedIDs.contains(record.id) && recordsByID[record.id] != record {
            recordsByID[record.id] = record
            changed.append(record)
        }
        return (changed, changed.isEmpty ? [] : [.putRecords(changed)])
    }

    /// Deletes records; returns the ids that were present.
    public mutating func delete(_ ids: [UUID]) -> ([UUID], [PersistOp]) {
        var removed: [UUID] = []
        for id in ids where !deletedIDs.contains(id) {
            deletedIDs.insert(id)
            if recordsByID.removeValue(forKey: id) != nil { removed.append(id) }
        }
        return (removed, ids.isEmpty ? [] : [.deleteRecords(ids)])
    }

    /// Restores persisted contents.
    public mutating func restore(_ records: [ExerciseRecord], deleted: [UUID]) {
        for record in records { recordsByID[record.id] = record }
        deletedIDs.formUnion(deleted)
    }
}
