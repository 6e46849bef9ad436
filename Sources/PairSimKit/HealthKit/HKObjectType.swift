import Foundation
package import PairSimCore

/// A kind of HealthKit data (`HKObjectType`). Compare and hash by identifier.
public class HKObjectType: Hashable, CustomStringConvertible, @unchecked Sendable {
    /// HealthKit's identifier, e.g. `HKQuantityTypeIdentifierHeartRateVariabilitySDNN`.
    public let identifier: String
    package let core: ObjectType

    package init(core: ObjectType, identifier: String) {
        self.core = core
        self.identifier = identifier
    }

    /// PairSim's name for the type in logs and topologies, e.g. `heartRateVariabilitySDNN`, `workout`.
    public var name: String { core.name }
    /// The short name commands use, e.g. `hrv`, `steps`, `workout`.
    public var shortName: String { core.shortName }

    public static func == (lhs: HKObjectType, rhs: HKObjectType) -> Bool { lhs.identifier == rhs.identifier }
    public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }
    public var description: String { identifier }

    /// `HKObjectType.quantityType(forIdentifier:)`: nil for a type PairSim does not model.
    public static func quantityType(forIdentifier identifier: HKQuantityTypeIdentifier) -> HKQuantityType? {
        HKQuantityType(identifier)
    }

    /// `HKObjectType.categoryType(forIdentifier:)`.
    public static func categoryType(forIdentifier identifier: HKCategoryTypeIdentifier) -> HKCategoryType? {
        HKCategoryType(identifier)
    }

    /// `HKObjectType.workoutType()`.
    public static func workoutType() -> HKWorkoutType { HKWorkoutType() }

    /// The public type for a core type (the platform's answers carry these).
    package static func of(_ core: ObjectType) -> HKSampleType {
        switch core {
        case .workout: HKWorkoutType()
        case .sample(.sleepAnalysis): HKCategoryType(.sleepAnalysis)!
        case .sample(let type): HKQuantityType(HKQuantityTypeIdentifier(type))!
        }
    }
}

/// A type whose objects are samples with a start and end (`HKSampleType`).
public class HKSampleType: HKObjectType, @unchecked Sendable {}

/// `HKQuantityTypeIdentifier` for the types PairSim models.
public struct HKQuantityTypeIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let heartRate = Self(rawValue: "HKQuantityTypeIdentifierHeartRate")
    public static let heartRateVariabilitySDNN = Self(rawValue: "HKQuantityTypeIdentifierHeartRateVariabilitySDNN")
    public static let restingHeartRate = Self(rawValue: "HKQuantityTypeIdentifierRestingHeartRate")
    public static let stepCount = Self(rawValue: "HKQuantityTypeIdentifierStepCount")
    public static let bodyMass = Self(rawValue: "HKQuantityTypeIdentifierBodyMass")
    public static let bodyFatPercentage = Self(rawValue: "HKQuantityTypeIdentifierBodyFatPercentage")
    public static let bodyMassIndex = Self(rawValue: "HKQuantityTypeIdentifierBodyMassIndex")
    public static let activeEnergyBurned = Self(rawValue: "HKQuantityTypeIdentifierActiveEnergyBurned")

    static let table: [(SampleType, HKQuantityTypeIdentifier)] = [
        (.heartRate, .heartRate), (.heartRateVariabilitySDNN, .heartRateVariabilitySDNN), (.restingHeartRate, .restingHeartRate),
        (.stepCount, .stepCount), (.bodyMass, .bodyMass), (.bodyFatPercentage, .bodyFatPercentage),
        (.bodyMassIndex, .bodyMassIndex), (.activeEnergyBurned, .activeEnergyBurned),
    ]

    package init(_ core: SampleType) { self = Self.table.first { $0.0 == core }!.1 }
    package var core: SampleType? { Self.table.first { $0.1 == self }?.0 }
}

/// `HKCategoryTypeIdentifier` for the types PairSim models.
public struct HKCategoryTypeIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let sleepAnalysis = Self(rawValue: "HKCategoryTypeIdentifierSleepAnalysis")
}

/// A quantity type (`HKQuantityType`), e.g. `HKQuantityType(.stepCount)`.
public final class HKQuantityType: HKSampleType, @unchecked Sendable {
    /// `HKQuantityType(_:)` (iOS 15): nil here for a type PairSim does not model.
    public init?(_ identifier: HKQuantityTypeIdentifier) {
        guard let core = identifier.core else { return nil }
        super.init(core: .sample(core), identifier: identifier.rawValue)
    }
}

/// A category type (`HKCategoryType`), e.g. `HKCategoryType(.sleepAnalysis)`.
public final class HKCategoryType: HKSampleType, @unchecked Sendable {
    public init?(_ identifier: HKCategoryTypeIdentifier) {
        guard identifier == .sleepAnalysis else { return nil }
        super.init(core: .sample(.sleepAnalysis), identifier: identifier.rawValue)
    }
}

/// The workout type (`HKWorkoutType`).
public final class HKWorkoutType: HKSampleType, @unchecked Sendable {
    public init() { super.init(core: .workout, identifier: "HKWorkoutTypeIdentifier") }
}

/// `HKUpdateFrequency`: the most often HealthKit may wake the app for a type.
public enum HKUpdateFrequency: Int, Hashable, Sendable {
    case immediate = 1, hourly, daily, weekly

    package var core: DeliveryFrequency {
        switch self {
        case .immediate: .immediate
        case .hourly: .hourly
        case .daily: .daily
        case .weekly: .weekly
        }
    }
}

/// `HKAuthorizationStatus`: about *sharing* (writing) only — read permission is never revealed.
public enum HKAuthorizationStatus: Int, Hashable, Sendable {
    case notDetermined, sharingDenied, sharingAuthorized
}
