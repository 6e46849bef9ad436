#if canImport(Glibc)
import Glibc
#endif
import PairSimRuntime

/// Monotonic wall time in nanoseconds, comparable across threads of this process.
func monotonicNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

/// The value at quantile `q` (0…1) of `values`.
func percentile(_ values: [Double], _ q: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    let index = min(sorted.count - 1, max(0, Int((q * Double(sorted.count - 1)).rounded())))
    return sorted[index]
}

/// `1234567` → `1.23 M`.
func human(_ value: Double) -> String {
    if value >= 1_000_000 { return format(value / 1_000_000, 2) + " M" }
    if value >= 1_000 { return format(value / 1_000, 1) + " k" }
    return format(value, 1)
}

func format(_ value: Double, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    var text = String(rounded)
    if let dot = text.firstIndex(of: ".") {
        let have = text.distance(from: dot, to: text.endIndex) - 1
        if have < decimals { text += String(repeating: "0", count: decimals - have) }
    }
    return text
}

/// Prints a result line at once (unbuffered, so progress shows through pipes).
func report(_ text: String) {
    FileHandleWriter.standardOutput(text + "\n")
}
