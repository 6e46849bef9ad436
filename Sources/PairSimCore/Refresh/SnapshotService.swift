/// The app's `SharedHealthDataService` (R: C9): a TTL cache over HealthKit queries with in-flight
/// deduplication. Invalidation during a fetch lets it finish but marks its result expired.
public struct SnapshotService: Hashable, Sendable {
    /// A waiter for the fetch: which tab load asked.
    public struct Waiter: Hashable, Sendable {
        public var tab: Tab
        public var load: Int
    }

    /// The answer to `fetch`.
    public enum FetchResult: Hashable, Sendable {
        /// A valid cached snapshot.
        case hit(HealthSnapshot)
        /// A new query started; it completes at `completesAt`.
        case started(id: Int, completesAt: EmulatedInstant)
        /// A query was already in flight; the waiter shares it.
        case joined(id: Int)
    }

    struct InFlight: Hashable, Sendable {
        var id: Int
        var startedAt: EmulatedInstant
        var invalidated = false
        var waiters: [Waiter]
    }

    public let config: RefreshConfig
    public internal(set) var cached: HealthSnapshot?
    public internal(set) var cachedAt: EmulatedInstant?
    public internal(set) var expired = false
    var inFlight: InFlight?
    var fetchCount = 0

    public init(config: RefreshConfig) {
        self.config = config
    }

    /// True while a cached snapshot is usable.
    public func isValid(at now: EmulatedInstant) -> Bool {
        guard cached != nil, let cachedAt, !expired else { return false }
        return now - cachedAt < config.cacheTTL
    }

    /// `fetchSnapshot()` for `waiter`.
    public mutating func fetch(for waiter: Waiter, now: EmulatedInstant) -> FetchResult {
        if isValid(at: now), let cached { return .hit(cached) }
        if var flight = inFlight {
            flight.waiters.append(waiter)
            inFlight = flight
            return .joined(id: flight.id)
        }
        fetchCount += 1
        inFlight = InFlight(id: fetchCount, startedAt: now, waiters: [waiter])
        return .started(id: fetchCount, completesAt: now + config.queryCost * Int64(HealthSnapshot.queryCount))
    }

    /// `invalidateCache()`: the cache expires; a fetch in flight finishes but its result is expired.
    /// Returns true if a fetch was in flight.
    @discardableResult
    public mutating func invalidate() -> Bool {
        expired = true
        guard inFlight != nil else { return false }
        inFlight!.invalidated = true
        return true
    }

    /// Fetch `id` finished with `snapshot` (nil: the queries failed). Returns its waiters and
    /// whether the result was marked expired.
    public mutating func complete(id: Int, snapshot: HealthSnapshot?) -> (waiters: [Waiter], expired: Bool) {
        guard let flight = inFlight, flight.id == id else { return ([], false) }
        inFlight = nil
        if let snapshot {
            cached = snapshot
            cachedAt = flight.startedAt
            expired = flight.invalidated
        }
        return (flight.waiters, flight.invalidated)
    }

    /// The app stopped executing: a fetch in flight will never complete.
    public mutating func cancelInFlight() {
        inFlight = nil
    }

    /// The app process ended: nothing is cached or in flight any more.
    public mutating func reset() {
        cached = nil
        cachedAt = nil
        expired = false
        inFlight = nil
    }

    /// The id of the fetch in flight, if any.
    public var inFlightID: Int? { inFlight?.id }
}
