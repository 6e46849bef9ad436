/// HealthKit sample types PairSim models: the 8 observed types plus heart rate and active energy.
public enum SampleType: String, Hashable, Sendable, CaseIterable, Comparable {
    case heartRate
    case heartRateVariabilitySDNN
    case restingHeartRate
    case sleepAnalysis
    case stepCount
    case bodyMass
    case bodyFatPercentage
    case bodyMassIndex
    case activeEnergyBurned

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.index < rhs.index }

    /// Position in `allCases`, for array-indexed tables (no hashing on hot paths).
    public var index: Int {
        switch self {
        case .heartRate: 0
        case .heartRateVariabilitySDNN: 1
        case .restingHeartRate: 2
        case .sleepAnalysis: 3
        case .stepCount: 4
        case .bodyMass: 5
        case .bodyFatPercentage: 6
        case .bodyMassIndex: 7
        case .activeEnergyBurned: 8
        }
    }

    /// The short name used in commands (`write-sample hrv 48`).
    public var shortName: String {
        switch self {
        case .heartRate: "hr"
        case .heartRateVariabilitySDNN: "hrv"
        case .restingHeartRate: "rhr"
        case .sleepAnalysis: "sleep"
        case .stepCount: "steps"
        case .bodyMass: "weight"
        case .bodyFatPercentage: "bodyfat"
        case .bodyMassIndex: "bmi"
        case .activeEnergyBurned: "energy"
        }
    }

    /// The unit values are stored in (HealthKit's unit string).
    public var unit: String {
        switch self {
        case .heartRate, .restingHeartRate: "count/min"
        case .heartRateVariabilitySDNN: "ms"
        case .sleepAnalysis: "category"
        case .stepCount, .bodyMassIndex: "count"
        case .bodyMass: "kg"
        case .bodyFatPercentage: "fraction"
        case .activeEnergyBurned: "kcal"
        }
    }

    /// Values accepted from commands and the wire; anything outside is refused as implausible.
    public var validRange: ClosedRange<Double> {
        switch self {
        case .heartRate: 1...400
        case .heartRateVariabilitySDNN: 1...500
        case .restingHeartRate: 20...200
        case .sleepAnalysis: 0...5
        case .stepCount: 0...200_000
        case .bodyMass: 1...500
        case .bodyFatPercentage: 0...1
        case .bodyMassIndex: 5...100
        case .activeEnergyBurned: 0...20_000
        }
    }

    /// Whether `value` (already within `validRange`) is one this type can hold: category types
    /// (sleep stages) take whole numbers only.
    public func acceptsValue(_ value: Double) -> Bool {
        self != .sleepAnalysis || value.rounded() == value
    }

    /// Resolves a command-line spelling: short name or HealthKit-style name.
    public init?(name: String) {
        if let match = SampleType.allCases.first(where: { $0.shortName == name || $0.rawValue == name }) {
            self = match
        } else {
            return nil
        }
    }
}

/// Sleep analysis category values, as HealthKit numbers them.
public enum SleepStage: Int, Hashable, Sendable, CaseIterable {
    case inBed = 0, asleepUnspecified = 1, awake = 2, asleepCore = 3, asleepDeep = 4, asleepREM = 5

    /// Command spelling: `inBed`, `core`, `deep`, `rem`, `awake`, `asleep`.
    public var name: String {
        switch self {
        case .inBed: "inBed"
        case .asleepUnspecified: "asleep"
        case .awake: "awake"
        case .asleepCore: "core"
        case .asleepDeep: "deep"
        case .asleepREM: "rem"
        }
    }

    public init?(name: String) {
        guard let match = SleepStage.allCases.first(where: { $0.name == name }) else { return nil }
        self = match
    }
}

/// Any type an observer query can watch: a sample type or workouts.
public enum ObjectType: Hashable, Sendable, Comparable, CustomStringConvertible {
    case sample(SampleType)
    case workout

    /// The 8 types the seeds' phone app observes (seed 000/001). HealthKit's observer queries and
    /// background delivery work for every type (`all`); this list only decides which hidden changes
    /// PairSim names (`hk.hidden`) for an app that has no observer of the type.
    public static let observed: [ObjectType] = [
        .sample(.heartRateVariabilitySDNN), .sample(.restingHeartRate), .sample(.sleepAnalysis),
        .sample(.stepCount), .sample(.bodyMass), .sample(.bodyFatPercentage), .sample(.bodyMassIndex), .workout,
    ]

    /// Every type the phone's store holds (observed plus heart rate and energy).
    public static let all: [ObjectType] = SampleType.allCases.map(ObjectType.sample) + [.workout]

    /// HealthKit-style name (`heartRateVariabilitySDNN`, `workout`).
    public var name: String {
        switch self {
        case .sample(let type): type.rawValue
        case .workout: "workout"
        }
    }

    /// Command spelling (`hrv`, `workout`).
    public var shortName: String {
        switch self {
        case .sample(let type): type.shortName
        case .workout: "workout"
        }
    }

    public var description: String { name }

    public init?(name: String) {
        if name == "workout" || name == "workouts" { self = .workout; return }
        guard let type = SampleType(name: name) else { return nil }
        self = .sample(type)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        all.firstIndex(of: lhs)! < all.firstIndex(of: rhs)!
    }
}
