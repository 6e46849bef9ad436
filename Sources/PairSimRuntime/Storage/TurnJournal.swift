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

    // MARK: Entries

    /// One journaled turn: its operations and the small values it changed.
    struct Entry {
        var turn: UInt64
        var operations: [PersistOp]
        var values: NodeValues

        enum Tag: UInt8 { case putSamples = 1, outboxPut, outboxRemove, purgeTombstones }

        /// The turn's entry, or nil when it holds an operation the journal does not carry (those
        /// turns are rare and go to SQLite directly) or is larger than `maxEntryBytes`.
        static func encode(turn: UInt64, salt: UInt64 = 0, operations: [PersistOp], values: NodeValues) -> [UInt8]? {
            var out = [UInt8](repeating: 0, count: TurnJournal.headerBytes)
            out.reserveCapacity(512)
            put(UInt32(operations.count), &out)
            for operation in operations {
                switch operation {
                case .putSamples(let samples, let anchor):
                    guard samples.count <= 128 else { return nil }
                    out.append(Tag.putSamples.rawValue)
                    put(UInt64(bitPattern: anchor), &out)
                    put(bytes: SampleCodec.pack(samples), &out)
                case .outboxPut(let channel, let record):
                    guard record.frame.payload.count <= TurnJournal.maxEntryBytes else { return nil }
                    out.append(Tag.outboxPut.rawValue)
                    put(bytes: Array(channel.rawValue.utf8), &out)
                    put(record.seq, &out)
                    put(bytes: Array(record.kind.rawValue.utf8), &out)
                    put(bytes: Array(record.frame.topic.utf8), &out)
                    put(bytes: record.frame.payload, &out)
                    put(UInt64(bitPattern: record.createdAt.milliseconds), &out)
                    put(json: .object(record.summary), &out)
                    out.append(record.samplesAnchor == nil ? 0 : 1)
                    put(UInt64(bitPattern: record.samplesAnchor ?? 0), &out)
                case .outboxRemove(let channel, let seqs):
                    out.append(Tag.outboxRemove.rawValue)
                    put(bytes: Array(channel.rawValue.utf8), &out)
                    put(UInt32(seqs.count), &out)
                    for seq in seqs { put(seq, &out) }
                case .purgeTombstones(let anchor):
                    out.append(Tag.purgeTombstones.rawValue)
                    put(UInt64(bitPattern: anchor), &out)
                default:
                    return nil
                }
                // A turn of many small frames (the phone taking a burst) stops here, not encoded whole.
                guard out.count - TurnJournal.headerBytes <= TurnJournal.maxEntryBytes else { return nil }
            }
            put(UInt32(values.count), &out)
            for value in values {
                put(bytes: Array(value.key.name.utf8), &out)
                put(value, &out)
            }
            let length = out.count - TurnJournal.headerBytes
            guard length <= TurnJournal.maxEntryBytes else { return nil }
            let checksum = TurnJournal.checksum(out[TurnJournal.headerBytes...], turn: turn, salt: salt)
            out.withUnsafeMutableBytes { raw in
                raw.storeBytes(of: TurnJournal.magic.littleEndian, toByteOffset: 0, as: UInt32.self)
                raw.storeBytes(of: UInt32(length).littleEndian, toByteOffset: 4, as: UInt32.self)
                raw.storeBytes(of: turn.littleEndian, toByteOffset: 8, as: UInt64.self)
                raw.storeBytes(of: salt.littleEndian, toByteOffset: 16, as: UInt64.self)
                raw.storeBytes(of: checksum.littleEndian, toByteOffset: 24, as: UInt64.self)
            }
            return out
        }

        init(reading reader: inout Reader, turn: UInt64, end: Int) throws {
            self.turn = turn
            operations = []
            values = NodeValues()
            for _ in 0..<(try reader.u32()) {
                let tag = try reader.byte()
                switch Tag(rawValue: tag) {
                case .putSamples:
                    let anchor = Int64(bitPattern: try reader.u64())
                    let packed = try reader.bytes()
                    do { operations.append(.putSamples(try SampleCodec.unpack(packed), anchor: anchor)) } catch {
                        throw reader.error("turn \(turn): samples do not unpack: \(error)")
                    }
                case .outboxPut:
                    let channel = try reader.enumeration(Channel.self, "channel")
                    let seq = try reader.u64()
                    let kind = try reader.enumeration(MessageKind.self, "message kind")
                    let topic = String(decoding: try reader.bytes(), as: UTF8.self)
                    let payload = try reader.bytes()
                    let createdAt = EmulatedInstant(milliseconds: Int64(bitPattern: try reader.u64()))
                    guard let summary = try reader.json().objectValue else { throw reader.error("turn \(turn): an outbox summary is not an object") }
                    let hasAnchor = try reader.byte() == 1
                    let anchor = Int64(bitPattern: try reader.u64())
                    operations.append(.outboxPut(channel, OutboxRecord(seq: seq, kind: kind, frame: WireFrame(topic: topic, payload: payload),
                                                                       createdAt: createdAt, summary: summary,
                                                                       samplesAnchor: hasAnchor ? anchor : nil)))
                case .outboxRemove:
                    let channel = try reader.enumeration(Channel.self, "channel")
                    var seqs: [UInt64] = []
                    for _ in 0..<(try reader.u32()) { seqs.append(try reader.u64()) }
                    operations.append(.outboxRemove(channel, seqs))
                case .purgeTombstones:
                    operations.append(.purgeTombstones(throughAnchor: Int64(bitPattern: try reader.u64())))
                case nil:
                    throw reader.error("turn \(turn): unknown operation \(tag)")
                }
            }
            for _ in 0..<(try reader.u32()) {
                let name = String(decoding: try reader.bytes(), as: UTF8.self)
                if NodeValue.Key.retired.contains(name) {
                    _ = try reader.json()
                    continue
                }
                guard let key = NodeValue.Key(name: name) else { throw reader.error("turn \(turn): unknown state value \(name.prefix(40))") }
                do { values.insert(try NodeValue(key, json: try reader.json())) } catch let error as DecodeError {
                    throw reader.error("turn \(turn): \(error)")
                }
            }
            guard reader.offset == end else { throw reader.error("turn \(turn): \(end - reader.offset) bytes left over") }
        }

        static func put(_ value: UInt32, _ out: inout [UInt8]) { withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) } }
        static func put(_ value: UInt64, _ out: inout [UInt8]) { withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) } }
        static func put(bytes: [UInt8], _ out: inout [UInt8]) {
            put(UInt32(bytes.count), &out)
            out.append(contentsOf: bytes)
        }

        /// Written in place after its length (filled in after), not into an array of its own first.
        static func put(json: JSON, _ out: inout [UInt8]) {
            putLength(of: &out) { JSONWriter.write(json, into: &$0) }
        }

        /// A value's JSON (`NodeValue.writeJSON`), in place after its length.
        static func put(_ value: NodeValue, _ out: inout [UInt8]) {
            putLength(of: &out) { value.writeJSON(into: &$0) }
        }

        /// What `write` appends, after its length.
        static func putLength(of out: inout [UInt8], _ write: (inout [UInt8]) -> Void) {
            let mark = out.count
            put(UInt32(0), &out)
            write(&out)
            let length = UInt32(out.count - mark - 4).littleEndian
            out.withUnsafeMutableBytes { $0.storeBytes(of: length, toByteOffset: mark, as: UInt32.self) }
        }
    }

    /// Reads an entry's fields, refusing to run past the file's end.
    struct Reader {
        let data: [UInt8]
        var offset: Int
        let path: String

        init(_ data: [UInt8], from offset: Int, path: String) {
            self.data = data
            self.offset = offset
            self.path = path
        }

        func error(_ message: String) -> RuntimeError { RuntimeError("turn journal \(path): \(message)") }

        mutating func take(_ count: Int) throws -> ArraySlice<UInt8> {
            guard count >= 0, data.count - offset >= count else { throw error("an entry ends early at byte \(offset)") }
            defer { offset += count }
            return data[offset..<offset + count]
        }

        mutating func byte() throws -> UInt8 { try take(1).first! }
        mutating func u32() throws -> UInt32 { UInt32(littleEndian: try take(4).withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }) }
        mutating func u64() throws -> UInt64 { UInt64(littleEndian: try take(8).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }) }
        mutating func bytes() throws -> [UInt8] { Array(try take(Int(try u32()))) }

        mutating func json() throws -> JSON {
            let at = offset
            // Written by this process and checked by the checksum: nested deeper than the wire
            // allows (a 30-level WatchConnectivity payload inside the `wc` value is 33 deep).
            var parser = JSONParser()
            parser.maxDepth = 256
            do { return try parser.parse(try bytes()) } catch let error as JSONError {
                throw self.error("a value at byte \(at) is not JSON: \(error)")
            }
        }

        mutating func enumeration<T: RawRepresentable>(_ type: T.Type, _ what: String) throws -> T where T.RawValue == String {
            let at = offset
            let text = String(decoding: try bytes(), as: UTF8.self)
            guard let value = T(rawValue: text) else { throw error("unknown \(what) '\(text)' at byte \(at)") }
            return value
        }
    }
}
