import Foundation
import PairSimCore
import Testing
import TestSupport
@testable import PairSimRuntime

@Suite("Turn journal in front of SQLite")
struct JournaledStorageTests {
    static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "pairsim-journal-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A watch whose turns are committed the way the node loop commits them.
    struct Driven {
        var watch = WatchModel(topology: SQLiteStorageTests.topology, boot: "b1")
        var storage: JournaledStorage
        var turns = NodeTurns()
        var seconds: Int64 = 0

        init(_ directory: String) throws {
            storage = try JournaledStorage(directory: directory)
            _ = try turns.boot(&watch, from: try storage.load(), now: .zero)
        }

        /// Returns whether the turn committed anything.
        @discardableResult
        mutating func run(_ text: String) throws -> Bool {
            seconds += 10
            let result = watch.handle(commandText: text, now: .zero + .seconds(seconds))
            expect(result.ok, "\(text): \(result.reply)")
            var committed = false
            try turns.carryOut(result.actions, values: watch.persistentValues(), commit: {
                try storage.commit($0, values: $1)
                committed = true
            }, publish: { _ in }, emit: { _ in })
            return committed
        }

        /// A watch restored from what is durable now, as a restarted node would be.
        static func restored(_ directory: String, at seconds: Int64) throws -> WatchModel {
            var watch = WatchModel(topology: SQLiteStorageTests.topology, boot: "b2")
            try watch.restore(try JournaledStorage(directory: directory).load(), now: .zero + .seconds(seconds))
            return watch
        }
    }

    static func expectSame(_ restored: WatchModel, _ live: WatchModel, _ context: String) {
        expectEqual(restored.store.sampleCount, live.store.sampleCount, "\(context)")
        expectEqual(restored.store.samples(.heartRate), live.store.samples(.heartRate), "\(context)")
        expectEqual(restored.store.workouts, live.store.workouts, "\(context)")
        expectEqual(restored.sync.pending(.healthkit), live.sync.pending(.healthkit), "\(context)")
        expectEqual(restored.persistentValues(), live.persistentValues(), "\(context)")
    }

