import Foundation
import PairSimCore

// The journal's entries: how a turn is encoded into one and read back (the file itself: TurnJournal.swift).
extension TurnJournal {
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
