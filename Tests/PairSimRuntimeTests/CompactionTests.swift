import Foundation
import PairSimCore
import Testing
import TestSupport
@testable import PairSimRuntime

/// Deleted samples are compacted out of their batches at start (R: K7).
@Suite("Compacting deleted samples")
struct CompactionTests {
    @Test("a start rewrites the batches that hold deleted samples without them, keeps a batch the outbox is rebuilt from, and reads back the same state")  // R: K7
    func compactsDeletedSamples() throws {
        let path = SQLiteStorageTests.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var uuids = UUIDGenerator(seed: 3, label: "compaction")
        let a = SchemaTests.samples(5, from: 0, &uuids), b = SchemaTests.samples(3, from: 5, &uuids), c = SchemaTests.samples(4, from: 8, &uuids)
        // An unacknowledged message that carries batch c exactly: stored as a reference to it (v5).
        let frame = WireCodec.encode(Envelope(from: .watch, stream: "s", seq: 1, sentAt: .zero, channel: .healthkit, kind: .objects, body: [:]),
                                     body: HealthObjectsBatch(samples: c).bodyBytes)
        let message = OutboxRecord(seq: 1, kind: .objects, frame: frame, createdAt: .zero, summary: ["samples": .int(4)], samplesAnchor: 3)
        let gone = [a[1], a[3]] + b + [c[0]]
        let storage = try SQLiteStorage(path: path)
        try storage.commit([.putSamples(a, anchor: 1), .putSamples(b, anchor: 2), .putSamples(c, anchor: 3), .outboxPut(.healthkit, message),
                            .deleteObjects(gone.map { DeletedObject(uuid: $0.uuid, type: .sample(.heartRate)) }, anchor: 4, at: .zero)],
                           values: [])
        let before = try storage.load()
        try expectEqual(storage.compactDeletedSamples(), (batches: 2, samples: 5))
        let after = try storage.load()
        expect(after.differences(from: before).isEmpty)
        expectEqual(after.outbox[.healthkit]?.first?.frame, frame, "the message goes again as it was sent, the deleted sample in it")
        let stored = try storage.queue.read { db in
            try Row.fetchAll(db, sql: "SELECT anchor, data FROM sample_batches ORDER BY id").map {
                ($0["anchor"] as Int64, try SampleCodec.unpack(Array($0["data"] as Data)).map(\.uuid))
            }
        }
        expectEqual(stored.map(\.0), [1, 3], "batch 2 was all deleted: gone")
        expectEqual(stored[0].1, [a[0], a[2], a[4]].map(\.uuid))
        expectEqual(stored[1].1, c.map(\.uuid), "batch 3 is kept whole for its message")
        // Nothing deleted since: the next start reads no batch for it; c stays until its message is acknowledged.
        try expectEqual(storage.compactDeletedSamples(), (batches: 0, samples: 0))
        try storage.commit([.outboxRemove(.healthkit, [1])], values: [])
        try expectEqual(storage.compactDeletedSamples(), (batches: 1, samples: 1))
        try expect(storage.load().differences(from: before.withoutOutbox).isEmpty)
    }
}

extension PersistedState {
    var withoutOutbox: PersistedState {
        var state = self
        state.outbox = [:]
        return state
    }
}