    @Test("small turns are durable in the journal before SQLite holds them; a restart applies each once")  // R: K1, S5
    func journaledTurnsSurviveAKill() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var driven = try Driven(directory)
        for value in [70, 71, 72] { try driven.run("write-sample hr \(value)") }
        expectEqual(driven.storage.unsettledTurns, 3)
        // Not in SQLite yet: only the journal has them.
        try expect(SQLiteStorage(path: directory + "/state.sqlite").load().samples.isEmpty)
        // A kill now (nothing settled): the restart takes them from the journal, and a second restart does not add them again.
        let first = try Driven.restored(directory, at: driven.seconds)
        Self.expectSame(first, driven.watch, "after the first restart")
        try expectEqual(SQLiteStorage(path: directory + "/state.sqlite").load().samples.count, 3)
        Self.expectSame(try Driven.restored(directory, at: driven.seconds), driven.watch, "after the second restart")
    }

    @Test("random turns, settlings and kills: a restarted watch always equals the one that never stopped")  // R: K1, S5
    func randomKills() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var driven = try Driven(directory)
        var random = SplitMix64(seed: 14)
        var journaled = 0, direct = 0
        let commands = ["write-sample hr 80", "write-sample hrv 51", "write-sample rhr 55", "write-samples hr 1200 --every 1s",
                        "write-samples hr 300 --every 5s", "write-sample hr 90"]
        for step in 0..<150 {
            let before = driven.storage.unsettledTurns
            let command = commands[Int(random.next() % UInt64(commands.count))]
            if try driven.run(command) {
                if driven.storage.unsettledTurns > before { journaled += 1 } else { direct += 1 }
            }
            switch random.next() % 10 {
            case 0, 1, 2: try driven.storage.settle()
            case 3:
                // Killed: the open storage is dropped as it is; a new one replays the journal,
                // restores the watch, and takes the turns after (its sync diffs start from the replay).
                driven.storage = try JournaledStorage(directory: directory)
                var restored = WatchModel(topology: SQLiteStorageTests.topology, boot: "b2")
                try restored.restore(try driven.storage.load(), now: .zero + .seconds(driven.seconds))
                Self.expectSame(restored, driven.watch, "step \(step)")
            default: break
            }
        }
        Self.expectSame(try Driven.restored(directory, at: driven.seconds), driven.watch, "at the end")
        // Both paths ran: turns into the journal, and bulk or workout turns straight into SQLite.
        expect(journaled > 20 && direct > 20, "journaled \(journaled), direct \(direct)")
    }

    @Test("an entry cut short by a kill is left out; the whole ones before it are applied")  // R: K1
    func tornTail() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var driven = try Driven(directory)
        for value in [70, 71, 72] { try driven.run("write-sample hr \(value)") }
        // The last entry's final 7 bytes never reached the file (zeros, as in the reserved part).
        let path = directory + "/turns.journal"
        let end = driven.storage.journal.end
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try file.seek(toOffset: UInt64(end - 7))
        try file.write(contentsOf: [UInt8](repeating: 0, count: 7))
        try file.close()
        let state = try JournaledStorage(directory: directory).load()
        expectEqual(state.samples.map(\.0.value), [70, 71])
    }

    @Test("after a settling the next entries overwrite the journal's start; the older entries behind them are not applied again")  // R: K1
    func overwrittenStart() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var driven = try Driven(directory)
        for value in [70, 71, 72, 73] { try driven.run("write-sample hr \(value)") }
        try driven.storage.settle()
        try driven.run("write-sample hr 74")
        let state = try JournaledStorage(directory: directory).load()
        expectEqual(state.samples.map(\.0.value), [70, 71, 72, 73, 74])
        Self.expectSame(try Driven.restored(directory, at: driven.seconds), driven.watch, "after the restart")
    }

    @Test("reading stops at the first entry that is not the next turn: what lies behind the newest entries is never applied")  // R: K1
    func readingStopsAtAGap() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = try TurnJournal(path: directory + "/turns.journal")
        for turn: UInt64 in [5, 6, 9, 10] {
            try journal.append(try #require(TurnJournal.Entry.encode(turn: turn, operations: [.purgeTombstones(throughAnchor: Int64(turn))], values: [])))
        }
        try expectEqual(journal.entries(after: 4).map(\.turn), [5, 6])
        try expectEqual(journal.entries(after: 5).map(\.turn), [6])
        // Overwritten from the start after a settling: the new turn 7, then the old 6, 9, 10 behind it.
        journal.restart()
        try journal.append(try #require(TurnJournal.Entry.encode(turn: 7, operations: [], values: [.watchRestingCount(7)])))
        try expectEqual(journal.entries(after: 6).map(\.turn), [7])
    }

    @Test("entries past the mapped part of the file are written and read like the ones in it")  // R: K1
    func pastTheMapping() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = try TurnJournal(path: directory + "/turns.journal")
        let big = JSON.string(String(repeating: "x", count: 15_000))
        var turn: UInt64 = 0
        while journal.end <= TurnJournal.mappedBytes + 40_000 {
            turn += 1
            try journal.append(try #require(TurnJournal.Entry.encode(turn: turn, operations: [], values: [.phoneDefaults(["k": big])])))
        }
        let read = try TurnJournal(path: directory + "/turns.journal").entries(after: 0)
        expectEqual(read.map(\.turn), Array(1...turn))
        expect(read.allSatisfy { $0.values[.phoneDefaults] == .phoneDefaults(["k": big]) })
    }

    @Test("a journal that does not belong to the database is refused, naming the file")  // R: K1
    func foreignJournal() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var driven = try Driven(directory)
        for value in [70, 71, 72] {
            try driven.run("write-sample hr \(value)")
            try driven.storage.settle()
        }
        // A large turn goes to SQLite, synced; the journal starts again after it, at turn 5.
        try driven.run("write-samples hr 300 --every 5s")
        expectEqual(driven.storage.journal.end, 0)
        try driven.run("write-sample hr 73")
        for name in ["state.sqlite", "state.sqlite-wal", "state.sqlite-shm"] { try? FileManager.default.removeItem(atPath: directory + "/" + name) }
        let error = #expect(throws: RuntimeError.self) { try JournaledStorage(directory: directory).load() }
        expectEqual(error?.message.contains("turn journal \(directory)/turns.journal"), true, "\(error?.message ?? "")")
        expectEqual(error?.message.contains("belongs to another state.sqlite"), true, "\(error?.message ?? "")")
    }

    @Test("every operation the journal carries reads back as written")  // R: K1
    func entryRoundTrip() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sample = HealthSample(uuid: UUID(), type: .heartRate, start: .zero + .seconds(3), end: .zero + .seconds(3), value: 81.5,
                                  source: ObjectSource(name: "Kim’s Apple Watch"))
        let record = OutboxRecord(seq: 9, kind: .objects, frame: WireFrame(topic: "hk.objects", payload: Array("{\"x\":1}".utf8)),
                                  createdAt: .zero + .seconds(4), summary: ["samples": 1, "note": "ü"], samplesAnchor: 12)
        let operations: [PersistOp] = [
            .putSamples([sample], anchor: 12), .outboxPut(.healthkit, record),
            .outboxPut(.cloudkit, OutboxRecord(seq: 1, kind: .records, frame: WireFrame(topic: "ck.records", payload: []),
                                               createdAt: .zero, summary: [:])),
            .outboxRemove(.healthkit, [3, 4, 1 << 40]), .purgeTombstones(throughAnchor: -1),
        ]
        // A WatchConnectivity payload may be 30 levels deep on the wire, and sits 3 deeper in `wc`.
        var deep = JSON.object(["leaf": .int(1)])
        for _ in 0..<40 { deep = .object(["a": deep]) }
        let sync = SyncEngine.Snapshot(channels: [.init(channel: .healthkit, stream: "s", nextSeq: 3,
                                                        inbound: [InboundWindow(stream: "p", cumulative: 2, above: [5, 7])])])
        let values: NodeValues = [.sync(sync), .storeAnchor(12), .phoneDefaults(["a": .array([.int(1), .double(2.5), .string("x"), .null, .bool(true)]),
                                                                                 "deep": deep])]
        let journal = try TurnJournal(path: directory + "/turns.journal")
        try journal.append(try #require(TurnJournal.Entry.encode(turn: 5, operations: operations, values: values)))
        let entries = try journal.entries(after: 4)
        expectEqual(entries.count, 1)
        expectEqual(entries.first?.turn, 5)
        expectEqual(entries.first?.operations, operations)
        expectEqual(entries.first?.values, values)
        // Operations the journal does not carry, and turns too large for it, are left to SQLite.
        expectEqual(TurnJournal.Entry.encode(turn: 6, operations: [.releaseHeld], values: []), nil)
        expectEqual(TurnJournal.Entry.encode(turn: 6, operations: [.putSamples(Array(repeating: sample, count: 129), anchor: 1)], values: []), nil)
    }
}

