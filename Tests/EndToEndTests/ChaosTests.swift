#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PairSimCore
import Testing
import TestSupport
@testable import PairSimRuntime

/// The hard way (R: S5, S6): a workout stream over lossy, duplicating, reordering channels while
/// kill -9 hits each node at random moments — every workout happens, and the phone ends with
/// exactly what the watch has.
@Suite("End to end: nothing lost, nothing twice, under faults and kill -9")
struct ChaosTests {
    static let workouts = 24

    static func channels(faults: Bool) -> String {
        let f = faults ? ", loss: 0.2, duplicate: 0.1, reorder: 0.2" : ""
        return """
            channels:
              healthkit: { latency: { uniform: [0s, 2s] }\(f) }
              cloudkit: { latency: { uniform: [0s, 5s] }, exportInterval: 5s\(f) }
            sync: { retransmitInitial: 2s, retransmitMax: 20s }
            """
    }

    /// What a node ended with: workout, sample and record ids.
    struct Stores: Equatable, CustomStringConvertible {
        var workouts: Set<UUID>
        var samples: Set<UUID>
        var records: Set<UUID>
        var description: String { "\(workouts.count) workouts, \(samples.count) samples, \(records.count) records" }
    }

    static func stores(_ pair: PairHarness, _ node: NodeName) throws -> Stores {
        let state = try JournaledStorage(directory: pair.topology.nodes[node]!.data).load()
        return Stores(workouts: Set(state.workouts.map(\.0.uuid)), samples: Set(state.samples.map(\.0.uuid)),
                      records: Set(state.records.map(\.id)))
    }

    /// Runs the stream at 240×; with `chaos`, kills a random node every 0.4–1 s wall (96–240
    /// emulated seconds: a kill every two to four workouts) and restarts it.
    static func run(name: String, chaos: Bool) async throws -> (watch: Stores, phone: Stores, kills: Int, phoneEvents: [Event], watchEvents: [Event]) {
        let pair = try PairHarness(name, timeScale: 240, channels: channels(faults: chaos))
        defer { pair.stopAll() }
        let epoch = PairHarness.now()
        try await pair.startNode(.watch, epoch: epoch)
        try await pair.startNode(.phone, epoch: epoch)
        try pair.must(.watch, "generate-workouts \(workouts) --every 1m --duration 30s --first 1m")
        var random = SplitMix64(seed: 2026)
        var kills = 0
        // A hang guard only: a run settles in 10-20 s here when the machine is quiet.
        let deadline = Date().addingTimeInterval(300)
        var settledInTime = false
        func settled() -> Bool {
            guard let watch = try? pair.status(.watch), let phone = try? pair.status(.phone) else { return false }
            // Every channel, both ways (a fixed-length list here once missed the third channel, so the
            // check never passed and each run waited out its 90 s).
            let pendingOut = Channel.allCases.map { (watch["channels"]?[$0.rawValue]?["pending"]?.intValue ?? -1) + (phone["channels"]?[$0.rawValue]?["pending"]?.intValue ?? -1) }
            return watch["workoutStream"]?["generated"]?.intValue == Int64(workouts) && watch["workoutStream"]?["remaining"]?.intValue == 0
                && pendingOut.allSatisfy { $0 == 0 }
                && phone["stores"]?["heldUntilUnlock"]?.intValue == 0 && phone["stores"]?["waitingInCloudKit"]?.intValue == 0
        }
        while Date() < deadline {
            if chaos, kills < 12 {
                try await Task.sleep(for: .microseconds(Int(random.uniform(400_000, 1_000_000))))
                let victim: NodeName = random.chance(0.5) ? .watch : .phone
                await pair.stop(victim.rawValue, signal: SIGKILL)
                kills += 1
                try await pair.startNode(victim, epoch: epoch)
            } else {
                try await Task.sleep(for: .microseconds(250_000))
            }
            if (!chaos || kills >= 12), settled() {
                settledInTime = true
                break
            }
        }
        expect(settledInTime, "\(name): the pair did not settle (every workout sent, every channel acknowledged) within 300 s")
        let events = pair.events(.phone), watchEvents = pair.events(.watch)
        await pair.stop("watch")
        await pair.stop("phone")
        return (try stores(pair, .watch), try stores(pair, .phone), kills, events, watchEvents)
    }

    @Test("a lossy, reordering, duplicating stream with kill -9: every workout happens, and the phone ends with exactly what the watch has", .timeLimit(.minutes(10)))  // R: S3, S5, S6, A10
    func chaosEqualsCalm() async throws {
        // The two pairs are independent: they run side by side.
        async let calmRun = Self.run(name: "e2e-calm", chaos: false)
        async let chaosRun = Self.run(name: "e2e-chaos", chaos: true)
        let calm = try await calmRun, chaos = try await chaosRun
        expectEqual(calm.watch.workouts.count, Self.workouts)
        expectEqual(calm.phone, calm.watch, "calm: phone \(calm.phone) vs watch \(calm.watch)")
        expect(chaos.kills >= 12)
        // The stream is the user's workouts in the reference watch app, whose sensor reads live: a
        // killed watch reads nothing while it is down, so the samples differ from the calm run's;
        // the workouts and records do not, and the phone has exactly what the watch has.
        expect(chaos.watch.workouts.count == Self.workouts && chaos.watch.records.count == calm.watch.records.count,
                "chaos watch \(chaos.watch) vs calm \(calm.watch)")
        expectEqual(chaos.phone, chaos.watch, "chaos: phone \(chaos.phone) vs watch \(chaos.watch)")
        // Nothing twice: no workout or record was saved twice on the phone, kills or not.
        let saved = chaos.phoneEvents.filter { $0.name == "hk.saved" && $0["kind"]?.stringValue == "workout" }.compactMap { $0["uuid"]?.stringValue }
        expectEqual(saved.count, Set(saved).count)
        let records = chaos.phoneEvents.filter { $0.name == "record.saved" }.compactMap { $0["id"]?.stringValue }
        expectEqual(records.count, Set(records).count)
        // The faults really happened (the channel model logs each one it injects).
        expect(chaos.watchEvents.contains { $0.name == "sync.lost" })
        expect(chaos.watchEvents.contains { $0.name == "sync.duplicated" }
                || chaos.phoneEvents.contains { $0.name == "sync.duplicate" })
    }
}
