import Foundation
import PairSimCore
import Testing
import TestSupport
@testable import PairSimRuntime

/// The real storage on the simulator's faulty disk (R: K8): what a process killed inside a write,
/// and a machine that lost power, leave of the node's turns.
@Suite("Real storage on a faulty disk")
struct FaultyDiskTests {
    /// A watch whose turns are committed to a `SimulatedDiskStorage` as the node loop commits them;
    /// each `write-sample hr N` turn writes one sample of value N.
    struct Driven {
        let disk: SimulatedDiskStorage
        var watch = WatchModel(topology: SQLiteStorageTests.topology, boot: "b1")
        var turns = NodeTurns()
        var seconds: Int64 = 0

        init(syncsTurns: Bool = false) throws {
            disk = try SimulatedDiskStorage(directory: NSTemporaryDirectory() + "pairsim-faulty-\(UInt32.random(in: 0...UInt32.max))", powerLoss: true,
                                            syncsTurns: syncsTurns)
            _ = try turns.boot(&watch, from: try disk.open(), now: .zero)
        }

        /// Commits the turn of `write-sample hr <value>`; false when the process died in it.
        mutating func sample(_ value: Int) throws -> Bool {
            try run("write-sample hr \(value)")
        }

        /// Commits the turn of a watch command; false when the process died in it.
        mutating func run(_ command: String) throws -> Bool {
            seconds += 10
            let result = watch.handle(commandText: command, now: .zero + .seconds(seconds))
            expect(result.ok, "\(result.reply)")
            var alive = true
            try turns.carryOut(result.actions, values: watch.changedValues(), commit: { alive = try disk.commit($0, values: $1) },
                               publish: { _ in }, emit: { _ in })
            return alive
        }

        /// The heart rates a restarted process reads back, in order.
        func restarted() throws -> [Double] {
            try disk.open().samples.map(\.0.value)
        }
    }

    @Test("a process killed inside a turn's journal write leaves that entry torn: the restart has the turns before it, once")  // R: K8
    func tornJournalEntry() throws {
        var driven = try Driven()
        for value in 1...5 { try expect(driven.sample(value)) }
        // Killed in the next turn's one write, 10 bytes into it: not even its header is whole.
        driven.disk.dieAfter(writes: 0, cut: 10)
        try expectEqual(driven.sample(6), false)
        expect(driven.disk.isDead)
        try expectEqual(driven.restarted(), [1, 2, 3, 4, 5])
        // A second restart applies nothing twice.
        try expectEqual(driven.restarted(), [1, 2, 3, 4, 5])
    }

    @Test("a process killed while settling its journal into SQLite leaves the transaction uncommitted: the restart applies the journal")  // R: K8
    func tornSettle() throws {
        for writes in 0..<4 {
            var driven = try Driven()
            for value in 1...40 { try expect(driven.sample(value)) }
            expectEqual(driven.disk.unsettledTurns, 40)
            driven.disk.dieAfter(writes: writes, cut: 700)
            try expectEqual(driven.disk.settle(), false, "died after \(writes) write(s)")
            try expectEqual(driven.restarted(), (1...40).map(Double.init), "died after \(writes) write(s)")
        }
    }

