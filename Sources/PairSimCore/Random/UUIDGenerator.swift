import Foundation

/// Makes object UUIDs from a seeded generator, time-ordered like UUIDv7: the first 48 bits are the
/// emulated time in ms, so rows keyed by UUID arrive in order and a seed gives the same UUIDs.
public struct UUIDGenerator: Hashable, Sendable {
    /// The generator behind the random bits; persisting it resumes the sequence.
    public var random: SplitMix64

    /// Creates a generator for `seed` and a purpose label (e.g. `"watch.uuids"`).
    public init(seed: UInt64, label: String) {
        random = SplitMix64(seed: seed, label: label)
    }

    /// Unix time (ms) the emulated epoch is shown as inside UUIDs: 2026-03-01T00:00:00Z, so they
    /// read like real UUIDv7s.
    static let unixBase: UInt64 = 1_772_323_200_000

    /// The next UUID for an object created at `now`.
    public mutating func next(at now: EmulatedInstant) -> UUID {
        Self.version7(unixMilliseconds: Self.unixBase &+ UInt64(max(0, now.milliseconds)), random: &random)
    }

    /// A UUIDv7: `unixMilliseconds` in the first 48 bits, the rest drawn from `random`.
    static func version7(unixMilliseconds: UInt64, random: inout SplitMix64) -> UUID {
        let time = unixMilliseconds & 0xFFFF_FFFF_FFFF
        let a = random.next(), b = random.next()
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) { bytes in
            for i in 0..<6 { bytes[i] = UInt8(truncatingIfNeeded: time >> (40 - 8 * UInt64(i))) }
            for i in 6..<8 { bytes[i] = UInt8(truncatingIfNeeded: a >> (8 * UInt64(i))) }
            for i in 8..<16 { bytes[i] = UInt8(truncatingIfNeeded: b >> (8 * UInt64(i - 8))) }
            bytes[6] = (bytes[6] & 0x0F) | 0x70 // version 7
            bytes[8] = (bytes[8] & 0x3F) | 0x80 // RFC 4122 variant
        }
        return UUID(uuid: uuid)
    }
}
