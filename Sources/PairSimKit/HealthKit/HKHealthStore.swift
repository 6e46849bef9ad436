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

    // MARK: Background delivery

    public func enableBackgroundDelivery(for type: HKObjectType, frequency: HKUpdateFrequency,
                                         withCompletion completion: @escaping @Sendable (Bool, Error?) -> Void) {
        // A type PairSim does not model never changes: delivery is on, and never wakes the app.
        guard let core = type.core else { return runtime.completeLater { completion(true, nil) } }
        runtime.request({ .enableBackgroundDelivery(id: $0, core, frequency.core) }) { error in
            completion(error == nil, error.map(HKError.init))
        }
    }

    public func enableBackgroundDelivery(for type: HKObjectType, frequency: HKUpdateFrequency) async throws {
        try await done { self.enableBackgroundDelivery(for: type, frequency: frequency, withCompletion: $0) }
    }

    public func disableBackgroundDelivery(for type: HKObjectType, withCompletion completion: @escaping @Sendable (Bool, Error?) -> Void) {
        guard let core = type.core else { return runtime.completeLater { completion(true, nil) } }
        runtime.request({ .disableBackgroundDelivery(id: $0, core) }) { error in completion(error == nil, error.map(HKError.init)) }
    }

    public func disableBackgroundDelivery(for type: HKObjectType) async throws {
        try await done { self.disableBackgroundDelivery(for: type, withCompletion: $0) }
    }

    // MARK: Authorization

    /// Always succeeds once the sheet was answered: whether reading was allowed stays hidden (R: H3).
    public func requestAuthorization(toShare typesToShare: Set<HKSampleType>?, read typesToRead: Set<HKObjectType>?,
                                     completion: @escaping @Sendable (Bool, Error?) -> Void) {
        rememberRequested(Array(typesToShare ?? []) + Array(typesToRead ?? []))
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
            case .workout(let workout)?: batch.workouts.append(workout)
            case .sample(let value)?: batch.samples.append(value)
            case nil:
                // A type PairSim does not store: refused as HealthKit refuses what it cannot take.
                runtime.report("unsupported", "HKHealthStore.save: PairSim does not store \(sample.sampleType.identifier) (docs/FIDELITY.md)")
                return runtime.completeLater {
                    completion(false, HKError(.errorInvalidArgument, userInfo: [NSLocalizedDescriptionKey: "PairSim does not store \(sample.sampleType.identifier)"]))
                }
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
            guard let sample = object as? HKSample, let core = sample.sampleType.core else { return nil }
            return DeletedObject(uuid: sample.uuid, type: core)
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


extension HKHealthStore {
    /// Whether asking for these types would show the authorization sheet: until the app asked for
    /// them once, `.shouldRequest`; then `.unnecessary` (remembered with the app's defaults, under
    /// a `PairSimKit.` key).
    public func getRequestStatusForAuthorization(toShare typesToShare: Set<HKSampleType>, read typesToRead: Set<HKObjectType>,
                                                 completion: @escaping @Sendable (HKAuthorizationRequestStatus, Error?) -> Void) {
        let asked = Set(AppDefaults.standard.stringArray(forKey: Self.requestedKey) ?? [])
        let wanted = Set(typesToShare.map(\.identifier)).union(typesToRead.map(\.identifier))
        let status: HKAuthorizationRequestStatus = wanted.isSubset(of: asked) ? .unnecessary : .shouldRequest
        runtime.completeLater { completion(status, nil) }
    }

    public func statusForAuthorizationRequest(toShare typesToShare: Set<HKSampleType>, read typesToRead: Set<HKObjectType>) async throws -> HKAuthorizationRequestStatus {
        await withCheckedContinuation { continuation in
            getRequestStatusForAuthorization(toShare: typesToShare, read: typesToRead) { status, _ in continuation.resume(returning: status) }
        }
    }

    static let requestedKey = "PairSimKit.authorizationRequested"

    /// Remembers the types an authorization request asked for.
    func rememberRequested(_ types: [HKObjectType]) {
        let asked = Set(AppDefaults.standard.stringArray(forKey: Self.requestedKey) ?? []).union(types.map(\.identifier))
        AppDefaults.standard.set(asked.sorted(), forKey: Self.requestedKey)
    }

    /// The units the user prefers for each type: HealthKit's metric ones here.
    public func preferredUnits(for quantityTypes: Set<HKQuantityType>, completion: @escaping @Sendable ([HKQuantityType: HKUnit], Error?) -> Void) {
        var units: [HKQuantityType: HKUnit] = [:]
        for type in quantityTypes { units[type] = HKUnit(from: type.defaultUnitString) }
        let answer = units
        runtime.completeLater { completion(answer, nil) }
    }

    public func preferredUnits(for quantityTypes: Set<HKQuantityType>) async throws -> [HKQuantityType: HKUnit] {
        await withCheckedContinuation { continuation in
            preferredUnits(for: quantityTypes) { units, _ in continuation.resume(returning: units) }
        }
    }

    /// The oldest date an app may read samples from: the start of emulated time.
    public func earliestPermittedSampleDate() -> Date { Date(timeIntervalSince1970: 0) }

    /// Turns background delivery off for every type PairSim models.
    public func disableAllBackgroundDelivery(completion: @escaping @Sendable (Bool, Error?) -> Void) {
        let types = SampleType.allCases.map { HKObjectType.of(.sample($0)) } + [HKObjectType.workoutType()]
        let remaining = Remaining(types.count)
        for type in types {
            disableBackgroundDelivery(for: type) { _, _ in if remaining.done() { completion(true, nil) } }
        }
    }

    public func disableAllBackgroundDelivery() async throws {
        try await done { self.disableAllBackgroundDelivery(completion: $0) }
    }
}

/// Counts answers down to the last one (on the app's executor).
final class Remaining: @unchecked Sendable {
    var count: Int
    init(_ count: Int) { self.count = count }
    func done() -> Bool {
        count -= 1
        return count == 0
    }
}
