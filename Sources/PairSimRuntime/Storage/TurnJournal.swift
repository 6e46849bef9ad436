#if canImport(Glibc)
import Glibc
#endif
import CFaultyDisk
import Foundation
import PairSimCore

/// An append-only file of small turns (`<data>/turns.journal`) that a node has made durable but
/// not yet written to SQLite (see `JournaledStorage`).
///
/// Why it exists: a SQLite commit writes a whole 4 KB WAL page for each table a turn touches.
/// On the phone's one-sample turn that commit cost ~105 µs of CPU (70 % of it in `pwrite`) before
/// the acknowledgement could leave; appending the same turn here is one `write` of a few hundred
/// bytes. Like the WAL with `synchronous = NORMAL`, the file is not fsynced: a turn survives the
/// process being killed, not the machine losing power.
///
/// An entry: `magic u32, length u32, turn u64, salt u64, checksum u64` (little endian), then
/// `length` bytes of operations and values. (A journal written before schema v10 has entries
/// without the salt, under magic "PSTJ"; they are read as salt 0.) Turns are numbered up across restarts and the entries since SQLite's
/// last synced commit hold consecutive turns from the file's start (`JournaledStorage` says why
/// settled turns stay until then). After that commit the next entry is written over the first
/// instead of emptying the file: `ftruncate` and the block allocation
/// of the appends after it measured ~8 µs a turn, an overwrite ~1 µs. Reading therefore stops at
/// the first entry that is not the next turn or does not match its checksum — the old entries
/// after the newest ones, or an entry cut short by a kill (its `write` never finished, so its turn
/// was never acknowledged).
///
/// The file's first `mappedBytes` are reserved on disk and mapped shared, and entries are copied
/// into the mapping: the page cache itself, so the same survival as a `write` without its system
/// call. Cold, between one frame and the next, `pwrite` of a few hundred bytes (its page-cache
/// copy and the inode's time update) was ~13 % of the phone's one-sample turn (`pairsim-bench
/// turn`, `perf`). Entries that would run past the mapping, and every entry where the file system
/// cannot reserve the space, are written with `pwrite`.
final class TurnJournal {
    let path: String
    private let descriptor: Int32
    /// The file's first `mappedBytes`, or nil (written with `pwrite` only).
    private let mapping: UnsafeMutableRawPointer?
    /// Room for the most unsettled turns (`JournaledStorage.maxUnsettledTurns`) at a typical size;
    /// never a limit, only where `pwrite` takes over.
    static let mappedBytes = 1 << 20
    /// Where the next entry goes: the end of the entries not yet in SQLite.
    private(set) var end = 0

    static let magic: UInt32 = 0x3254_5350  // "PST2"
    static let headerBytes = 32
    /// Entries written before schema v10: no salt, a shorter header.
    static let magicWithoutSalt: UInt32 = 0x4A54_5350  // "PSTJ"
    static let headerBytesWithoutSalt = 24
    /// The largest turn kept here; a bigger one (a bulk write, an import batch) goes straight to
    /// SQLite, where its pages are full anyway.
    static let maxEntryBytes = 16_384

    /// The simulator's faulty disk the entries are written through (`SimulatedDiskStorage`), or nil.
    private let disk: OpaquePointer?

