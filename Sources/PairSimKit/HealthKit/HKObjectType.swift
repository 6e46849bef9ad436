import Foundation
package import PairSimCore

/// A kind of HealthKit data (`HKObjectType`). Compare and hash by identifier.
///
/// Every type HealthKit names can be named here — `HKQuantityType(.oxygenSaturation)` compiles and
/// can be requested — but PairSim stores only the types it models (`core` is nil for the rest):
/// saving one fails with `errorInvalidArgument`, a query of one finds nothing, and
/// docs/FIDELITY.md lists them.
public class HKObjectType: Hashable, CustomStringConvertible, @unchecked Sendable {
    /// HealthKit's identifier, e.g. `HKQuantityTypeIdentifierHeartRateVariabilitySDNN`.
    public let identifier: String
    /// The platform's type, for the types PairSim models.
    package let core: ObjectType?
    /// The identifier's FNV-1a hash, what `hash(into:)` feeds the hasher: a live builder looks
    /// types up in sets and dictionaries several times per sensor reading, and hashing the
    /// 30-odd bytes of the identifier each time was ~2 % of a simulated week (perf,
    /// `pairsim-bench simulate`). Equal identifiers give equal values, so it agrees with `==`.
    private let identifierHash: UInt64

    package init(core: ObjectType?, identifier: String) {
        self.core = core
        self.identifier = identifier
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in identifier.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        identifierHash = hash
    }

    /// PairSim's name for the type in logs and topologies, e.g. `heartRateVariabilitySDNN`, `workout`;
    /// HealthKit's identifier for a type PairSim does not model.
    /// PairSim's own: the type's name in PairSim's logs, commands and topologies.
    public var name: String { core?.name ?? identifier }
    /// The short name commands use, e.g. `hrv`, `steps`, `workout`.
    /// PairSim's own: the short name commands take.
    public var shortName: String { core?.shortName ?? identifier }

    public static func == (lhs: HKObjectType, rhs: HKObjectType) -> Bool { lhs === rhs || lhs.identifier == rhs.identifier }
    public func hash(into hasher: inout Hasher) { hasher.combine(identifierHash) }
    public var description: String { identifier }

    public static func quantityType(forIdentifier identifier: HKQuantityTypeIdentifier) -> HKQuantityType? { HKQuantityType(identifier) }
    public static func categoryType(forIdentifier identifier: HKCategoryTypeIdentifier) -> HKCategoryType? { HKCategoryType(identifier) }
    public static func characteristicType(forIdentifier identifier: HKCharacteristicTypeIdentifier) -> HKCharacteristicType? {
        HKCharacteristicType(identifier)
    }
    public static func correlationType(forIdentifier identifier: HKCorrelationTypeIdentifier) -> HKCorrelationType? { HKCorrelationType(identifier) }
    public static func clinicalType(forIdentifier identifier: HKClinicalTypeIdentifier) -> HKClinicalType? { HKClinicalType(identifier) }
    public static func documentType(forIdentifier identifier: HKDocumentTypeIdentifier) -> HKDocumentType? { HKDocumentType(identifier) }
    public static func seriesType(forIdentifier identifier: String) -> HKSeriesType? { HKSeriesType(identifier: identifier) }

    public static func workoutType() -> HKWorkoutType { HKWorkoutType() }
    public static func activitySummaryType() -> HKActivitySummaryType { HKActivitySummaryType() }
    public static func audiogramSampleType() -> HKAudiogramSampleType { HKAudiogramSampleType() }
    public static func electrocardiogramType() -> HKElectrocardiogramType { HKElectrocardiogramType() }
    public static func visionPrescriptionType() -> HKPrescriptionType { HKPrescriptionType() }

    /// The public type for a core type (the platform's answers carry these).
    package static func of(_ core: ObjectType) -> HKSampleType {
        switch core {
        case .workout: HKWorkoutType()
        case .sample(.sleepAnalysis): HKCategoryType(.sleepAnalysis)
        case .sample(let type): HKQuantityType(HKQuantityTypeIdentifier(type))
        }
    }
}

/// A type whose objects are samples with a start and end (`HKSampleType`).
public class HKSampleType: HKObjectType, @unchecked Sendable {
    /// True when samples of the type may have no end date (none PairSim stores).
    public var allowsRecalibrationForEstimates: Bool { false }
    public var isMinimumDurationRestricted: Bool { false }
    public var isMaximumDurationRestricted: Bool { false }
}

/// A quantity type (`HKQuantityType`), e.g. `HKQuantityType(.stepCount)`.
public final class HKQuantityType: HKSampleType, @unchecked Sendable {
    /// `HKQuantityType(_:)` (iOS 15): any identifier.
    public init(_ identifier: HKQuantityTypeIdentifier) {
        super.init(core: identifier.core.map { .sample($0) }, identifier: identifier.rawValue)
    }

