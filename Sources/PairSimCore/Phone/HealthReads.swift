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
}
