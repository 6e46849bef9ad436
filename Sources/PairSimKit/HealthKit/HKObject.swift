import Foundation
package import PairSimCore

/// Emulated time as the `Date`s HealthKit uses: the topology's epoch is 1 January 1970 00:00 UTC,
/// so dates read as time since the run began. Both drivers map time the same way.
extension Date {
    package init(_ instant: EmulatedInstant) { self.init(timeIntervalSince1970: TimeInterval(instant.milliseconds) / 1_000) }
    package var instant: EmulatedInstant { EmulatedInstant(milliseconds: Int64((timeIntervalSince1970 * 1_000).rounded())) }
}

/// A unit (`HKUnit`) for the types PairSim models. PairSim stores each type in one unit
/// (`count/min`, `ms`, `count`, `kg`, `%`, `kcal`); asking for a value in another unit of the same
/// kind converts, across kinds is a programming error.
public struct HKUnit: Hashable, Sendable, CustomStringConvertible {
    /// The unit's HealthKit string, e.g. `count/min`.
    public let unitString: String
    let scale: Double

    public init(from unitString: String) {
        self.unitString = unitString
        scale = ["g": 0.001, "lb": 0.45359237, "s": 1_000, "Cal": 1, "kJ": 0.239006][unitString] ?? 1
    }

    public static func count() -> HKUnit { HKUnit(from: "count") }
    public static func minute() -> HKUnit { HKUnit(from: "min") }
    public static func secondUnit(with prefix: HKMetricPrefix) -> HKUnit { HKUnit(from: prefix == .milli ? "ms" : "s") }
    public static func gramUnit(with prefix: HKMetricPrefix) -> HKUnit { HKUnit(from: prefix == .kilo ? "kg" : "g") }
    public static func percent() -> HKUnit { HKUnit(from: "%") }
    public static func kilocalorie() -> HKUnit { HKUnit(from: "kcal") }
    public static func largeCalorie() -> HKUnit { HKUnit(from: "Cal") }
    public static func pound() -> HKUnit { HKUnit(from: "lb") }

    /// `count()/minute()` and the like.
    public func unitDivided(by other: HKUnit) -> HKUnit { HKUnit(from: "\(unitString)/\(other.unitString)") }
    public var description: String { unitString }
}

/// Metric prefixes for `HKUnit`.
public enum HKMetricPrefix: Sendable { case none, milli, kilo }

/// An amount with a unit (`HKQuantity`).
public struct HKQuantity: Hashable, Sendable, CustomStringConvertible {
    let value: Double
    let unit: HKUnit

    public init(unit: HKUnit, doubleValue: Double) {
        self.unit = unit
        value = doubleValue
    }

    /// The amount in `unit`.
    public func doubleValue(for unit: HKUnit) -> Double { value * self.unit.scale / unit.scale }
    public var description: String { "\(value) \(unit)" }
}

/// Who wrote an object (`HKSource`).
public struct HKSource: Hashable, Sendable {
    /// The app's name, e.g. `phone-app`, `watch-app`, `strava`.
    public let name: String
    /// True for this app's own writes on the phone.
    public var isThisApp: Bool { name == ObjectSource.phoneApp.name }
    /// True for this app or its watch app (the app group, whose objects the app may delete).
    public var isAppGroup: Bool { ObjectSource(name: name).isOwnAppGroup }
}

/// Any HealthKit object (`HKObject`).
public class HKObject: Hashable, @unchecked Sendable {
    public let uuid: UUID
    /// Who wrote it (`sourceRevision.source`).
    public let source: HKSource

    init(uuid: UUID, source: HKSource) {
        self.uuid = uuid
        self.source = source
    }

    public static func == (lhs: HKObject, rhs: HKObject) -> Bool { lhs.uuid == rhs.uuid }
    public func hash(into hasher: inout Hasher) { hasher.combine(uuid) }
}

/// An object with a type and a time span (`HKSample`).
public class HKSample: HKObject, @unchecked Sendable {
    public let sampleType: HKSampleType
    public let startDate: Date
    public let endDate: Date

    init(type: HKSampleType, start: Date, end: Date, uuid: UUID, source: HKSource) {
        sampleType = type
        startDate = start
        endDate = end
        super.init(uuid: uuid, source: source)
    }

    /// The platform's value for this sample (conversion back across the boundary).
    package var core: Either {
        if let workout = self as? HKWorkout { return .workout(workout.coreWorkout) }
        return .sample((self as! HKCoreSample).coreSample)
    }

    package enum Either { case workout(Workout), sample(HealthSample) }

    /// A public object for a core sample.
    package static func of(_ sample: HealthSample) -> HKSample {
        sample.type == .sleepAnalysis ? HKCategorySample(core: sample) : HKQuantitySample(core: sample)
    }
}

protocol HKCoreSample { var coreSample: HealthSample { get } }

/// A measured amount (`HKQuantitySample`), e.g. an HRV reading.
public final class HKQuantitySample: HKSample, HKCoreSample, @unchecked Sendable {
    public let quantityType: HKQuantityType
    public let quantity: HKQuantity
    let coreSample: HealthSample