    /// `disk`: write every entry through the simulator's faulty disk (then nothing is mapped: a
    /// store into a mapping cannot be cut short or undone).
    init(path: String, disk: OpaquePointer? = nil) throws {
        self.path = path
        self.disk = disk
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw RuntimeError("cannot open the turn journal \(path): \(String(cString: strerror(errno)))") }
        // Blocks reserved first: a store into a mapped hole on a full disk would kill the process
        // with SIGBUS instead of failing a write.
        let address = disk == nil && posix_fallocate(descriptor, 0, off_t(Self.mappedBytes)) == 0
            ? mmap(nil, Self.mappedBytes, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0) : nil
        mapping = address == MAP_FAILED ? nil : address
    }

    deinit {
        if let mapping { munmap(mapping, Self.mappedBytes) }
        close(descriptor)
    }

    /// Writes one encoded entry after the last; when this returns, a kill of the process no longer
    /// loses it.
    func append(_ entry: [UInt8]) throws {
        if let mapping, end + entry.count <= Self.mappedBytes {
            entry.withUnsafeBytes { mapping.advanced(by: end).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            end += entry.count
            return
        }
        var written = 0
        while written < entry.count {
            let result = entry.withUnsafeBytes { bytes in
                disk.map { pairsim_disk_pwrite($0, path, descriptor, bytes.baseAddress! + written, entry.count - written, off_t(end + written)) }
                    ?? pwrite(descriptor, bytes.baseAddress! + written, entry.count - written, off_t(end + written))
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw RuntimeError("cannot write to the turn journal \(path): \(String(cString: strerror(errno)))")
            }
            written += result
        }
        end += entry.count
    }

    /// Makes the entries written so far survive a power loss (`sync.durability: power`).
    func sync() throws {
        let failed: Bool
        if let disk {
            failed = pairsim_disk_sync(disk, path) != 0
        } else if let mapping, end <= Self.mappedBytes {
            let pages = (end + 4_095) / 4_096 * 4_096
            failed = pages > 0 && msync(mapping, pages, MS_SYNC) != 0
        } else {
            failed = fdatasync(descriptor) != 0 || (mapping.map { msync($0, Self.mappedBytes, MS_SYNC) != 0 } ?? false)
        }
        if failed { throw RuntimeError("cannot sync the turn journal \(path): \(String(cString: strerror(errno)))") }
    }

    /// Everything written is in SQLite now, synced: the next entry goes at the start.
    func restart() { end = 0 }

    /// The entries after turn `through` (the last one SQLite holds), in order: consecutive turns
    /// from the file's start, each whole (its checksum matches) and of the journal's current
    /// `salt` (the one SQLite recorded when the journal last started again). A whole entry of
    /// another salt ends them — one left from before, even with a current turn number — unless
    /// it is the first and starts past the database's turns: then the file is another database's.
    func entries(after through: UInt64, salt: UInt64 = 0) throws -> [Entry] {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var entries: [Entry] = []
        var offset = 0
        var previous: UInt64?
        while bytes.count - offset >= Self.headerBytesWithoutSalt {
            var header = Reader(bytes, from: offset, path: path)
            let magic = try header.u32()
            guard magic == Self.magic || magic == Self.magicWithoutSalt else { break }
            let headerBytes = magic == Self.magic ? Self.headerBytes : Self.headerBytesWithoutSalt
            guard bytes.count - offset >= headerBytes else { break }
            let length = Int(try header.u32())
            let turn = try header.u64()
            let entrySalt = magic == Self.magic ? try header.u64() : 0
            let checksum = try header.u64()
            let body = offset + headerBytes
            guard bytes.count - body >= length, Self.checksum(bytes[body..<body + length], turn: turn, salt: entrySalt) == checksum,
                  entrySalt == salt || (previous == nil && turn > through + 1) else { break }
            guard previous.map({ turn == $0 + 1 }) ?? true else { break }
            if previous == nil, turn > through + 1 {
                throw header.error("it starts at turn \(turn) but the database holds turns only through \(through): the journal belongs to another state.sqlite (delete the data directory to start from nothing)")
            }
            previous = turn
            if turn > through {
                var reader = Reader(bytes, from: body, path: path)
                entries.append(try Entry(reading: &reader, turn: turn, end: body + length))
            }
            offset = body + length
        }
        return entries
    }

    /// Word-at-a-time multiply–xor over the body, seeded with the turn and the journal's salt:
    /// enough to tell a torn or stale entry from a whole one, and ~8× cheaper per byte than
    /// byte-wise FNV-1a. The salt changes each time the journal starts again (schema v10), so an
    /// entry left from before — even one whose turn number a power loss made current again —
    /// never passes for a new one (SQLite's WAL salts its frames for the same reason).
    static func checksum(_ bytes: ArraySlice<UInt8>, turn: UInt64, salt: UInt64 = 0) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ turn &* 0x9E37_79B9_7F4A_7C15 ^ salt &* 0xC2B2_AE3D_27D4_EB4F
        bytes.withUnsafeBytes { raw in
            var index = 0
            while index + 8 <= raw.count {
                hash = (hash ^ raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) &* 0x0000_0100_0000_01B3
                hash ^= hash >> 29
                index += 8
            }
            while index < raw.count {
                hash = (hash ^ UInt64(raw[index])) &* 0x0000_0100_0000_01B3
                index += 1
            }
        }
        return hash ^ UInt64(bytes.count)
    }
}
