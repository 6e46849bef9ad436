package import PairSimCore

/// A heart-rate series for a workout detail (seed 002 step 3, R: D2): samples in the workout's
/// range → drop values outside 20–300 bpm → 10-second bucket means → average, max, min.
public enum HeartRateDetail {
    /// Plausible heart rates; anything else is a sensor glitch.
    public static let validRange: ClosedRange<Double> = 20...300
    /// Bucket width: 10 s gives at most 180 points per 30 minutes.
    public static let bucketMilliseconds: Int64 = 10_000

    /// The index of the last bucket of a range: buckets are half-open `[t, t + 10 s)` except the
    /// last, which also takes a sample at exactly `end` (so 30 minutes are 180 buckets, not 181).
    static func lastBucket(start: Int64, end: Int64) -> Int64 {
        end > start ? (end - start - 1) / bucketMilliseconds : 0
    }

    /// The downsampled series and its statistics.
    public struct Summary: Hashable, Sendable {
        /// Bucket start offsets from the workout start (ms) and their mean bpm.
        public var offsets: [Int64]
        public var values: [Double]
        public var average: Double
        public var maximum: Double
        public var minimum: Double
        /// Samples that passed the range filter.
        public var sampleCount: Int
    }

    /// Runs the pipeline over samples given as parallel arrays of times and values (any order
    /// within the range). Returns nil when no sample survives (the empty state).
    public static func summarize(times: [Int64], values: [Double], start: Int64, end: Int64) -> Summary? {
        precondition(times.count == values.count, "Invalid input: \(times.count) times for \(values.count) values")
        guard end >= start else { return nil }
        let budget = Int64(times.count) * 4 + 4_096
        let lastBucket = Self.lastBucket(start: start, end: end)
        var firstBucket: Int64 = 0
        var bucketSpan = lastBucket + 1
        if bucketSpan > budget {
            // A range far wider than the samples (hostile, or a day-long "workout"): size the
            // buckets to the kept samples, or go sparse, rather than allocate the whole range.
            var first = Int64.max, last = Int64.min
            for i in times.indices where times[i] >= start && times[i] <= end && values[i] >= 20 && values[i] <= 300 {
                first = min(first, times[i])
                last = max(last, times[i])
            }
            guard first <= last else { return nil }
            firstBucket = min((first - start) / bucketMilliseconds, lastBucket)
            bucketSpan = min((last - start) / bucketMilliseconds, lastBucket) - firstBucket + 1
            if bucketSpan > budget { return sparse(times: times, values: values, start: start, end: end) }
        }
        let bucketCount = Int(bucketSpan)
        var sums = [Double](repeating: 0, count: bucketCount)
        var counts = [Int32](repeating: 0, count: bucketCount)
        var total = 0.0, maximum = -Double.infinity, minimum = Double.infinity
        var kept = 0
        let width = bucketMilliseconds
        // The hot loop: unchecked buffers and wrapping arithmetic (every value is in range by the
        // guard and the bucket sizing above), so it compiles to what the C loop does.
        times.withUnsafeBufferPointer { times in
            values.withUnsafeBufferPointer { values in
                sums.withUnsafeMutableBufferPointer { sums in
                    counts.withUnsafeMutableBufferPointer { counts in
                        for i in 0..<times.count {
                            let t = times[i], v = values[i]
                            guard t >= start, t <= end, v >= 20, v <= 300 else { continue }
                            let raw = (t &- start) / width
                            let bucket = Int(truncatingIfNeeded: (raw > lastBucket ? lastBucket : raw) &- firstBucket)
                            sums[bucket] += v
                            counts[bucket] &+= 1
                            total += v
                            if v > maximum { maximum = v }
                            if v < minimum { minimum = v }
                            kept &+= 1
                        }
                    }
                }
            }
        }
        guard kept > 0 else { return nil }
        var offsets: [Int64] = []
        var means: [Double] = []
        offsets.reserveCapacity(bucketCount)
        means.reserveCapacity(bucketCount)
        for bucket in 0..<bucketCount where counts[bucket] > 0 {
            offsets.append((Int64(bucket) + firstBucket) * bucketMilliseconds)
            means.append(sums[bucket] / Double(counts[bucket]))
        }
        return Summary(offsets: offsets, values: means, average: total / Double(kept), maximum: maximum,
                       minimum: minimum, sampleCount: kept)
    }

    /// The same result for samples scattered over a range far wider than their number.
    static func sparse(times: [Int64], values: [Double], start: Int64, end: Int64) -> Summary? {
        var kept: [(bucket: Int64, value: Double)] = []
        let lastBucket = Self.lastBucket(start: start, end: end)
        for i in times.indices where times[i] >= start && times[i] <= end && values[i] >= 20 && values[i] <= 300 {
            kept.append((min((times[i] - start) / bucketMilliseconds, lastBucket), values[i]))
        }
        guard !kept.isEmpty else { return nil }
        kept.sort { $0.bucket < $1.bucket }
        var offsets: [Int64] = [], means: [Double] = []
        var index = 0
        while index < kept.count {
            var sum = 0.0, count = 0.0
            let bucket = kept[index].bucket
            while index < kept.count, kept[index].bucket == bucket { sum += kept[index].value; count += 1; index += 1 }
            offsets.append(bucket * bucketMilliseconds)
            means.append(sum / count)
        }
        let all = kept.map(\.value)
        return Summary(offsets: offsets, values: means, average: all.reduce(0, +) / Double(all.count),
                       maximum: all.max()!, minimum: all.min()!, sampleCount: all.count)
    }

    /// Convenience over samples (times in emulated milliseconds).
    package static func summarize(_ samples: [HealthSample], start: EmulatedInstant, end: EmulatedInstant) -> Summary? {
        summarize(times: samples.map(\.start.milliseconds), values: samples.map(\.value),
                  start: start.milliseconds, end: end.milliseconds)
    }
}
