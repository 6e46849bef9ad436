import Foundation
import PairSimKit

/// A second app, written as a developer would on PairSimKit (R: A4): instead of refreshing whole
/// snapshots, it keeps an `HKQueryAnchor` per type (in its user defaults, so it survives the
/// process) and, on every observer callback, fetches only what changed with an anchored query
/// (seed 000's future item). It notifies each new workout from the watch, once.
///
/// Compare it with the reference app on the same scenario and seed:
/// `topology simulate FILE --app delta-sync --report a` vs `--app reference --report b`, then
/// `topology compare a b`.
public final class DeltaSyncApp: PairSimApp {
    public struct Config: Sendable {
        /// `enableBackgroundDelivery` per type, by PairSim type name.
        public var frequencies: [String: HKUpdateFrequency] = [
            "heartRateVariabilitySDNN": .immediate, "restingHeartRate": .immediate, "sleepAnalysis": .immediate,
            "stepCount": .hourly, "bodyMass": .hourly, "bodyFatPercentage": .hourly, "bodyMassIndex": .hourly, "workout": .hourly,
        ]
        public init() {}
    }

    public static let actions: [UserActionSpec] = [
        UserActionSpec("pull-to-refresh", "[tab]", "fetch what changed for every type (the tab is ignored: one model feeds all views)"),
        UserActionSpec("show", "<type>", "what the app knows of a type: objects, latest value, anchor"),
    ]

    public static func registration(_ config: Config = Config()) -> AppRegistration {
        AppRegistration(name: "delta-sync", summary: "anchored queries per type: fetches only what changed",
                        actions: actions, make: { DeltaSyncApp(config: config) })
    }

    /// What the app holds for one type.
    struct Model {
        var objects: [UUID: HKSample] = [:]
        var latest: HKSample? {
            objects.values.max { ($0.endDate, $0.uuid.uuidString) < ($1.endDate, $1.uuid.uuidString) }
        }
    }

    /// What the app calls the activities the watch records.
    static let activityNames: [HKWorkoutActivityType: String] = [
        .running: "running", .walking: "walking", .cycling: "cycling", .swimming: "swimming", .rowing: "rowing",
        .highIntensityIntervalTraining: "hiit", .traditionalStrengthTraining: "strength", .yoga: "yoga",
    ]

    static let types: [HKSampleType] = [
        HKQuantityType(.heartRateVariabilitySDNN), HKQuantityType(.restingHeartRate), HKCategoryType(.sleepAnalysis),
        HKQuantityType(.stepCount), HKQuantityType(.bodyMass), HKQuantityType(.bodyFatPercentage),
        HKQuantityType(.bodyMassIndex), HKObjectType.workoutType(),
    ]

    let config: Config
    let store = HKHealthStore()
    var models: [String: Model] = [:]
    var onScreen = false
    /// Fetches in flight per type: a callback during one joins it.
    var fetching: Set<String> = []

    public init(config: Config) { self.config = config }

    public func didFinishLaunching(_ options: LaunchOptions) {
        for type in Self.types {
            if let frequency = config.frequencies[type.name] {
                store.enableBackgroundDelivery(for: type, frequency: frequency) { _, _ in }
            }
            let query = HKObserverQuery(sampleType: type, predicate: nil) { [weak self] _, completion, _ in
                guard let self else { return completion() }
                Task { await self.fetchChanges(type); completion() }
            }
            store.execute(query)
        }
    }

    public func scenePhaseDidChange(to phase: AppScenePhase) {
        onScreen = phase != .background
    }

    /// The anchored query for `type` from its stored anchor; applies what changed.
    func fetchChanges(_ type: HKSampleType) async {
        guard fetching.insert(type.name).inserted else { return }
        defer { fetching.remove(type.name) }
        let key = "anchor." + type.name
        // The anchor is kept as HealthKit code keeps it: archived with NSKeyedArchiver.
        let anchor = AppDefaults.standard.data(forKey: key).flatMap { try? NSKeyedUnarchiver.unarchivedObject(ofClass: HKQueryAnchor.self, from: $0) }
        let result: HKAnchoredObjectQueryDescriptor<HKSample>.Result
        do {
            result = try await HKAnchoredObjectQueryDescriptor(predicates: [.sample(type: type)], anchor: anchor).result(for: store)
        } catch {
            AppLog.event("delta.failed", ["type": .string(type.name), "reason": .string("\(error)")], warning: true)
            return
        }
        AppLog.count(onScreen ? "refresh.observer" : "refresh.backgroundDelivery")
        var model = models[type.name] ?? Model()
        for sample in result.addedSamples { model.objects[sample.uuid] = sample }
        for deleted in result.deletedObjects { model.objects[deleted.uuid] = nil }
        models[type.name] = model
        if let archived = try? NSKeyedArchiver.archivedData(withRootObject: result.newAnchor, requiringSecureCoding: true) {
            AppDefaults.standard.set(archived, forKey: key)
        }
        AppLog.event("delta.fetched", ["type": .string(type.name), "added": .int(result.addedSamples.count),
                                       "deleted": .int(result.deletedObjects.count), "anchor": .string("\(result.newAnchor)"),
                                       "objects": .int(model.objects.count)])
        // A first fetch (no anchor yet) only learns what exists: nothing is "new".
        guard anchor != nil else { return }
        for case let workout as HKWorkout in result.addedSamples
        where workout.sourceRevision.source.bundleIdentifier.hasPrefix(HKSource.default().bundleIdentifier) {
            let content = UNMutableNotificationContent()
            content.title = "Workout completed"
            content.body = "\(Self.activityNames[workout.workoutActivityType] ?? "workout") saved — open the app to see it".capitalizedFirst
            content.userInfo = ["uuid": workout.uuid.uuidString]
            UNUserNotificationCenter.current().add(UNNotificationRequest(identifier: workout.uuid.uuidString, content: content))
        }
    }

    public func perform(_ action: UserAction) async throws -> String {
        switch action.verb {
        case "pull-to-refresh":
            for type in Self.types { await fetchChanges(type) }
            return "fetched changes for \(Self.types.count) types"
        case "show":
            guard let name = action.argument(0), let type = Self.types.first(where: { $0.shortName == name || $0.name == name }) else {
                throw AppError("show: expected a type (\(Self.types.map(\.shortName).joined(separator: ", ")))")
            }
            let model = models[type.name] ?? Model()
            let latest = model.latest.map { sample -> String in
                if let quantity = (sample as? HKQuantitySample)?.quantity { return "\(quantity) at \(AppTime.text(sample.endDate))" }
                return "\(sample.uuid.uuidString) at \(AppTime.text(sample.endDate))"
            } ?? "none"
            let anchor = AppDefaults.standard.data(forKey: "anchor." + type.name)
                .flatMap { try? NSKeyedUnarchiver.unarchivedObject(ofClass: HKQueryAnchor.self, from: $0) }
            return "\(type.name): \(model.objects.count) objects, latest \(latest), anchor \(anchor.map { "\($0)" } ?? "none")"
        default:
            throw AppError("unknown action \(action.verb)")
        }
    }

    public func status() -> [String] {
        Self.types.map { type in "\(type.shortName): \(models[type.name]?.objects.count ?? 0) objects" }
    }
}

extension String {
    /// The first letter upper-cased, the rest as it is.
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
