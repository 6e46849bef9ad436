import Foundation
package import PairSimCore

/// Emulated time as the `Date`s HealthKit uses: the topology's epoch is 1 January 1970 00:00 UTC,
/// so dates read as time since the run began. Both drivers map time the same way.
extension Date {
    package init(_ instant: EmulatedInstant) { self.init(timeIntervalSince1970: TimeInterval(instant.milliseconds) / 1_000) }
    package var instant: EmulatedInstant { EmulatedInstant(milliseconds: Int64((timeIntervalSince1970 * 1_000).rounded())) }
}

/// Who wrote an object (`HKSource`): an app, by name and bundle identifier. PairSim's own apps
/// have `com.pairsim.app` (the phone app, `HKSource.default()` there) and
/// `com.pairsim.app.watchkitapp` (its watch app); another app named `strava` has `com.strava`.
public final class HKSource: Hashable, CustomStringConvertible, @unchecked Sendable {
    /// The app's name, e.g. `phone-app`, `watch-app`, `strava`.
    public let name: String
    public let bundleIdentifier: String

    init(name: String) {
        self.name = name
        bundleIdentifier = switch name {
        case ObjectSource.phoneApp.name: "com.pairsim.app"
        case ObjectSource.watchApp.name: "com.pairsim.app.watchkitapp"
        default: "com." + name.lowercased().map { $0.isLetter || $0.isNumber ? String($0) : "-" }.joined()
        }
    }

    /// The app's own sources, made once (immutable, so shared): every sample handed to an app
    /// made its source and revision anew, ~1 % of a simulated week (perf, `pairsim-bench simulate`).
    static let watchApp = HKSource(name: ObjectSource.watchApp.name)
    static let phoneApp = HKSource(name: ObjectSource.phoneApp.name)

    /// The source for a platform object's source.
    static func of(_ source: ObjectSource) -> HKSource {
        source == .watchApp ? watchApp : source == .phoneApp ? phoneApp : HKSource(name: source.name)
    }

    /// The source for objects this app saves (`HKSource.default()`).
    public static func `default`() -> HKSource { phoneApp }

    /// True for this app's own writes on the phone.
    /// PairSim's own: compare with `HKSource.default()` in Apple's way.
    public var isThisApp: Bool { name == ObjectSource.phoneApp.name }
    /// True for this app or its watch app (the app group, whose objects the app may delete).
    /// PairSim's own: the app or its watch app (whose objects it may delete).
    public var isAppGroup: Bool { ObjectSource(name: name).isOwnAppGroup }

    public static func == (lhs: HKSource, rhs: HKSource) -> Bool { lhs.bundleIdentifier == rhs.bundleIdentifier }
    public func hash(into hasher: inout Hasher) { hasher.combine(bundleIdentifier) }
    public var description: String { "\(name) (\(bundleIdentifier))" }
}

/// The source and version that wrote an object (`HKSourceRevision`).
public final class HKSourceRevision: Hashable, @unchecked Sendable {
    public let source: HKSource
    public let version: String?
    public let productType: String?
    public let operatingSystemVersion: OperatingSystemVersion

    init(source: HKSource) {
        self.source = source
        version = "1.0"
        productType = source.name == ObjectSource.watchApp.name ? "Watch7,1" : source.name == ObjectSource.phoneApp.name ? "iPhone16,1" : nil
        operatingSystemVersion = OperatingSystemVersion(majorVersion: 17, minorVersion: 0, patchVersion: 0)
    }

    static let watchApp = HKSourceRevision(source: .watchApp)
    static let phoneApp = HKSourceRevision(source: .phoneApp)

    /// The revision for `source`: the app's own, shared (see `HKSource.watchApp`).
    static func of(_ source: HKSource) -> HKSourceRevision {
        source === HKSource.watchApp ? watchApp : source === HKSource.phoneApp ? phoneApp : HKSourceRevision(source: source)
    }

    public static func == (lhs: HKSourceRevision, rhs: HKSourceRevision) -> Bool { lhs.source == rhs.source && lhs.version == rhs.version }
    public func hash(into hasher: inout Hasher) { hasher.combine(source) }
}

