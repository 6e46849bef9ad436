import ArgumentParser
import CBenchKernels
import PairSimCore
import PairSimKit

struct DownsampleBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "downsample",
        abstract: "1,000,000 heart-rate samples through the workout-detail pipeline, next to a plain C loop.")

    @Option(help: "Samples per run.")
    var samples = 1_000_000

    @Option(help: "Runs of each (the best is reported).")
    var repeats = 15

    func run() throws {
        // One sample per second over ~11.6 days of active time, with glitches outside 20–300 bpm.
        var random = SplitMix64(seed: 5)
        let times = (0..<samples).map { Int64($0) * 1_000 }
        let values = (0..<samples).map { i -> Double in
            i % 997 == 0 ? 0 : 60 + 100 * random.nextUnit()
        }
        let end = times.last!
        var swiftBest = Double.infinity, cBest = Double.infinity
        var swiftPoints = 0, cPoints = 0
        var swiftAverage = 0.0, cAverage = 0.0
        let buckets = Int(end / HeartRateDetail.bucketMilliseconds) + 1
        var sums = [Double](repeating: 0, count: buckets), counts = [Int32](repeating: 0, count: buckets)
        var offsets = [Int64](repeating: 0, count: buckets), means = [Double](repeating: 0, count: buckets)
        for _ in 0..<repeats {
            var t0 = monotonicNanoseconds()
            let summary = HeartRateDetail.summarize(times: times, values: values, start: 0, end: end)!
            swiftBest = min(swiftBest, Double(monotonicNanoseconds() - t0) / 1e9)
            swiftPoints = summary.values.count
            swiftAverage = summary.average
            t0 = monotonicNanoseconds()
            var average = 0.0, maximum = 0.0, minimum = 0.0
            cPoints = pairsim_c_bucket_means(times, values, samples, 0, end, HeartRateDetail.bucketMilliseconds,
                                             &sums, &counts, buckets, &offsets, &means, &average, &maximum, &minimum)
            cBest = min(cBest, Double(monotonicNanoseconds() - t0) / 1e9)
            cAverage = average
        }
        guard swiftPoints == cPoints, abs(swiftAverage - cAverage) < 1e-9 else {
            throw BenchError("Swift and C disagree: \(swiftPoints) vs \(cPoints) points, average \(swiftAverage) vs \(cAverage)")
        }
        let swiftRate = Double(samples) / swiftBest, cRate = Double(samples) / cBest
        report("== downsample benchmark: \(samples) heart-rate samples → \(swiftPoints) points of 10 s (best of \(repeats))")
        report("Swift detail pipeline (HeartRateDetail.summarize): \(human(swiftRate)) samples/s")
        report("plain C loop, same bucket means:                  \(human(cRate)) samples/s")
        report("Swift / C: \(format(swiftRate / cRate, 2)) (goal: ≥ 0.5)")
    }
}
