import Foundation
import PairSimCore

extension SQLiteStorage {
    /// Rewrites the sample batches that hold deleted samples without them, and drops a batch left
    /// empty (R: K7). Deleting a sample only records its tombstone, so without this a store that
    /// deletes keeps every deleted sample's bytes for good (and reads them at every start, to
    /// filter them out). A batch an unacknowledged outbox message is rebuilt from (schema v5) keeps
    /// them: the message must go again as it was sent; it is compacted at a later start.
    ///
    /// Runs when samples were deleted since the last compaction (`node_state.compacted_through`,
    /// schema v9, the last deletion anchor compacted), so a start without new deletions reads no
    /// batch for it. Returns the batches rewritten or dropped and the samples taken out.
    @discardableResult
    func compactDeletedSamples() throws -> (batches: Int, samples: Int) {
        try queue.write { db in
            let through = try Int64.fetchOne(db, sql: "SELECT compacted_through FROM node_state WHERE id = 1") ?? 0
            guard let latest = try Int64.fetchOne(db, sql: "SELECT MAX(anchor) FROM deleted_objects WHERE type != 'workout'"),
                  latest > through else { return (0, 0) }
            var deleted = Set<UUIDKey>()
            for text in try String.fetchAll(db, sql: "SELECT uuid FROM deleted_objects WHERE type != 'workout'") {
                deleted.insert(UUIDKey(try Self.uuid(text, "deleted_objects.uuid")))
            }
            let referenced = Set(try Int64.fetchAll(db, sql: "SELECT samples_anchor FROM outbox WHERE samples_anchor IS NOT NULL"))
            // First the changes (only the batches that change are held), then the writes.
            var changes: [(id: Int64, kept: [HealthSample])] = []
            var held = false
            var removed = 0
            let batches = try Row.fetchCursor(db, sql: "SELECT id, anchor, data FROM sample_batches ORDER BY id")
            while let row = try batches.next() {
                let samples = try SampleCodec.unpack(Array(row["data"] as Data))
                let kept = samples.filter { !deleted.contains(UUIDKey($0.uuid)) }
                guard kept.count < samples.count else { continue }
                guard !referenced.contains(row["anchor"]) else {
                    held = true
                    continue
                }
                changes.append((row["id"], kept))
                removed += samples.count - kept.count
            }
            for change in changes {
                if change.kept.isEmpty {
                    try db.execute(sql: "DELETE FROM sample_batches WHERE id = ?", arguments: [change.id])
                } else {
                    try db.execute(sql: "UPDATE sample_batches SET data = ? WHERE id = ?", arguments: [Data(SampleCodec.pack(change.kept)), change.id])
                }
            }
            // A batch kept for the outbox holds deletions still: the next start looks again.
            if !held { try db.execute(sql: "UPDATE node_state SET compacted_through = ? WHERE id = 1", arguments: [latest]) }
            return (changes.count, removed)
        }
    }
}
