/// What HealthKit lets the app read (R: H3): Apple ("Authorizing access to health data") hides
/// whether read permission was denied; a denied app's reads "return only samples that your app
/// successfully saved". So a type the app may not read looks like a type holding only what the
/// phone app itself saved — never like an error, and never like "denied". (Taken literally: the
/// watch app's samples are another app's here; see docs/FIDELITY.md.)
///
/// The platform builds this view for every query it answers; the app only sees its results.
public struct HealthReads: Sendable {
    public let store: HealthStore
    /// Types the user did not allow the app to read (the app cannot see this set).
    let denied: Set<ObjectType>

    public init(store: HealthStore, denied: Set<ObjectType>) {
        self.store = store
        self.denied = denied
    }

    /// True if the app sees an object of `type` written by `source`.
    public func sees(_ type: ObjectType, from source: ObjectSource) -> Bool {
        source == .phoneApp || !denied.contains(type)
    }

    /// Samples of `type` overlapping the range that the app sees, ordered by start.
    public func samples(_ type: SampleType, from start: EmulatedInstant = .zero, to end: EmulatedInstant = .distantFuture) -> [HealthSample] {
        let all = store.samples(type, from: start, to: end)
        return denied.contains(.sample(type)) ? all.filter { $0.source == .phoneApp } : all
    }

    /// The latest sample of `type` the app sees.
    public func latestSample(_ type: SampleType) -> HealthSample? {
        denied.contains(.sample(type)) ? store.latestSample(type) { $0.source == .phoneApp } : store.latestSample(type)
    }

    /// The workouts the app sees, oldest end first.
    public var workouts: [Workout] {
        denied.contains(.workout) ? store.workouts.filter { $0.source == .phoneApp } : store.workouts
    }

    /// The workout with the latest end date that the app sees.
    public var latestWorkout: Workout? {
        denied.contains(.workout) ? workouts.last : store.latestWorkout
    }

    /// The types of `batch` whose change the app can notice (observer callbacks, background
    /// delivery), and those it cannot: a change by another source to a type the app may not read
    /// is as invisible as the data itself. Deletions are judged by the object still in `store`.
    public func noticeable(_ batch: HealthObjectsBatch) -> (visible: Set<ObjectType>, hidden: Set<ObjectType>) {
        var visible = Set<ObjectType>(), hidden = Set<ObjectType>()
        func judge(_ type: ObjectType, _ source: ObjectSource?) {
            if sees(type, from: source ?? .other("unknown")) { visible.insert(type) } else { hidden.insert(type) }
        }
        for workout in batch.workouts { judge(.workout, workout.source) }
        for sample in batch.samples { judge(.sample(sample.type), sample.source) }
        for object in batch.deleted { judge(object.type, denied.contains(object.type) ? store.source(of: object) : .phoneApp) }
        return (visible, hidden.subtracting(visible))
    }

    /// The answer to a query the app executed, through what it may read.
    public func answer(_ spec: QuerySpec) -> QueryResult {
        switch spec {
        case .samples(let type, let from, let to, let uuids, let newestFirst, let limit):
            let start = from ?? .zero, end = to ?? .distantFuture
            let wanted = uuids.map(Set.init)
            switch type {
            case .workout:
                var list = workouts.filter { $0.end >= start && $0.start <= end && (wanted?.contains($0.uuid) ?? true) }
                if newestFirst { list.sort { ($0.end, $0.uuid.text) > ($1.end, $1.uuid.text) } }
                else { list.sort { ($0.start, $0.uuid.text) < ($1.start, $1.uuid.text) } }
                if let limit { list = Array(list.prefix(limit)) }
                return .objects(samples: [], workouts: list)
            case .sample(let sampleType):
                if newestFirst, limit == 1, from == nil, to == nil, wanted == nil {
                    return .objects(samples: latestSample(sampleType).map { [$0] } ?? [], workouts: [])
                }
                var list = samples(sampleType, from: start, to: end)
                if let wanted { list = list.filter { wanted.contains($0.uuid) } }
                if newestFirst { list.sort { ($0.end, UUIDKey($0.uuid)) > ($1.end, UUIDKey($1.uuid)) } }
                if let limit { list = Array(list.prefix(limit)) }
                return .objects(samples: list, workouts: [])
            }
        case .anchored(let type, let anchor, let limit):
            var (workouts, samples, deleted, newAnchor) = store.anchoredObjects(type, since: anchor ?? 0, limit: limit)
            if denied.contains(type) {
                workouts = workouts.filter { $0.source == .phoneApp }
                samples = samples.filter { $0.source == .phoneApp }
            }
            return .anchored(samples: samples, workouts: workouts, deleted: deleted, anchor: newAnchor)
        }
    }
}
