import CUUIDSet
import Foundation

/// A set of UUIDs with value semantics (copy on write) over `CUUIDSet`'s flat table: the
/// HealthKit stores' "new or duplicate" check for millions of samples (why not `Set<UUIDKey>`:
/// see `uuid_set.h`).
public struct UUIDSet: Hashable, Sendable, Sequence {
    final class Storage: @unchecked Sendable {
        // Mutated only through a uniquely referenced `Storage` (copy on write), so sharing is safe.
        let set: OpaquePointer

        init(capacity: Int) {
            guard let set = pus_create(capacity) else { fatalError("UUIDSet: out of memory for \(capacity) UUIDs") }
            self.set = set
        }

        init(copying other: Storage) {
            guard let set = pus_copy(other.set) else { fatalError("UUIDSet: out of memory copying \(pus_count(other.set)) UUIDs") }
            self.set = set
        }

        deinit { pus_free(set) }
    }

    private var storage: Storage

    public init(minimumCapacity: Int = 0) {
        precondition(minimumCapacity >= 0, "UUIDSet: negative capacity \(minimumCapacity)")
        storage = Storage(capacity: minimumCapacity)
    }

    public init<S: Sequence>(_ keys: S) where S.Element == UUIDKey {
        self.init()
        formUnion(keys)
    }

    private mutating func unique() -> OpaquePointer {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(copying: storage) }
        return storage.set
    }

    public var count: Int { pus_count(storage.set) }
    public var isEmpty: Bool { count == 0 }

    public func contains(_ key: UUIDKey) -> Bool { pus_contains(storage.set, key.high, key.low) != 0 }

    /// True when `key` was not here before.
    @discardableResult
    public mutating func insert(_ key: UUIDKey) -> Bool {
        let result = pus_insert(unique(), key.high, key.low)
        guard result >= 0 else { fatalError("UUIDSet: out of memory growing past \(count) UUIDs") }
        return result == 1
    }

    /// Inserts `keys` in one pass (prefetching ahead); element `i` of the result says whether
    /// `keys[i]` was new (a key repeated within `keys` is new once).
    public mutating func insertMany(_ keys: [UUIDKey]) -> [Bool] {
        guard !keys.isEmpty else { return [] }
        let set = unique()
        // The C side writes 0 or 1 per key: a Bool's own bytes, so no second array to convert into.
        var flags = [Bool](repeating: false, count: keys.count)
        let added = keys.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: UInt64.self) { words in
                flags.withUnsafeMutableBufferPointer { bools in
                    bools.withMemoryRebound(to: UInt8.self) { pus_insert_many(set, words.baseAddress, keys.count, $0.baseAddress) }
                }
            }
        }
        guard added >= 0 else { fatalError("UUIDSet: out of memory growing past \(count) UUIDs") }
        return flags
    }

    /// True when `key` was here.
    @discardableResult
    public mutating func remove(_ key: UUIDKey) -> Bool {
        pus_remove(unique(), key.high, key.low) == 1
    }

    /// Makes room for `total` UUIDs in all.
    public mutating func reserveCapacity(_ total: Int) {
        precondition(total >= 0, "UUIDSet: negative capacity \(total)")
        guard pus_reserve(unique(), total) == 0 else { fatalError("UUIDSet: out of memory reserving \(total) UUIDs") }
    }

    public mutating func formUnion<S: Sequence>(_ keys: S) where S.Element == UUIDKey {
        for key in keys { insert(key) }
    }

    public struct Iterator: IteratorProtocol {
        let storage: Storage
        var cursor = 0

        public mutating func next() -> UUIDKey? {
            var high: UInt64 = 0, low: UInt64 = 0
            guard pus_next(storage.set, &cursor, &high, &low) != 0 else { return nil }
            return UUIDKey(high: high, low: low)
        }
    }

    public func makeIterator() -> Iterator { Iterator(storage: storage) }

    public static func == (lhs: UUIDSet, rhs: UUIDSet) -> Bool {
        lhs.storage === rhs.storage || (lhs.count == rhs.count && lhs.allSatisfy(rhs.contains))
    }

    /// Equal sets have equal counts; the count is all that is hashed.
    public func hash(into hasher: inout Hasher) { hasher.combine(count) }
}