    @Test("after a power loss the storage opens at the state after one of its turns — never refused, never torn, nothing twice")  // R: K8
    func powerLossKeepsAPrefix() throws {
        var random = SplitMix64(seed: 8)
        for round in 0..<32 {
            // Even rounds keep a prefix of each file's writes; odd ones keep writes one by one, as
            // a disk that reorders them does.
            let scattered = round % 2 == 1
            var driven = try Driven()
            // The heart-rate samples each turn added (samples are only added here): the restart
            // must read back those of the first k turns, for some k.
            var added: [Set<UUID>] = []
            var anchor: Int64 = 0
            var writtenBack = 0
            for value in 1...Int(60 + random.next() % 200) {
                if random.next() % 25 == 0 {
                    // A large turn: straight into SQLite, synced, and the journal starts again.
                    try expect(driven.run("write-samples hr 150 --every 1s"))
                } else {
                    try expect(driven.sample(value))
                }
                // The turn's new samples by anchor: re-reading the whole store (sorted) each turn
                // was 40% of this test's time.
                let new = driven.watch.store.anchoredQuery(.sample(.heartRate), since: anchor)
                added.append(Set(new.added))
                anchor = new.anchor
                switch random.next() % 20 {
                case 0: try expect(driven.disk.settle())
                case 1:
                    driven.disk.writeback()
                    writtenBack = added.count
                default: break
                }
            }
            let undone = try driven.disk.loseUnsyncedWrites(random: random.next(), scattered: scattered)
            let state = try driven.disk.open()
            var restored = Set(state.samples.map(\.0.uuid))
            // The node goes on from there: new turns take the numbers the lost ones had, at the
            // same places in the journal. Killed after them, it restarts with exactly those.
            var watch = WatchModel(topology: SQLiteStorageTests.topology, boot: "b2")
            var turnsAfter = NodeTurns()
            _ = try turnsAfter.boot(&watch, from: state, now: .zero + .seconds(driven.seconds))
            for value in 1...3 {
                let result = watch.handle(commandText: "write-sample hr \(100 + value)", now: .zero + .seconds(driven.seconds + Int64(value)))
                try turnsAfter.carryOut(result.actions, values: watch.changedValues(), commit: { try expect(driven.disk.commit($0, values: $1)) },
                                        publish: { _ in }, emit: { _ in })
            }
            driven.disk.kill()
            expectEqual(Set(try driven.disk.open().samples.map(\.0.uuid)), Set(watch.store.samples(.heartRate).map(\.uuid)),
                    "round \(round): after the power loss, three turns and a kill")
            var turns = 0
            while turns < added.count, added[turns].isSubset(of: restored) {
                restored.subtract(added[turns])
                turns += 1
            }
            expect(restored.isEmpty, "round \(round): \(undone) write(s) undone; \(restored.count) sample(s) read back beyond the first \(turns) turns")
            expect(turns >= writtenBack, "round \(round): read back the state after turn \(turns), the kernel had written back \(writtenBack)")
        }
    }

    @Test("with sync.durability: power every committed turn survives a power loss")  // R: K8
    func powerDurability() throws {
        var random = SplitMix64(seed: 9)
        for round in 0..<8 {
            var driven = try Driven(syncsTurns: true)
            let turns = Int(40 + random.next() % 200)
            for value in 1...turns {
                try expect(driven.sample(value))
                if random.next() % 20 == 0 { try expect(driven.disk.settle()) }
            }
            _ = try driven.disk.loseUnsyncedWrites(random: random.next())
            try expectEqual(driven.restarted(), (1...turns).map(Double.init), "round \(round)")
        }
    }

    @Test("a full journal starts again after a synced commit: every turn survives a kill and a restart")  // R: K8
    func journalWraps() throws {
        var driven = try Driven()
        var wrapped = false
        var end = 0
        for value in 1...4_000 {
            try expect(driven.sample(value % 200 + 1))
            if value % 50 == 0 { try expect(driven.disk.settle()) }
            let now = try #require(driven.disk.journalEnd)
            wrapped = wrapped || now < end
            end = now
        }
        expect(wrapped, "4,000 turns of a few hundred bytes pass the journal's 1 MiB")
        driven.disk.kill()
        try expectEqual(driven.restarted().count, 4_000)
    }

    @Test("simulated disks go to $TMPDIR when it is set, else to a RAM disk with room, else to the temporary directory")  // R: K8
    func whereDisksGo() throws {
        let directory = try JournaledStorageTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        expectEqual(SimulatedDiskStorage.temporaryDirectory(tmpdir: nil, ramDisk: directory, minimumFree: 1), directory + "/")
        expectEqual(SimulatedDiskStorage.temporaryDirectory(tmpdir: "/somewhere", ramDisk: directory, minimumFree: 1), NSTemporaryDirectory())
        expectEqual(SimulatedDiskStorage.temporaryDirectory(tmpdir: nil, ramDisk: directory + "/missing", minimumFree: 1), NSTemporaryDirectory())
        expectEqual(SimulatedDiskStorage.temporaryDirectory(tmpdir: nil, ramDisk: directory, minimumFree: .max), NSTemporaryDirectory())
    }

    @Test("the faulty disk leaves other SQLite files alone: a node's storage elsewhere works beside it")  // R: K8
    func otherFilesUntouched() throws {
        var driven = try Driven()
        driven.disk.dieAfter(writes: 0, cut: 0)
        try expectEqual(driven.sample(1), false)
        // The disk is dead; a storage in another directory is not on it.
        let directory = try JournaledStorageTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let storage = try JournaledStorage(directory: directory)
        _ = try storage.load()
        let sample = HealthSample(uuid: UUID(text: "00000000-0000-4000-8000-000000000001")!, type: .heartRate, start: .zero, end: .zero,
                                  value: 61, source: .watchApp)
        try storage.commit([.putSamples([sample], anchor: 1)], values: [])
        try storage.settle()
        try expectEqual(SQLiteStorage(path: directory + "/state.sqlite").load().samples.map(\.0.value), [61])
    }
}
