import Foundation
import PairSimKit

/// What the app's `SharedHealthDataService` returns: the values the tabs show, read from HealthKit.
struct HealthSnapshot {
    var hrv: Double?
    var restingHeartRate: Double?
    /// Asleep time in the last 24 h.
    var sleep: Duration?
    /// Steps in the last 24 h.
    var steps: Double?
    var bodyMass: Double?
    var bodyFat: Double?
    var bmi: Double?
    /// Workouts in HealthKit, newest first.
    var workouts: [HKWorkout] = []

    /// One query per observed type.
    static let queryCount = ObservedTypes.all.count

    /// Runs the 8 queries; throws if HealthKit is unavailable (device locked).
    static func fetch(from store: HKHealthStore, now: Date) async throws -> HealthSnapshot {
        func latest(_ type: HKQuantityType, _ unit: HKUnit) async throws -> Double? {
            let descriptor = HKSampleQueryDescriptor(predicates: [.quantitySample(type: type)],
                                                     sortDescriptors: [SortDescriptor(\.endDate, order: .reverse)], limit: 1)
            return try await descriptor.result(for: store).first?.quantity.doubleValue(for: unit)
        }
        let dayAgo = now.addingTimeInterval(-86_400)
        let lastDay = HKQuery.predicateForSamples(withStart: dayAgo, end: now)
        var snapshot = HealthSnapshot()
        snapshot.hrv = try await latest(ObservedTypes.hrv, .secondUnit(with: .milli))
        snapshot.restingHeartRate = try await latest(ObservedTypes.rhr, .count().unitDivided(by: .minute()))
        let asleep = try await HKSampleQueryDescriptor(predicates: [.categorySample(type: ObservedTypes.sleep, predicate: lastDay)], sortDescriptors: [])
            .result(for: store)
            .filter { $0.value != HKCategoryValueSleepAnalysis.inBed.rawValue && $0.value != HKCategoryValueSleepAnalysis.awake.rawValue }
        snapshot.sleep = asleep.isEmpty ? nil : .seconds(asleep.reduce(0) { $0 + $1.endDate.timeIntervalSince($1.startDate) })
        let steps = try await HKSampleQueryDescriptor(predicates: [.quantitySample(type: ObservedTypes.steps, predicate: lastDay)], sortDescriptors: [])
            .result(for: store)
            .map { $0.quantity.doubleValue(for: .count()) }
        snapshot.steps = steps.isEmpty ? nil : steps.reduce(0, +)
        snapshot.bodyMass = try await latest(ObservedTypes.weight, .gramUnit(with: .kilo))
        snapshot.bodyFat = try await latest(ObservedTypes.bodyFat, .percent()).map { $0 / 100 }
        snapshot.bmi = try await latest(ObservedTypes.bmi, .count())
        snapshot.workouts = try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: [SortDescriptor(\.endDate, order: .reverse)])
            .result(for: store)
        return snapshot
    }

    /// The fields a tab shows, for `tab.loaded`.
    func fields(for tab: Tab) -> [(String, AppLog.Value)] {
        func value(_ v: Double?) -> AppLog.Value { v.map { .double(($0 * 10).rounded() / 10) } ?? .null }
        let sleepValue: AppLog.Value = sleep.map { .string(AppTime.text($0)) } ?? .null
        switch tab {
        case .today: return [("hrv", value(hrv)), ("rhr", value(restingHeartRate)), ("sleep", sleepValue), ("steps", value(steps))]
        case .train: return [("hrv", value(hrv)), ("rhr", value(restingHeartRate))]
        case .wellness: return [("sleep", sleepValue), ("weight", value(bodyMass)), ("bodyFat", value(bodyFat)), ("bmi", value(bmi))]
        }
    }
}

/// The app's `SharedHealthDataService` (R: C9): a TTL cache over HealthKit queries with in-flight
/// deduplication. Invalidation during a fetch lets it finish but marks its result expired.
struct SnapshotService {
    /// A waiter for the fetch: which tab load asked.
    struct Waiter {
        var tab: Tab
        var load: Int
    }

    /// The answer to `fetch`.
    enum FetchResult {
        case hit(HealthSnapshot)
        /// A new fetch started; its queries finish at `completesAt`.
        case started(id: Int, completesAt: AppClock.Instant)
        /// A fetch was already in flight; the waiter shares it.
        case joined(id: Int)
    }

    struct InFlight {
        var id: Int
        var startedAt: AppClock.Instant
        var invalidated = false
        var waiters: [Waiter]
    }

    let ttl: Duration
    let queryCost: Duration
    private(set) var cached: HealthSnapshot?
    private(set) var cachedAt: AppClock.Instant?
    private(set) var expired = false
    private(set) var inFlight: InFlight?
    private var fetchCount = 0

    init(ttl: Duration, queryCost: Duration) {
        self.ttl = ttl
        self.queryCost = queryCost
    }

    func isValid(at now: AppClock.Instant) -> Bool {
        guard cached != nil, let cachedAt, !expired else { return false }
        return cachedAt.duration(to: now) < ttl
    }

    /// `fetchSnapshot()` for `waiter`.
    mutating func fetch(for waiter: Waiter, now: AppClock.Instant) -> FetchResult {
        if isValid(at: now), let cached { return .hit(cached) }
        if var flight = inFlight {
            flight.waiters.append(waiter)
            inFlight = flight
            return .joined(id: flight.id)
        }
        fetchCount += 1
        inFlight = InFlight(id: fetchCount, startedAt: now, waiters: [waiter])
        return .started(id: fetchCount, completesAt: now.advanced(by: queryCost * HealthSnapshot.queryCount))
    }

    /// `invalidateCache()`: the cache expires; a fetch in flight finishes but its result is expired.
    /// Returns true if a fetch was in flight.
    @discardableResult
    mutating func invalidate() -> Bool {
        expired = true
        guard inFlight != nil else { return false }
        inFlight!.invalidated = true
        return true
    }

    /// Fetch `id` finished with `snapshot` (nil: the queries failed): its waiters, and whether the
    /// result was marked expired.
    mutating func complete(id: Int, snapshot: HealthSnapshot?) -> (waiters: [Waiter], expired: Bool) {
        guard let flight = inFlight, flight.id == id else { return ([], false) }
        inFlight = nil
        if let snapshot {
            cached = snapshot
            cachedAt = flight.startedAt
            expired = flight.invalidated
        }
        return (flight.waiters, flight.invalidated)
    }
}
