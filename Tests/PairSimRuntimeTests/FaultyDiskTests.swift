import Foundation
import PairSimCore
import Testing
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

        init() throws {
            disk = try SimulatedDiskStorage(directory: NSTemporaryDirectory() + "pairsim-faulty-\(UInt32.random(in: 0...UInt32.max))")
            _ = try turns.boot(&watch, from: try disk.open(), now: .zero)
        }

        /// Commits the turn of `write-sample hr <value>`; false when the process died in it.
        mutating func sample(_ value: Int) throws -> Bool {
            seconds += 10
            let result = watch.handle(commandText: "write-sample hr \(value)", now: .zero + .seconds(seconds))
            #expect(result.ok, "\(result.reply)")
            let turn = turns.turn(result.actions, values: watch.changedValues())
            return try disk.commit(turn.operations, values: turn.values)
        }

        /// The heart rates a restarted process reads back, in order.
        func restarted() throws -> [Double] {
            try disk.open().samples.map(\.0.value)
        }
    }

    @Test("a process killed inside a turn's journal write leaves that entry torn: the restart has the turns before it, once")  // R: K8
    func tornJournalEntry() throws {
        var driven = try Driven()
        for value in 1...5 { #expect(try driven.sample(value)) }
        // Killed in the next turn's one write, 10 bytes into it: not even its header is whole.
        driven.disk.dieAfter(writes: 0, cut: 10)
        #expect(try driven.sample(6) == false)
        #expect(driven.disk.isDead)
        #expect(try driven.restarted() == [1, 2, 3, 4, 5])
        // A second restart applies nothing twice.
        #expect(try driven.restarted() == [1, 2, 3, 4, 5])
    }

    @Test("a process killed while settling its journal into SQLite leaves the transaction uncommitted: the restart applies the journal")  // R: K8
    func tornSettle() throws {
        for writes in 0..<4 {
            var driven = try Driven()
            for value in 1...40 { #expect(try driven.sample(value)) }
            #expect(driven.disk.unsettledTurns == 40)
            driven.disk.dieAfter(writes: writes, cut: 700)
            #expect(try driven.disk.settle() == false, "died after \(writes) write(s)")
            #expect(try driven.restarted() == (1...40).map(Double.init), "died after \(writes) write(s)")
        }
    }

    @Test("after a power loss the storage opens at the state after one of its turns — never refused, never torn, nothing twice")  // R: K8
    func powerLossKeepsAPrefix() throws {
        var random = SplitMix64(seed: 8)
        for round in 0..<24 {
            var driven = try Driven()
            var committed = 0
            var synced = 0
            for value in 1...Int(60 + random.next() % 300) {
                #expect(try driven.sample(value))
                committed = value
                switch random.next() % 20 {
                case 0: #expect(try driven.disk.settle())
                case 1:
                    driven.disk.writeback()
                    synced = committed
                default: break
                }
            }
            let undone = try driven.disk.loseUnsyncedWrites(random: random.next())
            let values = try driven.restarted()
            // The turns that survived are the first ones, each once; what the kernel wrote back is among them.
            #expect(values == (0..<values.count).map { Double($0 + 1) }, "round \(round): \(undone) write(s) undone, read back \(values.count)")
            #expect(values.count >= synced && values.count <= committed, "round \(round): \(values.count) of \(committed), \(synced) written back")
        }
    }

    @Test("the faulty disk leaves other SQLite files alone: a node's storage elsewhere works beside it")  // R: K8
    func otherFilesUntouched() throws {
        var driven = try Driven()
        driven.disk.dieAfter(writes: 0, cut: 0)
        #expect(try driven.sample(1) == false)
        // The disk is dead; a storage in another directory is not on it.
        let directory = try JournaledStorageTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let storage = try JournaledStorage(directory: directory)
        _ = try storage.load()
        let sample = HealthSample(uuid: UUID(text: "00000000-0000-4000-8000-000000000001")!, type: .heartRate, start: .zero, end: .zero,
                                  value: 61, source: .watchApp)
        try storage.commit([.putSamples([sample], anchor: 1)], values: [:])
        try storage.settle()
        #expect(try SQLiteStorage(path: directory + "/state.sqlite").load().samples.map(\.0.value) == [61])
    }
}
