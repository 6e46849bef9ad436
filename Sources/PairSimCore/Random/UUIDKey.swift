import Foundation

/// A UUID as a dictionary key that hashes in a few instructions. The stores index millions of
/// samples by UUID, and Foundation's `UUID` hashing (16 bytes through a freshly seeded SipHash
/// per lookup) was the sync path's largest cost. Distribution stays good: both halves are mixed
/// with the process's hash seed by SplitMix64's finalizer.
public struct UUIDKey: Hashable, Comparable, Sendable {
    public let high: UInt64
    public let low: UInt64

    @inline(__always)
    public init(_ uuid: UUID) {
        (high, low) = withUnsafeBytes(of: uuid.uuid) { ($0.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
                                                        $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
    }

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    public var uuid: UUID {
        var bytes = (high, low)
        return withUnsafeBytes(of: &bytes) { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
    }

    public static func == (lhs: UUIDKey, rhs: UUIDKey) -> Bool { lhs.high == rhs.high && lhs.low == rhs.low }

    /// The same order as the UUIDs' text (bytes compared big-endian).
    public static func < (lhs: UUIDKey, rhs: UUIDKey) -> Bool {
        (lhs.high.byteSwapped, lhs.low.byteSwapped) < (rhs.high.byteSwapped, rhs.low.byteSwapped)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(high)
        hasher.combine(low)
    }

    @inline(__always)
    public func _rawHashValue(seed: Int) -> Int {
        Int(truncatingIfNeeded: SplitMix64.mix(high ^ SplitMix64.mix(low ^ UInt64(truncatingIfNeeded: seed))))
    }
}
