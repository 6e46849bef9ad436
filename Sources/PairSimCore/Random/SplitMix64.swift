/// SplitMix64: a small, fast, seedable generator. Every random draw in PairSim comes from one,
/// so a seed replays a run exactly.
public struct SplitMix64: RandomNumberGenerator, Hashable, Sendable {
    /// The whole generator state; persisting it resumes the sequence.
    public var state: UInt64

    /// Creates a generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) { state = seed }

    /// A generator for one purpose (`"faults.cloudkit"`, `"workout#3"`) derived from `seed`, so
    /// adding draws for one purpose never shifts another's sequence.
    public init(seed: UInt64, label: String) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 // FNV-1a: stable across processes, unlike Hasher.
        for byte in label.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        state = SplitMix64.mix(seed ^ SplitMix64.mix(hash))
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return SplitMix64.mix(state)
    }

    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension RandomNumberGenerator {
    /// A uniform double in [0, 1) with 53 bits of randomness.
    public mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// A uniform double in [low, high).
    public mutating func uniform(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * nextUnit()
    }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool {
        p > 0 && nextUnit() < p
    }

    /// A standard normal draw (Box–Muller).
    public mutating func standardNormal() -> Double {
        let u1 = max(nextUnit(), 0x1.0p-60)
        let u2 = nextUnit()
        return (-2 * _log(u1)).squareRoot() * _cos(2 * Double.pi * u2)
    }

    /// An exponential draw with the given mean.
    public mutating func exponential(mean: Double) -> Double {
        -mean * _log(1 - nextUnit())
    }
}
