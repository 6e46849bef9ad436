import Foundation
import Testing
import TestSupport
@testable import PairSimCore

/// The stores' UUID set (R: S6: an object delivered twice is applied once, by UUID) against
/// Swift's `Set` as the model.
@Suite("UUID set")
struct UUIDSetTests {
    static func key(_ random: inout SplitMix64, pool: Int) -> UUIDKey {
        // A small pool makes repeats, long probe runs and wrap-arounds common; key 0 is the nil UUID.
        let n = UInt64(random.next() % UInt64(pool))
        return n == 0 ? UUIDKey(high: 0, low: 0) : UUIDKey(high: SplitMix64.mix(n), low: SplitMix64.mix(n &+ 7_777))
    }

    @Test("insert, insertMany, remove and contains agree with Set through growth and deletions", arguments: [40, 700, 20_000])  // R: S6
    func agreesWithSet(pool: Int) {
        var random = SplitMix64(seed: UInt64(pool))
        var set = UUIDSet(), model = Set<UUIDKey>()
        for step in 0..<30_000 {
            switch random.next() % 10 {
            case 0...3:
                let key = Self.key(&random, pool: pool)
                expectEqual(set.insert(key), model.insert(key).inserted, "step \(step)")
            case 4...5:
                let key = Self.key(&random, pool: pool)
                expectEqual(set.remove(key), (model.remove(key) != nil), "step \(step)")
            case 6:
                let keys = (0..<Int(random.next() % 50)).map { _ in Self.key(&random, pool: pool) }
                let flags = set.insertMany(keys)
                expectEqual(flags, keys.map { model.insert($0).inserted }, "step \(step)")
            default:
                let key = Self.key(&random, pool: pool)
                expectEqual(set.contains(key), model.contains(key), "step \(step)")
            }
            expectEqual(set.count, model.count)
        }
        expectEqual(Set(set), model, "iteration yields each member once")
        for key in model { expect(set.contains(key)) }
    }

    @Test("a copy is independent (copy on write) and equal until changed")  // R: S6
    func copyOnWrite() {
        var a = UUIDSet()
        for n in 1...100 as ClosedRange<UInt64> { a.insert(UUIDKey(high: n, low: n * 3)) }
        var b = a
        expectEqual(a, b)
        b.insert(UUIDKey(high: 999, low: 1))
        expect(a.count == 100 && b.count == 101)
        expect(!a.contains(UUIDKey(high: 999, low: 1)))
        expect(a != b)
        b.remove(UUIDKey(high: 999, low: 1))
        expectEqual(a, b, "equal by contents, not by identity")
        a.reserveCapacity(1_000_000)
        expect(a == b && a.count == 100)
    }

    @Test("a large table (4 MiB, many doublings on) grows, copies, removes and frees like a small one")  // R: S6
    func largeTables() {
        // 200,000 UUIDs need 2^18 slots (4 MiB).
        var random = SplitMix64(seed: 30)
        let keys = (0..<200_000).map { _ in UUIDKey(high: random.next() | 1, low: random.next()) }
        var set = UUIDSet()
        let flags = set.insertMany(Array(keys[..<150_000])) + set.insertMany(Array(keys[100_000...]))
        expectEqual(flags.filter { $0 }.count, 200_000, "the 50,000 sent twice are new once")
        expectEqual(set.count, 200_000)
        var copy = set
        for key in keys[..<1_000] { copy.remove(key) }
        copy.insert(UUIDKey(high: 0, low: 0))
        expect(set.count == 200_000 && copy.count == 199_001, "the copy changed alone")
        expect(keys.allSatisfy { set.contains($0) }, "the original holds every UUID")
        expect(keys[1_000...].allSatisfy { copy.contains($0) } && !keys[..<1_000].contains { copy.contains($0) })
        expectEqual(Set(copy).count, 199_001, "iteration yields each member once")
    }

    @Test("a store saves a UUID once, whether repeated within a batch or sent again")  // R: S6
    func storeDeduplicates() {
        var store = HealthStore()
        var uuids = UUIDGenerator(seed: 3, label: "t")
        let samples = (0..<5).map { _ in HealthSample(uuid: uuids.next(at: .zero), type: .heartRate, start: .zero, end: .zero, value: 70, source: .watchApp) }
        let (first, _) = store.save(workouts: [], samples: samples + [samples[1]])
        expect(first.samples.count == 5 && first.ignored == 1)
        let (again, ops) = store.save(workouts: [], samples: samples)
        expect(again.samples.isEmpty && again.ignored == 5 && ops.isEmpty)
        _ = store.delete([DeletedObject(uuid: samples[0].uuid, type: .sample(.heartRate))], now: .zero)
        let (afterDelete, _) = store.save(workouts: [], samples: [samples[0]])
        expect(afterDelete.samples.isEmpty && afterDelete.ignored == 1, "a deleted sample is not saved again")
        expectEqual(store.sampleCount, 4)
    }
}
