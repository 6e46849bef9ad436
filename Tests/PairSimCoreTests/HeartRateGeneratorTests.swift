import Testing
@testable import PairSimCore

@Suite("Heart-rate generator")
struct HeartRateGeneratorTests {
    let generator = HeartRateGenerator(restingHeartRate: 62)
    let running = Activity.named("running")!

    @Test("the same seed gives identical samples; another seed differs")  // R: W2
    func seeded() {
        let a = generator.workoutSeries(activity: running, activeSeconds: 1_800, intervalSeconds: 5, seed: 11)
        let b = generator.workoutSeries(activity: running, activeSeconds: 1_800, intervalSeconds: 5, seed: 11)
        let c = generator.workoutSeries(activity: running, activeSeconds: 1_800, intervalSeconds: 5, seed: 12)
        #expect(a == b)
        #expect(a != c)
    }

    @Test("one sample per interval of active time")  // R: W2
    func count() {
        #expect(generator.workoutSeries(activity: running, activeSeconds: 600, intervalSeconds: 5, seed: 1).count == 121)
        #expect(generator.workoutSeries(activity: running, activeSeconds: 0, intervalSeconds: 5, seed: 1).isEmpty)
    }

    @Test("warm-up, steady and cool-down are realistic", arguments: Activity.all.map(\.name))  // R: W2
    func shape(activity name: String) {
        let activity = Activity.named(name)!
        let values = generator.workoutSeries(activity: activity, activeSeconds: 2_400, intervalSeconds: 5, seed: 3)
        #expect(values.allSatisfy { (40...210).contains($0) })
        let start = values.prefix(6).reduce(0, +) / 6
        let middle = values[200..<260].reduce(0, +) / 60
        let end = values.suffix(6).reduce(0, +) / 6
        #expect(start < middle - 10, "warm-up starts below steady state")
        #expect(end < middle - 5, "cool-down ends below steady state")
        #expect(abs(middle - activity.steadyHeartRate) < 25)
    }

    @Test("sample times skip paused stretches")  // R: W1
    func sampleTimes() {
        let segments = [
            WorkoutSession.Segment(start: EmulatedInstant(milliseconds: 0), end: EmulatedInstant(milliseconds: 10_000)),
            WorkoutSession.Segment(start: EmulatedInstant(milliseconds: 60_000), end: nil),
        ]
        let times = WatchModel.sampleTimes(segments: segments, end: EmulatedInstant(milliseconds: 70_000), count: 5,
                                           interval: .seconds(5)).map(\.milliseconds)
        #expect(times == [0, 5_000, 10_000, 65_000, 70_000])
    }

    @Test("active energy grows with time and effort")
    func energy() {
        let easy = HeartRateGenerator.activeEnergy(heartRates: [100, 100], activeSeconds: 1_800)
        let hard = HeartRateGenerator.activeEnergy(heartRates: [160, 160], activeSeconds: 1_800)
        #expect(hard > easy && easy > 0)
        #expect(HeartRateGenerator.activeEnergy(heartRates: [160], activeSeconds: 3_600) > hard)
    }
}