    /// Cumulative (steps, energy: summed) or discrete (heart rate: averaged).
    public var aggregationStyle: HKQuantityAggregationStyle { HKQuantityTypeIdentifier(rawValue: identifier).aggregationStyle }

    /// True when `unit` measures what the type measures (`count/min` for heart rate, …).
    public func `is`(compatibleWith unit: HKUnit) -> Bool { HKUnit(from: defaultUnitString).dimension == unit.dimension }

    /// The unit PairSim stores the type in, HealthKit's usual one for the others.
    var defaultUnitString: String {
        switch core {
        case .sample(let type)?: type.unit == "fraction" ? "%" : type.unit
        default: HKQuantityTypeIdentifier(rawValue: identifier).unitString
        }
    }
}

/// `HKQuantityAggregationStyle`.
public enum HKQuantityAggregationStyle: Int, Hashable, Sendable {
    case cumulative = 0, discreteArithmetic = 1, discreteTemporallyWeighted = 2, discreteEquivalentContinuousLevel = 3
    @available(*, deprecated, renamed: "discreteArithmetic")
    public static var discrete: HKQuantityAggregationStyle { .discreteArithmetic }
}

/// A category type (`HKCategoryType`), e.g. `HKCategoryType(.sleepAnalysis)`.
public final class HKCategoryType: HKSampleType, @unchecked Sendable {
    public init(_ identifier: HKCategoryTypeIdentifier) {
        super.init(core: identifier == .sleepAnalysis ? .sample(.sleepAnalysis) : nil, identifier: identifier.rawValue)
    }
}

/// A characteristic (`HKCharacteristicType`): date of birth, sex, blood type… (not modelled).
public final class HKCharacteristicType: HKObjectType, @unchecked Sendable {
    public init(_ identifier: HKCharacteristicTypeIdentifier) { super.init(core: nil, identifier: identifier.rawValue) }
}

/// A correlation type (`HKCorrelationType`): blood pressure, food (not modelled).
public final class HKCorrelationType: HKSampleType, @unchecked Sendable {
    public init(_ identifier: HKCorrelationTypeIdentifier) { super.init(core: nil, identifier: identifier.rawValue) }
}

/// A clinical record type (`HKClinicalType`, not modelled).
public final class HKClinicalType: HKSampleType, @unchecked Sendable {
    public init(_ identifier: HKClinicalTypeIdentifier) { super.init(core: nil, identifier: identifier.rawValue) }
}

/// A document type (`HKDocumentType`, not modelled).
public final class HKDocumentType: HKSampleType, @unchecked Sendable {
    public init(_ identifier: HKDocumentTypeIdentifier) { super.init(core: nil, identifier: identifier.rawValue) }
}

/// A series type (`HKSeriesType`): workout routes, heartbeat series (not modelled).
public final class HKSeriesType: HKSampleType, @unchecked Sendable {
    init(identifier: String) { super.init(core: nil, identifier: identifier) }
    public static func workoutRoute() -> HKSeriesType { HKSeriesType(identifier: HKWorkoutRouteTypeIdentifier) }
    public static func heartbeat() -> HKSeriesType { HKSeriesType(identifier: HKDataTypeIdentifierHeartbeatSeries) }
}

/// The workout type (`HKWorkoutType`).
public final class HKWorkoutType: HKSampleType, @unchecked Sendable {
    public init() { super.init(core: .workout, identifier: HKWorkoutTypeIdentifier) }
}

/// Activity rings (`HKActivitySummaryType`, not modelled).
public final class HKActivitySummaryType: HKObjectType, @unchecked Sendable {
    public init() { super.init(core: nil, identifier: "HKActivitySummaryTypeIdentifier") }
}

/// Audiograms (`HKAudiogramSampleType`, not modelled).
public final class HKAudiogramSampleType: HKSampleType, @unchecked Sendable {
    public init() { super.init(core: nil, identifier: "HKDataTypeIdentifierAudiogram") }
}

/// Electrocardiograms (`HKElectrocardiogramType`, not modelled).
public final class HKElectrocardiogramType: HKSampleType, @unchecked Sendable {
    public init() { super.init(core: nil, identifier: "HKDataTypeIdentifierElectrocardiogram") }
}

/// Vision prescriptions (`HKPrescriptionType`, not modelled).
public final class HKPrescriptionType: HKSampleType, @unchecked Sendable {
    public init() { super.init(core: nil, identifier: HKVisionPrescriptionTypeIdentifier) }
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

/// `HKAuthorizationRequestStatus`: whether asking again would show the sheet.
public enum HKAuthorizationRequestStatus: Int, Hashable, Sendable {
    case unknown, shouldRequest, unnecessary
}