/// The device that produced an object (`HKDevice`). PairSim's objects name none (`device` is nil)
/// but those an app makes with one.
public final class HKDevice: Hashable, @unchecked Sendable {
    public let name: String?
    public let manufacturer: String?
    public let model: String?
    public let hardwareVersion: String?
    public let firmwareVersion: String?
    public let softwareVersion: String?
    public let localIdentifier: String?
    public let udiDeviceIdentifier: String?

    public init(name: String?, manufacturer: String?, model: String?, hardwareVersion: String?, firmwareVersion: String?,
                softwareVersion: String?, localIdentifier: String?, udiDeviceIdentifier: String?) {
        self.name = name
        self.manufacturer = manufacturer
        self.model = model
        self.hardwareVersion = hardwareVersion
        self.firmwareVersion = firmwareVersion
        self.softwareVersion = softwareVersion
        self.localIdentifier = localIdentifier
        self.udiDeviceIdentifier = udiDeviceIdentifier
    }

    /// The device the app runs on.
    public static func local() -> HKDevice {
        HKDevice(name: "iPhone", manufacturer: "Apple Inc.", model: "iPhone", hardwareVersion: "iPhone16,1", firmwareVersion: nil,
                 softwareVersion: "17.0", localIdentifier: nil, udiDeviceIdentifier: nil)
    }

    public static func == (lhs: HKDevice, rhs: HKDevice) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// Any HealthKit object (`HKObject`). Equal when they are the same object (same UUID).
public class HKObject: Hashable, CustomStringConvertible, @unchecked Sendable {
    public let uuid: UUID
    /// Who wrote it, and in which version.
    public let sourceRevision: HKSourceRevision
    /// The device that produced it, when the app that saved it said.
    public let device: HKDevice?
    /// What the app that saved it attached (`HKMetadataKey…` and its own keys). PairSim keeps it on
    /// the objects an app makes; the platform does not store it (docs/FIDELITY.md).
    public let metadata: [String: Any]?

    init(uuid: UUID, source: HKSource, device: HKDevice? = nil, metadata: [String: Any]? = nil) {
        self.uuid = uuid
        sourceRevision = HKSourceRevision.of(source)
        self.device = device
        self.metadata = metadata
    }

    @available(*, deprecated, message: "Use sourceRevision")
    public var source: HKSource { sourceRevision.source }

    public static func == (lhs: HKObject, rhs: HKObject) -> Bool { lhs.uuid == rhs.uuid }
    public func hash(into hasher: inout Hasher) { hasher.combine(uuid) }
    public var description: String { "\(uuid.uuidString) \(sourceRevision.source.name)" }
}

/// An object with a type and a time span (`HKSample`).
public class HKSample: HKObject, @unchecked Sendable {
    public let sampleType: HKSampleType
    public let startDate: Date
    public let endDate: Date

    init(type: HKSampleType, start: Date, end: Date, uuid: UUID, source: HKSource, device: HKDevice? = nil, metadata: [String: Any]? = nil) {
        sampleType = type
        startDate = start
        endDate = end
        super.init(uuid: uuid, source: source, device: device, metadata: metadata)
    }

    /// True for a sample without an end (never, for the types PairSim stores).
    public var hasUndeterminedDuration: Bool { false }

    public override var description: String {
        "\(uuid.uuidString) \(sampleType.identifier) \(startDate) - \(endDate) \(sourceRevision.source.name)"
    }

    /// The platform's value for this sample (conversion back across the boundary); nil for a
    /// type PairSim does not store.
    package var core: Either? {
        if let workout = self as? HKWorkout { return .workout(workout.coreWorkout) }
        return (self as? HKCoreSample)?.coreSample.map { .sample($0) }
    }

    package enum Either { case workout(Workout), sample(HealthSample) }

    /// A public object for a core sample.
    package static func of(_ sample: HealthSample) -> HKSample {
        sample.type == .sleepAnalysis ? HKCategorySample(core: sample) : HKQuantitySample(core: sample)
    }
}

protocol HKCoreSample { var coreSample: HealthSample? { get } }

/// A measured amount (`HKQuantitySample`), e.g. an HRV reading.
public final class HKQuantitySample: HKSample, HKCoreSample, @unchecked Sendable {
    public let quantityType: HKQuantityType
    public let quantity: HKQuantity
    let coreSample: HealthSample?

    /// `HKQuantitySample(type:quantity:start:end:)`: a sample the app may save.
    public convenience init(type: HKQuantityType, quantity: HKQuantity, start: Date, end: Date) {
        self.init(type: type, quantity: quantity, start: start, end: end, device: nil, metadata: nil)
    }