    /// `HKQuantitySample(type:quantity:start:end:)`: a sample the app may save.
    public init(type: HKQuantityType, quantity: HKQuantity, start: Date, end: Date) {
        let sampleType: SampleType
        if case .sample(let t) = type.core { sampleType = t } else { preconditionFailure("Invalid state: \(type) is not a quantity type") }
        let value = quantity.doubleValue(for: HKUnit(from: sampleType.unit == "fraction" ? "%" : sampleType.unit))
        let stored = sampleType.unit == "fraction" ? value / 100 : value
        coreSample = HealthSample(uuid: AppRuntime.newUUID(), type: sampleType, start: start.instant, end: end.instant, value: stored, source: .phoneApp)
        quantityType = type
        self.quantity = quantity
        super.init(type: type, start: start, end: end, uuid: coreSample.uuid, source: HKSource(name: ObjectSource.phoneApp.name))
    }

    package init(core: HealthSample) {
        coreSample = core
        quantityType = HKQuantityType(HKQuantityTypeIdentifier(core.type))!
        let unit = HKUnit(from: core.type.unit == "fraction" ? "%" : core.type.unit)
        quantity = HKQuantity(unit: unit, doubleValue: core.type.unit == "fraction" ? core.value * 100 : core.value)
        super.init(type: quantityType, start: Date(core.start), end: Date(core.end), uuid: core.uuid, source: HKSource(name: core.source.name))
    }
}

/// A categorised span (`HKCategorySample`), e.g. a sleep stage.
public final class HKCategorySample: HKSample, HKCoreSample, @unchecked Sendable {
    public let categoryType: HKCategoryType
    /// The category's raw value (`HKCategoryValueSleepAnalysis`).
    public let value: Int
    let coreSample: HealthSample

    public init(type: HKCategoryType, value: Int, start: Date, end: Date) {
        coreSample = HealthSample(uuid: AppRuntime.newUUID(), type: .sleepAnalysis, start: start.instant, end: end.instant, value: Double(value), source: .phoneApp)
        categoryType = type
        self.value = value
        super.init(type: type, start: start, end: end, uuid: coreSample.uuid, source: HKSource(name: ObjectSource.phoneApp.name))
    }

    package init(core: HealthSample) {
        coreSample = core
        categoryType = HKCategoryType(.sleepAnalysis)!
        value = Int(core.value)
        super.init(type: categoryType, start: Date(core.start), end: Date(core.end), uuid: core.uuid, source: HKSource(name: core.source.name))
    }
}

/// `HKCategoryValueSleepAnalysis`.
public enum HKCategoryValueSleepAnalysis: Int, Sendable {
    case inBed = 0, asleepUnspecified, awake, asleepCore, asleepDeep, asleepREM
}

/// `HKWorkoutActivityType` for the activities PairSim's watch offers.
public enum HKWorkoutActivityType: String, Hashable, Sendable, CaseIterable {
    case running, walking, cycling, swimming, rowing
    case highIntensityIntervalTraining = "hiit"
    case traditionalStrengthTraining = "strength"
    case yoga
    /// An activity PairSim does not name.
    case other
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
    public init(activityType: HKWorkoutActivityType, start: Date, end: Date, totalEnergyBurned: HKQuantity? = nil) {
        coreWorkout = Workout(uuid: AppRuntime.newUUID(), activity: activityType == .other ? "other" : activityType.rawValue, start: start.instant,
                              end: end.instant, activeDuration: end.instant - start.instant,
                              activeEnergy: totalEnergyBurned?.doubleValue(for: .kilocalorie()), source: .phoneApp)
        workoutActivityType = activityType
        duration = end.timeIntervalSince(start)
        self.totalEnergyBurned = totalEnergyBurned
        super.init(type: HKWorkoutType(), start: start, end: end, uuid: coreWorkout.uuid, source: HKSource(name: ObjectSource.phoneApp.name))
    }

    package init(core: Workout) {
        coreWorkout = core
        workoutActivityType = HKWorkoutActivityType(rawValue: core.activity) ?? .other
        duration = TimeInterval(core.activeDuration.milliseconds) / 1_000
        totalEnergyBurned = core.activeEnergy.map { HKQuantity(unit: .kilocalorie(), doubleValue: $0) }
        super.init(type: HKWorkoutType(), start: Date(core.start), end: Date(core.end), uuid: core.uuid, source: HKSource(name: core.source.name))
    }

    /// The activity's name as PairSim's watch writes it, e.g. `running`.
    public var activityName: String { coreWorkout.activity }
}

/// A deletion seen by an anchored query (`HKDeletedObject`).
public final class HKDeletedObject: Hashable, @unchecked Sendable {
    public let uuid: UUID
    init(uuid: UUID) { self.uuid = uuid }
    public static func == (lhs: HKDeletedObject, rhs: HKDeletedObject) -> Bool { lhs.uuid == rhs.uuid }
    public func hash(into hasher: inout Hasher) { hasher.combine(uuid) }
}

/// Where an anchored query left off (`HKQueryAnchor`). Keep it (e.g. in `AppDefaults`) to fetch
/// only what changed next time.
public final class HKQueryAnchor: Hashable, @unchecked Sendable, CustomStringConvertible {
    /// The anchor's value; store it and rebuild with `init(fromValue:)`.
    public let value: Int64
    public init(fromValue value: Int64) { self.value = value }
    public static func == (lhs: HKQueryAnchor, rhs: HKQueryAnchor) -> Bool { lhs.value == rhs.value }
    public func hash(into hasher: inout Hasher) { hasher.combine(value) }
    public var description: String { "HKQueryAnchor(\(value))" }
}
