/// Realistic, seeded heart-rate series: warm-up, steady (or intervals) with drift and correlated
/// noise, cool-down; and sparse resting values. The same seed and inputs give the same samples.
public struct HeartRateGenerator: Hashable, Sendable {
    /// Resting heart rate the series starts from and returns to (bpm).
    public var restingHeartRate: Double

    public init(restingHeartRate: Double = 62) {
        self.restingHeartRate = restingHeartRate
    }

    /// Heart-rate values for a session with `activeSeconds` of activity, one per `intervalSeconds`
    /// of active time, from a generator seeded for this session.
    public func workoutSeries(activity: Activity, activeSeconds: Double, intervalSeconds: Double, seed: UInt64) -> [Double] {
        guard activeSeconds > 0, intervalSeconds > 0 else { return [] }
        var random = SplitMix64(seed: seed, label: "heart-rate")
        let count = Int(activeSeconds / intervalSeconds) + 1
        let warmUp = min(300, activeSeconds * 0.15)
        let coolDown = min(180, activeSeconds * 0.10)
        // This session's own fitness: steady level varies ±6 bpm between sessions.
        let steady = activity.steadyHeartRate + random.uniform(-6, 6)
        let correlation = 0.92
        let innovation = activity.variability * (1 - correlation * correlation).squareRoot()
        var noise = 0.0
        var values: [Double] = []
        values.reserveCapacity(count)
        for index in 0..<count {
            let t = Double(index) * intervalSeconds
            var target: Double
            if t < warmUp {
                let progress = t / max(warmUp, 1)
                let from = restingHeartRate + 0.3 * (steady - restingHeartRate)
                target = from + (steady - from) * progress * (2 - progress)
            } else {
                target = steady + 4 * (t / 3_600) // cardiac drift: about 4 bpm per hour
                if activity.intervalSeconds > 0 {
                    let phase = (t - warmUp).truncatingRemainder(dividingBy: 2 * activity.intervalSeconds) / activity.intervalSeconds
                    target += phase < 1 ? 14 : -14
                }
            }
            let toEnd = activeSeconds - t
            if toEnd < coolDown {
                let progress = 1 - toEnd / max(coolDown, 1)
                target -= (target - (restingHeartRate + 0.45 * (steady - restingHeartRate))) * progress
            }
            noise = correlation * noise + innovation * random.standardNormal()
            values.append((min(max(target + noise, 40), 210)).roundedToTenth)
        }
        return values
    }

    /// One value `t` seconds into a live workout's active time, as a sensor reads it while the
    /// workout runs (its end unknown, so no cool-down): the warm-up, steady level, drift and
    /// intervals of `workoutSeries`, its correlated noise carried in `noise` and drawn from `random`.
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

    /// Active energy (kcal) for `activeSeconds` at these heart rates (Keytel et al., 70 kg, 35 y).
    public static func activeEnergy(heartRates: [Double], activeSeconds: Double) -> Double {
        guard !heartRates.isEmpty, activeSeconds > 0 else { return 0 }
        let average = heartRates.reduce(0, +) / Double(heartRates.count)
        let perMinute = max(0, (-55.0969 + 0.6309 * average + 0.1988 * 70 + 0.2017 * 35) / 4.184)
        return (perMinute * activeSeconds / 60).roundedToTenth
    }

}