    public convenience init(type: HKQuantityType, quantity: HKQuantity, start: Date, end: Date, metadata: [String: Any]?) {
        self.init(type: type, quantity: quantity, start: start, end: end, device: nil, metadata: metadata)
    }

    public init(type: HKQuantityType, quantity: HKQuantity, start: Date, end: Date, device: HKDevice?, metadata: [String: Any]?) {
        let uuid = AppRuntime.newUUID()
        if case .sample(let sampleType)? = type.core {
            let value = quantity.doubleValue(for: HKUnit(from: sampleType.unit == "fraction" ? "%" : sampleType.unit))
            let stored = sampleType.unit == "fraction" ? value / 100 : value
            coreSample = HealthSample(uuid: uuid, type: sampleType, start: start.instant, end: end.instant, value: stored, source: .phoneApp)
        } else {
            // A type PairSim does not store: the object exists, saving it is refused.
            coreSample = nil
        }
        quantityType = type
        self.quantity = quantity
        super.init(type: type, start: start, end: end, uuid: uuid, source: .default(), device: device, metadata: metadata)
    }

    /// Samples combined into this one (always 1 here).
    public var count: Int { 1 }

    package init(core: HealthSample) {
        coreSample = core
        guard let (type, unit, percent) = Self.coreTypes[core.type.index] else {
            preconditionFailure("Invalid state: \(core.type) is not a quantity type")
        }
        quantityType = type
        quantity = HKQuantity(unit: unit, doubleValue: percent ? core.value * 100 : core.value)
        super.init(type: quantityType, start: Date(core.start), end: Date(core.end), uuid: core.uuid, source: .of(core.source))
    }

    /// Each stored quantity type's `HKQuantityType` and unit, by `SampleType.index`, made once: a
    /// live builder is handed a sample every few seconds, and finding the identifier and the unit by
    /// name for each was ~3 % of a simulated week (perf, `pairsim-bench simulate`). A type is
    /// immutable, so every sample of one may share it. Percentages are stored as fractions.
    static let coreTypes: [(type: HKQuantityType, unit: HKUnit, percent: Bool)?] = SampleType.allCases.enumerated().map { offset, type in
        precondition(type.index == offset, "Invalid state: SampleType.index of \(type) is not its place in allCases")
        guard HKQuantityTypeIdentifier.modelled.contains(where: { $0.0 == type }) else { return nil }
        let percent = type.unit == "fraction"
        return (HKQuantityType(HKQuantityTypeIdentifier(type)), HKUnit(from: percent ? "%" : type.unit), percent)
    }
}

/// A categorised span (`HKCategorySample`), e.g. a sleep stage.
public final class HKCategorySample: HKSample, HKCoreSample, @unchecked Sendable {
    public let categoryType: HKCategoryType
    /// The category's raw value (`HKCategoryValueSleepAnalysis`).
    public let value: Int
    let coreSample: HealthSample?

    public convenience init(type: HKCategoryType, value: Int, start: Date, end: Date) {
        self.init(type: type, value: value, start: start, end: end, device: nil, metadata: nil)
    }

    public convenience init(type: HKCategoryType, value: Int, start: Date, end: Date, metadata: [String: Any]?) {
        self.init(type: type, value: value, start: start, end: end, device: nil, metadata: metadata)
    }

    public init(type: HKCategoryType, value: Int, start: Date, end: Date, device: HKDevice?, metadata: [String: Any]?) {
        let uuid = AppRuntime.newUUID()
        coreSample = type.core == .sample(.sleepAnalysis)
            ? HealthSample(uuid: uuid, type: .sleepAnalysis, start: start.instant, end: end.instant, value: Double(value), source: .phoneApp) : nil
        categoryType = type
        self.value = value
        super.init(type: type, start: start, end: end, uuid: uuid, source: .default(), device: device, metadata: metadata)
    }

