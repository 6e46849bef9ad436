import Foundation
internal import PairSimCore

/// The app's access to HealthKit (`HKHealthStore`), closure and async forms as HealthKit has them.
///
/// Callbacks run on the app's driver thread in emulated time (HealthKit calls them on a
/// background queue); query answers arrive after the call returns, in the same instant.
public final class HKHealthStore: @unchecked Sendable {
    // @unchecked: used on the driver's thread only (PairSim reports other threads).

    public init() {}

    /// Health data is available on the emulated iPhone.
    public static func isHealthDataAvailable() -> Bool { true }

    var runtime: AppRuntime { AppRuntime.require("HKHealthStore") }

    // MARK: Queries

    /// Runs `query`: an observer query until `stop`; a sample or anchored query once.
    public func execute(_ query: HKQuery) {
        let runtime = self.runtime
        switch query {
        case let observer as HKObserverQuery:
            let id = runtime.id()
            observer.id = id
            runtime.observerQueries[id] = observer
            runtime.send(.executeObserver(query: id, type: observer.objectType!.core))
        case let sample as HKSampleQuery:
            runtime.query(sample.spec) { result in
                switch result.objects {
                case .success(let objects): sample.resultsHandler(sample, objects, nil)
                case .failure(let error): sample.resultsHandler(sample, nil, error)
                }
            }
        case let anchored as HKAnchoredObjectQuery:
            runtime.query(.anchored(anchored.objectType!.core, anchor: anchored.anchor?.value)) { result in
                switch result {
                case .anchored(let samples, let workouts, let deleted, let anchor):
                    let added: [HKSample] = workouts.map { HKWorkout(core: $0) } + samples.map { HKSample.of($0) }
                    anchored.resultsHandler(anchored, added, deleted.map { HKDeletedObject(uuid: $0.uuid) }, HKQueryAnchor(fromValue: anchor), nil)
                case .failed(let name):
                    anchored.resultsHandler(anchored, nil, nil, nil, HKError(name))
                case .objects:
                    preconditionFailure("Invalid state: an anchored query answered with plain objects")
                }
            }
        default:
            runtime.report("unsupported", "HKHealthStore.execute: \(type(of: query)) is not a query PairSim runs")
        }
    }

    /// Ends an observer query.
    public func stop(_ query: HKQuery) {
        guard let id = query.id, runtime.observerQueries.removeValue(forKey: id) != nil else { return }
        runtime.send(.stopQuery(id))
    }

    // MARK: Background delivery

    public func enableBackgroundDelivery(for type: HKObjectType, frequency: HKUpdateFrequency,
                                         withCompletion completion: @escaping @Sendable (Bool, Error?) -> Void) {
        runtime.request({ .enableBackgroundDelivery(id: $0, type.core, frequency.core) }) { error in
            completion(error == nil, error.map(HKError.init))
        }
    }

    public func enableBackgroundDelivery(for type: HKObjectType, frequency: HKUpdateFrequency) async throws {
        try await done { self.enableBackgroundDelivery(for: type, frequency: frequency, withCompletion: $0) }
    }

    public func disableBackgroundDelivery(for type: HKObjectType, withCompletion completion: @escaping @Sendable (Bool, Error?) -> Void) {
        runtime.request({ .disableBackgroundDelivery(id: $0, type.core) }) { error in completion(error == nil, error.map(HKError.init)) }
    }

    public func disableBackgroundDelivery(for type: HKObjectType) async throws {
        try await done { self.disableBackgroundDelivery(for: type, withCompletion: $0) }
    }

    // MARK: Authorization

    /// Always succeeds once the sheet was answered: whether reading was allowed stays hidden (R: H3).
    public func requestAuthorization(toShare typesToShare: Set<HKSampleType>?, read typesToRead: Set<HKObjectType>?,
                                     completion: @escaping @Sendable (Bool, Error?) -> Void) {
        runtime.request({ .requestAuthorization(id: $0) }) { error in completion(error == nil, error.map(HKError.init)) }
    }

    public func requestAuthorization(toShare typesToShare: Set<HKSampleType>, read typesToRead: Set<HKObjectType>) async throws {
        try await done { self.requestAuthorization(toShare: typesToShare, read: typesToRead, completion: $0) }
    }

    /// Sharing (writing) status: PairSim's app may write every type it models.
    public func authorizationStatus(for type: HKObjectType) -> HKAuthorizationStatus { .sharingAuthorized }

