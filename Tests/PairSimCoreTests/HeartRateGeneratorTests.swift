import Testing
import TestSupport
@testable import PairSimCore

@Suite("Heart-rate generator")
struct HeartRateGeneratorTests {
    let generator = HeartRateGenerator(restingHeartRate: 62)
    let running = Activity.named("running")!

    /// A live workout's readings, one every `interval` seconds of active time for `seconds`.
    func readings(_ activity: Activity, seconds: Double, interval: Double = 5, seed: UInt64) -> [Double] {
        var random = SplitMix64(seed: seed, label: "hosted-session#1")
        let steady = activity.steadyHeartRate + random.uniform(-6, 6)
        var noise = 0.0
        return stride(from: 0.0, through: seconds, by: interval).map { t in
            generator.liveValue(activity: activity, steady: steady, t: t, noise: &noise, random: &random)
        }
    }

    @Test("the same seed gives identical readings; another seed differs")  // R: W2
    func seeded() {
        expectEqual(readings(running, seconds: 1_800, seed: 11), readings(running, seconds: 1_800, seed: 11))
        expect(readings(running, seconds: 1_800, seed: 11) != readings(running, seconds: 1_800, seed: 12))
    }

    @Test("a warm-up below the steady level, then steady (or intervals) near the activity's rate", arguments: Activity.all.map(\.name))  // R: W2
    func shape(activity name: String) {
        let activity = Activity.named(name)!
        let values = readings(activity, seconds: 2_400, seed: 3)
        expect(values.allSatisfy { (40...210).contains($0) })
        let start = values.prefix(6).reduce(0, +) / 6
        let middle = values[200..<260].reduce(0, +) / 60
        expect(start < middle - 10, "warm-up starts below steady state")
        expect(abs(middle - activity.steadyHeartRate) < 25)
    }

    @Test("active energy grows with time and effort")
    func energy() {
        let easy = HeartRateGenerator.activeEnergy(heartRate: 100, seconds: 1_800)
        let hard = HeartRateGenerator.activeEnergy(heartRate: 160, seconds: 1_800)
        expect(hard > easy && easy > 0)
        expect(HeartRateGenerator.activeEnergy(heartRate: 160, seconds: 3_600) > hard)
    }
}
