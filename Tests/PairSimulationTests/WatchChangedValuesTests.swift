import PairSimApps
@testable import PairSimCore
import PairSimKit
import Testing
import TestSupport

@Suite("The watch offers every value that changed")
struct WatchChangedValuesTests {
    /// After every step, each persistent value that differs from the step before must be among
    /// `changedValues()`: the node loop commits only those (R: K1, S5).
    @Test("random sessions in the reference watch app, bulk writes and timers: every changed value is offered")  // R: K1, S5, A10
    func everyChangeIsOffered() throws {
        var random = SplitMix64(seed: 77)
        let commands = [
            "start-workout running", "start-workout strength", "pause", "resume", "finish-workout", "fail-finish",
            "crash", "recover", "recover --no-builder", "generate-workouts 2 --every 10m --duration 5m",
            "write-sample hr 80", "write-sample weight 70", "write-samples hr 300", "foreground", "background",
            "out-of-range", "in-range", "offline", "online",
        ]
        // Offered although unchanged, counting only the values behind a flag (not the three always offered).
        var offeredUnchanged = 0
        for run in 0..<4 {
            var watch = WatchNode(topology: ReferenceWatchAppTests.topology, boot: "b\(run)", app: try AppCatalog.watchApp(for: ReferenceWatchAppTests.topology))
            var now = EmulatedInstant.zero
            _ = watch.start(now: now)
            var previous = watch.persistentValues()
            _ = watch.changedValues()
            for step in 0..<300 {
                if random.next() % 3 == 0 {
                    // Time passes with every timer on the way: resting samples, exports, plans, retries.
                    let target = now + .seconds(Int64(random.next() % 900))
                    while let next = watch.nextDeadline, next <= target {
                        now = max(now, next)
                        _ = watch.advance(to: now)
                    }
                    now = target
                    _ = watch.advance(to: now)
                } else {
                    _ = watch.handle(commandText: commands[Int(random.next() % UInt64(commands.count))], now: now)
                }
                let current = watch.persistentValues()
                let offered = watch.changedValues()
                for value in current where previous[value.key] != value {
                    expect(offered[value.key] != nil, "run \(run) step \(step): \(value.key.name) changed but was not offered")
                }
                offeredUnchanged += offered.keys.filter { ![.storeAnchor, .sync, .watchConnectivity].contains($0) && previous[$0] == current[$0] }.count
                previous = current
            }
        }
        // A turn offers the values it touched, not all ten behind flags every step (4 × 300 × 10).
        expect(offeredUnchanged < 4 * 300 * 10 / 3, "offered unchanged values \(offeredUnchanged) times")
    }
}