extension JournaledStorageTests {
    @Test("a turn past maxUnsettledTurns settles the turns before it, not itself: a kill after it loses nothing")  // R: K1, K8
    func settleAtTheLimitKeepsTheNextTurn() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var driven = try Driven(directory)
        let turns = JournaledStorage.maxUnsettledTurns + 3
        for value in 0..<turns { try driven.run("write-sample hr \(60 + value % 100)") }
        // Killed here: the turn that forced the settle, and the two after it, are only in the journal.
        Self.expectSame(try Driven.restored(directory, at: driven.seconds), driven.watch, "after \(turns) turns and a kill")
        try expectEqual(Driven.restored(directory, at: driven.seconds).store.sampleCount, turns)
    }
}

extension JournaledStorageTests {
    @Test("an entry left from turns a power loss took never passes for a new turn of the same number at the same offset: the salt tells them apart")  // R: K8
    func staleEntryOfALostTimeline() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/turns.journal"
        func entry(_ turn: UInt64, salt: UInt64, _ value: Int64) throws -> [UInt8] {
            try #require(TurnJournal.Entry.encode(turn: turn, salt: salt, operations: [], values: [.watchRestingCount(value)]))
        }
        func write(salt old: UInt64, then new: UInt64) throws -> [UInt64] {
            try? FileManager.default.removeItem(atPath: path)
            // Turns 6, 7, 8 after a synced commit through 5; a power loss takes 6 and 7 (their pages
            // never reached the disk) but not 8; the restart starts the journal again: 6 and 7 anew,
            // at the same offsets, and the stale 8 right after them.
            let journal = try TurnJournal(path: path)
            for turn: UInt64 in 6...8 { try journal.append(try entry(turn, salt: old, 100 + Int64(turn))) }
            journal.restart()
            for turn: UInt64 in 6...7 { try journal.append(try entry(turn, salt: new, 200 + Int64(turn))) }
            return try TurnJournal(path: path).entries(after: 5, salt: new).map { entry -> UInt64 in
                if case .watchRestingCount(let value)? = entry.values[.watchRestingCount] { UInt64(value) } else { 0 }
            }
        }
        // One salt for both: the stale entry chains on as turn 8, a state that never was.
        try expectEqual(write(salt: 9, then: 9), [206, 207, 108])
        // A new salt when the journal starts again (as JournaledStorage does): it ends there.
        try expectEqual(write(salt: 9, then: 10), [206, 207])
    }

    @Test("a journal written before schema v10 (entries without a salt) is still read, and a restart writes the new format")  // R: K1, K8
    func journalWithoutSalt() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var driven = try Driven(directory)
        for value in [70, 71, 72] { try driven.run("write-sample hr \(value)") }
        // Rewrite the journal's entries in the old format: magic "PSTJ", no salt, a 24-byte header.
        let path = directory + "/turns.journal"
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var old: [UInt8] = [], offset = 0
        while offset + TurnJournal.headerBytes <= bytes.count,
              bytes[offset..<offset + 4].elementsEqual(withUnsafeBytes(of: TurnJournal.magic.littleEndian, Array.init)) {
            let length = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16
            let turn = bytes[offset + 8..<offset + 16].withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
            let body = bytes[offset + TurnJournal.headerBytes..<offset + TurnJournal.headerBytes + length]
            withUnsafeBytes(of: TurnJournal.magicWithoutSalt.littleEndian) { old += $0 }
            withUnsafeBytes(of: UInt32(length).littleEndian) { old += $0 }
            withUnsafeBytes(of: turn.littleEndian) { old += $0 }
            withUnsafeBytes(of: TurnJournal.checksum(body, turn: turn).littleEndian) { old += $0 }
            old += body
            offset += TurnJournal.headerBytes + length
        }
        try Data(old).write(to: URL(fileURLWithPath: path))
        // The database was written before v10 too: its salt is 0.
        try driven.storage.database.queue.write { db in try db.execute(sql: "UPDATE journal_mark SET salt = 0") }
        try expectEqual(Driven.restored(directory, at: driven.seconds).store.samples(.heartRate).map(\.value), [70, 71, 72])
    }
}
