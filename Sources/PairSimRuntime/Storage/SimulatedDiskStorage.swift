import CFaultyDisk
import Foundation
import PairSimCore

/// A node's real storage — `state.sqlite` behind `turns.journal`, the code a node process runs
/// (`JournaledStorage`) — on the simulator's faulty disk, so that seeds of a swarm meet storage
/// faults with the nemesis (R: K8; TigerBeetle runs its real storage over simulated sectors for
/// the same reason). The files are real, in `directory`; the disk (faulty_disk.h) decides what a
/// killed process leaves of the write it was in, and what a power loss leaves of unsynced writes.
///
/// One process's life: `open` (what a starting node reads), `commit`s and `settle`s as the node
/// loop makes them, then `kill` (or a death armed with `dieAfter` inside a commit or a settle).
public final class SimulatedDiskStorage {
    public let directory: String
    public let powerLoss: Bool
    public let syncsTurns: Bool
    private let disk: OpaquePointer
    private var storage: JournaledStorage? {
        willSet { if let storage, newValue !== storage { earlierRows += storage.database.rowsWritten } }
    }
    private var earlierRows = 0
    /// Turns committed, over every process's life.
    public private(set) var turns = 0
    /// Every changed value's tables written whole, as before values were written as their
    /// differences: the baseline of `pairsim-bench rows`. Never set in a node.
    public static var rewritesValuesWhole: Bool {
        get { SQLiteStorage.rewritesValuesWhole }
        set { SQLiteStorage.rewritesValuesWhole = newValue }
    }

    /// Rows SQLite inserted, updated or deleted, over every process's life.
    public var rowsWritten: Int { earlierRows + (storage?.database.rowsWritten ?? 0) }

    /// Where simulated disks go: `$TMPDIR` when it is set (a swarm's worker has its own), else
    /// `/dev/shm` when it is a writable RAM disk with 1 GiB free, else the temporary directory. The
    /// files are thrown away with the run and their durability is the faulty disk's model, so a
    /// disk's page cache and block layer are only cost: a week-long real-storage nemesis seed took
    /// 0.54 s in /dev/shm against 0.76 s in /tmp on ext4 (wall; CPU 0.54 against 0.65 s;
    /// `topology simulate … --nemesis --seed 5`, release build, medians of five alternating runs).
    public static var temporaryDirectory: String {
        temporaryDirectory(tmpdir: ProcessInfo.processInfo.environment["TMPDIR"])
    }

    /// `temporaryDirectory`'s choice for a given `$TMPDIR` (nil: unset), RAM disk and room it needs.
    static func temporaryDirectory(tmpdir: String?, ramDisk: String = "/dev/shm", minimumFree: UInt64 = 1 << 30) -> String {
        var stats = statvfs()
        if tmpdir == nil, access(ramDisk, W_OK) == 0, statvfs(ramDisk, &stats) == 0,
           UInt64(stats.f_bavail) * UInt64(stats.f_frsize) >= minimumFree {
            return ramDisk.hasSuffix("/") ? ramDisk : ramDisk + "/"
        }
        return NSTemporaryDirectory()
    }

    /// A new disk in a new `directory` (removed again when this goes). `powerLoss`: remember what
    /// unsynced writes overwrote, so `loseUnsyncedWrites` can undo them (a read per write; without
    /// it a power loss undoes nothing). The simulator's seeds play kills only, so they go without:
    /// a week-long nemesis seed on the real storage took 0.67 s with it and 0.55 s without, against
    /// 0.12 s on the image (`topology simulate … --nemesis --real-storage`, release build, medians of 3).
    /// `syncsTurns`: the node's `sync.durability` is `power` (each turn's journal entry synced).
    public init(directory: String, powerLoss: Bool = false, syncsTurns: Bool = false) throws {
        guard pairsim_disk_install() == 0 else { throw RuntimeError("cannot install the simulator's faulty disk in SQLite") }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        guard let disk = pairsim_disk_create(directory, powerLoss ? 1 : 0) else { throw RuntimeError("out of memory creating a simulated disk") }
        self.directory = directory
        self.powerLoss = powerLoss
        self.syncsTurns = syncsTurns
        self.disk = disk
    }

    deinit {
        storage = nil
        pairsim_disk_destroy(disk)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A process starts on the disk: opens the files and reads back what they hold (moving the
    /// journal's turns into SQLite, as a node does at start).
    public func open() throws -> PersistedState {
        storage = nil
        pairsim_disk_revive(disk)
        let storage = try JournaledStorage(directory: directory, disk: disk, syncsTurns: syncsTurns)
        let state = try storage.load()
        self.storage = storage
        return state
    }

    /// Commits one turn as the node loop does. False when the process died in it (`dieAfter`):
    /// then whether the turn became durable is what the files say at the next `open`.
    public func commit(_ operations: [PersistOp], values: NodeValues) throws -> Bool {
        turns += 1
        return try surviving { try $0.commit(operations, values: values) }
    }

    /// Writes the journal's turns into SQLite, as an idle node does. False when the process died in it.
    public func settle() throws -> Bool {
        try surviving { try $0.settle() }
    }

    /// Journaled turns not yet in SQLite.
    public var unsettledTurns: Int { storage?.unsettledTurns ?? 0 }

    /// Where the journal's next entry goes (nil: not open).
    public var journalEnd: Int? { storage?.journal.end }

    /// The process dies at the write after the next `writes`, which reaches the file with only
    /// its first `cut` bytes.
    public func dieAfter(writes: Int, cut: Int) {
        pairsim_disk_die_after(disk, writes, cut)
    }

    /// The process ends now (kill -9): whatever it wrote stays in the files, nothing more reaches them.
    public func kill() {
        pairsim_disk_kill(disk)
        // Closing SQLite on a dead disk writes nothing: it only lets go of the files.
        storage = nil
    }

    /// True once the process died.
    public var isDead: Bool { pairsim_disk_is_dead(disk) != 0 }

    /// The machine lost power (the process dies with it): each file's writes since its last sync
    /// are undone but a prefix of them, drawn from `random` for each file apart, and the first
    /// undone may be torn. Returns how many writes were undone.
    /// `scattered`: each write survives or not on its own (a disk that reorders its writes), not
    /// a prefix of each file's.
    public func loseUnsyncedWrites(random: UInt64, scattered: Bool = false) throws -> Int {
        precondition(powerLoss, "Invalid state: a power loss on a disk made without powerLoss")
        kill()
        let undone = scattered ? pairsim_disk_power_loss_scattered(disk, random) : pairsim_disk_power_loss(disk, random)
        guard undone >= 0 else { throw RuntimeError("the simulated power loss could not undo writes in \(directory)") }
        return undone
    }

    /// The kernel wrote its cache back: what was written so far survives a power loss.
    public func writeback() { writeback(before: .max) }

    /// The time stamped on the writes from now on (emulated milliseconds in the simulator).
    public func setTime(_ milliseconds: Int64) { pairsim_disk_set_time(disk, milliseconds) }

    /// The kernel wrote back the writes stamped before `milliseconds`.
    public func writeback(before milliseconds: Int64) { pairsim_disk_writeback_before(disk, milliseconds) }

    private func surviving(_ body: (JournaledStorage) throws -> Void) throws -> Bool {
        guard let storage else { throw RuntimeError("Invalid state: the simulated storage in \(directory) is not open") }
        do {
            try body(storage)
        } catch {
            guard isDead else { throw error }
        }
        // Dead in a write it failed on, or in one it did not wait for (SQLite's automatic
        // checkpoint after its commit).
        guard !isDead else {
            kill()
            return false
        }
        return true
    }
}