    // MARK: Saving and deleting

    /// Saves objects the app made (`HKQuantitySample`, `HKCategorySample`, `HKWorkout`).
    public func save(_ objects: [HKObject], withCompletion completion: @escaping @Sendable (Bool, Error?) -> Void) {
        var batch = HealthObjectsBatch()
        for object in objects {
            guard let sample = object as? HKSample else { continue }
            switch sample.core {
            case .workout(let workout): batch.workouts.append(workout)
            case .sample(let value): batch.samples.append(value)
            }
        }
        runtime.request({ .save(id: $0, batch) }) { error in completion(error == nil, error.map(HKError.init)) }
    }

    public func save(_ object: HKObject, withCompletion completion: @escaping @Sendable (Bool, Error?) -> Void) {
        save([object], withCompletion: completion)
    }

    public func save(_ objects: [HKObject]) async throws {
        try await done { self.save(objects, withCompletion: $0) }
    }

    public func save(_ object: HKObject) async throws { try await save([object]) }

    /// Deletes objects; only those the app (group) saved may go (R: H5).
    public func delete(_ objects: [HKObject], withCompletion completion: @escaping @Sendable (Bool, Error?) -> Void) {
        let deleted = objects.compactMap { object -> DeletedObject? in
            guard let sample = object as? HKSample else { return nil }
            return DeletedObject(uuid: sample.uuid, type: sample.sampleType.core)
        }
        runtime.request({ .delete(id: $0, deleted) }) { error in completion(error == nil, error.map(HKError.init)) }
    }

    public func delete(_ object: HKObject, withCompletion completion: @escaping @Sendable (Bool, Error?) -> Void) {
        delete([object], withCompletion: completion)
    }

    public func delete(_ objects: [HKObject]) async throws {
        try await done { self.delete(objects, withCompletion: $0) }
    }

    public func delete(_ object: HKObject) async throws { try await delete([object]) }

    /// Bridges a `(Bool, Error?)` completion to async/await.
    func done(_ start: (@escaping @Sendable (Bool, Error?) -> Void) -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            start { _, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }
}

/// The async sample query (`HKSampleQueryDescriptor`).
public struct HKSampleQueryDescriptor: Sendable {
    let type: HKSampleType
    let predicate: HKSamplePredicate?
    let sort: HKSampleSort
    let limit: Int?

    public init(type: HKSampleType, predicate: HKSamplePredicate? = nil, sort: HKSampleSort = .startDateAscending, limit: Int? = nil) {
        self.type = type
        self.predicate = predicate
        self.sort = sort
        self.limit = limit
    }

    /// Runs the query.
    public func result(for store: HKHealthStore) async throws -> [HKSample] {
        let query = HKSampleQuery(sampleType: type, predicate: predicate, limit: limit ?? HKObjectQueryNoLimit, sortDescriptors: [sort]) { _, _, _ in }
        let spec = query.spec
        return try await withCheckedThrowingContinuation { continuation in
            store.runtime.query(spec) { continuation.resume(with: $0.objects) }
        }
    }
}

/// The async anchored query (`HKAnchoredObjectQueryDescriptor`).
public struct HKAnchoredObjectQueryDescriptor: Sendable {
    /// What changed since the anchor.
    public struct Result: Sendable {
        public let addedSamples: [HKSample]
        public let deletedObjects: [HKDeletedObject]
        public let newAnchor: HKQueryAnchor
    }

    let type: HKSampleType
    let anchor: HKQueryAnchor?

    public init(type: HKSampleType, anchor: HKQueryAnchor?) {
        self.type = type
        self.anchor = anchor
    }

    public func result(for store: HKHealthStore) async throws -> Result {
        let spec = QuerySpec.anchored(type.core, anchor: anchor?.value)
        return try await withCheckedThrowingContinuation { continuation in
            store.runtime.query(spec) { answer in
                switch answer {
                case .anchored(let samples, let workouts, let deleted, let anchor):
                    continuation.resume(returning: Result(addedSamples: workouts.map { HKWorkout(core: $0) } + samples.map { HKSample.of($0) },
                                                          deletedObjects: deleted.map { HKDeletedObject(uuid: $0.uuid) },
                                                          newAnchor: HKQueryAnchor(fromValue: anchor)))
                case .failed(let name):
                    continuation.resume(throwing: HKError(name))
                case .objects:
                    preconditionFailure("Invalid state: an anchored query answered with plain objects")
                }
            }
        }
    }
}