    package init(core: HealthSample) {
        coreSample = core
        categoryType = HKCategoryType(.sleepAnalysis)
        value = Int(core.value)
        super.init(type: categoryType, start: Date(core.start), end: Date(core.end), uuid: core.uuid, source: .of(core.source))
    }
}

/// `HKCategoryValueSleepAnalysis`.
public enum HKCategoryValueSleepAnalysis: Int, Sendable {
    case inBed = 0, asleepUnspecified, awake, asleepCore, asleepDeep, asleepREM
}

/// A workout (`HKWorkout`).
public final class HKWorkout: HKSample, @unchecked Sendable {
    public let workoutActivityType: HKWorkoutActivityType
    /// Active time in seconds (pauses excluded).
    public let duration: TimeInterval
    /// Active energy, when measured (`totalEnergyBurned`).
    public let totalEnergyBurned: HKQuantity?
    let coreWorkout: Workout

    /// A workout the app may save (logged by hand).
    /// Differs: Apple's are `init(activityType:start:end:)` and `init(activityType:start:end:duration:totalEnergyBurned:totalDistance:metadata:)` (both deprecated for `HKWorkoutBuilder`, not declared); this one takes the energy only, the duration is end − start.
    public init(activityType: HKWorkoutActivityType, start: Date, end: Date, totalEnergyBurned: HKQuantity? = nil) {
        coreWorkout = Workout(uuid: AppRuntime.newUUID(), activity: activityType.coreName, start: start.instant,
                              end: end.instant, activeDuration: end.instant - start.instant,
                              activeEnergy: totalEnergyBurned?.doubleValue(for: .kilocalorie()), source: .phoneApp)
        workoutActivityType = activityType
        duration = end.timeIntervalSince(start)
        self.totalEnergyBurned = totalEnergyBurned
        super.init(type: HKWorkoutType(), start: start, end: end, uuid: coreWorkout.uuid, source: .default())
    }

    package init(core: Workout) {
        coreWorkout = core
        workoutActivityType = HKWorkoutActivityType(coreName: core.activity)
        duration = TimeInterval(core.activeDuration.milliseconds) / 1_000
        totalEnergyBurned = core.activeEnergy.map { HKQuantity(unit: .kilocalorie(), doubleValue: $0) }
        super.init(type: HKWorkoutType(), start: Date(core.start), end: Date(core.end), uuid: core.uuid, source: .of(core.source))
    }

    /// The activity's name as PairSim's watch writes it, e.g. `running`.
    /// PairSim's own: the activity as PairSim's watch names it (`running`).
    public var activityName: String { coreWorkout.activity }
}

/// A deletion seen by an anchored query (`HKDeletedObject`).
public final class HKDeletedObject: Hashable, @unchecked Sendable {
    public let uuid: UUID
    /// What the deleted object's app attached (PairSim keeps none: docs/FIDELITY.md).
    public let metadata: [String: Any]? = nil
    init(uuid: UUID) { self.uuid = uuid }
    public static func == (lhs: HKDeletedObject, rhs: HKDeletedObject) -> Bool { lhs.uuid == rhs.uuid }
    public func hash(into hasher: inout Hasher) { hasher.combine(uuid) }
}

/// Where an anchored query left off (`HKQueryAnchor`). Keep it to fetch only what changed next
/// time: archive it with `NSKeyedArchiver.archivedData(withRootObject:requiringSecureCoding: true)`
/// and read it back with `NSKeyedUnarchiver.unarchivedObject(ofClass: HKQueryAnchor.self, from:)`,
/// as HealthKit code does (it is `NSSecureCoding`).
public final class HKQueryAnchor: NSObject, NSSecureCoding, @unchecked Sendable {
    /// The anchor's value (PairSim's; HealthKit's anchors are opaque).
    let value: Int64

    /// An anchor from a value an earlier anchor had (HealthKit's legacy integer anchors).
    public convenience init(fromValue value: Int) { self.init(Int64(value)) }

    init(_ value: Int64) {
        self.value = value
        super.init()
    }

    /// An anchor after everything there is now (larger than any the store gives; below the
    /// partial-page mark): a query from it reports only what comes later.
    static let latest = HKQueryAnchor((1 << 62) - 1)

    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) { coder.encode(value, forKey: "HKQueryAnchorValue") }

    public required init?(coder: NSCoder) {
        guard coder.containsValue(forKey: "HKQueryAnchorValue") else { return nil }
        value = coder.decodeInt64(forKey: "HKQueryAnchorValue")
        super.init()
    }

    public override func isEqual(_ object: Any?) -> Bool { (object as? HKQueryAnchor)?.value == value }
    public override var hash: Int { value.hashValue }
    public override var description: String { "HKQueryAnchor(\(value))" }
}
