/// Realistic, seeded heart rate: a live workout's readings (warm-up, steady or intervals, drift,
/// correlated noise) and sparse resting values. The same seed and inputs give the same values.
public struct HeartRateGenerator: Hashable, Sendable {
    /// Resting heart rate the series starts from and returns to (bpm).
    public var restingHeartRate: Double

    public init(restingHeartRate: Double = 62) {
        self.restingHeartRate = restingHeartRate
    }

    /// One value `t` seconds into a live workout's active time, as a sensor reads it while the
    /// workout runs (its end unknown, so no cool-down): a warm-up over the first five minutes, the
    /// session's steady level with a cardiac drift of about 4 bpm an hour and the activity's
    /// intervals, and correlated noise carried in `noise` and drawn from `random`.
    public func liveValue(activity: Activity, steady: Double, t: Double, noise: inout Double, random: inout SplitMix64) -> Double {
        let warmUp = 300.0
        var target: Double
        if t < warmUp {
            let progress = t / warmUp
            let from = restingHeartRate + 0.3 * (steady - restingHeartRate)
            target = from + (steady - from) * progress * (2 - progress)
        } else {
            target = steady + 4 * (t / 3_600)
            if activity.intervalSeconds > 0 {
                let phase = (t - warmUp).truncatingRemainder(dividingBy: 2 * activity.intervalSeconds) / activity.intervalSeconds
                target += phase < 1 ? 14 : -14
            }
        }
        let correlation = 0.92
        noise = correlation * noise + activity.variability * (1 - correlation * correlation).squareRoot() * random.standardNormal()
        return (min(max(target + noise, 40), 210)).roundedToTenth
    }

    /// Active energy (kcal) burnt over `seconds` at `heartRate` (Keytel et al., 70 kg, 35 y).
    public static func activeEnergy(heartRate: Double, seconds: Double) -> Double {
        max(0, (-55.0969 + 0.6309 * heartRate + 0.1988 * 70 + 0.2017 * 35) / 4.184) * seconds / 60
    }

    /// One resting value for the moment `index` in a day-long series.
    public func restingValue(index: Int64, seed: UInt64) -> Double {
        var random = SplitMix64(seed: seed, label: "resting-heart-rate#\(index)")
        return (restingHeartRate + 6 + random.standardNormal() * 4).roundedToTenth
    }
}
