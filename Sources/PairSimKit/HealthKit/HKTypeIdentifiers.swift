import Foundation
package import PairSimCore

/// `HKQuantityTypeIdentifier`: every identifier HealthKit has (the list is in
/// HKTypeIdentifiers+List.swift); PairSim stores the ones `core` maps.
/// Differs: PairSim stores heart rate, HRV, resting heart rate, steps, active energy, body mass, body fat and BMI; any other identifier can be named, requested and queried (always empty), and saving it fails with `errorInvalidArgument` (docs/FIDELITY.md).
public struct HKQuantityTypeIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// The types PairSim stores, by their platform name.
    static let modelled: [(SampleType, HKQuantityTypeIdentifier)] = [
        (.heartRate, .heartRate), (.heartRateVariabilitySDNN, .heartRateVariabilitySDNN), (.restingHeartRate, .restingHeartRate),
        (.stepCount, .stepCount), (.bodyMass, .bodyMass), (.bodyFatPercentage, .bodyFatPercentage),
        (.bodyMassIndex, .bodyMassIndex), (.activeEnergyBurned, .activeEnergyBurned),
    ]

    package init(_ core: SampleType) { self = Self.modelled.first { $0.0 == core }!.1 }
    package var core: SampleType? { Self.modelled.first { $0.1 == self }?.0 }

    /// How HealthKit aggregates the type (Apple's documentation of each identifier).
    var aggregationStyle: HKQuantityAggregationStyle { Self.traits[rawValue]?.style ?? .discreteArithmetic }
    /// A unit HealthKit documents for the type.
    var unitString: String { Self.traits[rawValue]?.unit ?? "count" }
}

/// `HKCategoryTypeIdentifier`: every identifier HealthKit has; PairSim stores sleep analysis.
/// Differs: PairSim stores sleep analysis; the others as for quantity types.
public struct HKCategoryTypeIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// `HKCharacteristicTypeIdentifier` (not modelled).
public struct HKCharacteristicTypeIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// `HKCorrelationTypeIdentifier` (not modelled).
public struct HKCorrelationTypeIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// `HKClinicalTypeIdentifier` (not modelled).
public struct HKClinicalTypeIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// `HKDocumentTypeIdentifier` (not modelled).
public struct HKDocumentTypeIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
}
