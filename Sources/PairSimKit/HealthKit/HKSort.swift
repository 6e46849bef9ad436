import Foundation

/// `HKSampleSortIdentifierStartDate`: sort samples by start date.
public let HKSampleSortIdentifierStartDate = "startDate"
/// `HKSampleSortIdentifierEndDate`: sort samples by end date.
public let HKSampleSortIdentifierEndDate = "endDate"
/// `HKWorkoutSortIdentifierDuration`: sort workouts by duration.
public let HKWorkoutSortIdentifierDuration = "duration"
/// `HKWorkoutSortIdentifierTotalEnergyBurned`: sort workouts by active energy.
public let HKWorkoutSortIdentifierTotalEnergyBurned = "totalEnergyBurned"

/// `NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false)`, as HealthKit code
/// writes it (R: A13). Linux's Foundation has no key-value coding, so its `init(key:ascending:)`
/// is unavailable there; this one maps HealthKit's sort identifiers to the key paths it sorts by.
/// A key HealthKit does not sort by keeps its place (objects compare equal) and is reported when
/// a query uses it.
extension NSSortDescriptor {
    public convenience init(key: String?, ascending: Bool) {
        switch key {
        case HKSampleSortIdentifierStartDate?: self.init(keyPath: \HKSample.startDate, ascending: ascending)
        case HKSampleSortIdentifierEndDate?: self.init(keyPath: \HKSample.endDate, ascending: ascending)
        case HKWorkoutSortIdentifierDuration?: self.init(keyPath: \HKSample.workoutDuration, ascending: ascending)
        case HKWorkoutSortIdentifierTotalEnergyBurned?: self.init(keyPath: \HKSample.workoutEnergy, ascending: ascending)
        default: self.init(keyPath: \HKSample.unsortedKey, ascending: ascending)
        }
    }

    /// The HealthKit sort identifier this descriptor was made with (nil for another key).
    var healthKitKey: String? {
        switch keyPath {
        case \HKSample.startDate: HKSampleSortIdentifierStartDate
        case \HKSample.endDate: HKSampleSortIdentifierEndDate
        case \HKSample.workoutDuration: HKWorkoutSortIdentifierDuration
        case \HKSample.workoutEnergy: HKWorkoutSortIdentifierTotalEnergyBurned
        default: nil
        }
    }

    /// Orders two samples as this descriptor says.
    func order(_ lhs: HKSample, _ rhs: HKSample) -> ComparisonResult {
        let result: ComparisonResult
        switch healthKitKey {
        case HKSampleSortIdentifierStartDate?: result = Self.compare(lhs.startDate, rhs.startDate)
        case HKSampleSortIdentifierEndDate?: result = Self.compare(lhs.endDate, rhs.endDate)
        case HKWorkoutSortIdentifierDuration?: result = Self.compare(lhs.workoutDuration, rhs.workoutDuration)
        case HKWorkoutSortIdentifierTotalEnergyBurned?: result = Self.compare(lhs.workoutEnergy, rhs.workoutEnergy)
        default: result = .orderedSame
        }
        guard !ascending else { return result }
        return result == .orderedAscending ? .orderedDescending : result == .orderedDescending ? .orderedAscending : .orderedSame
    }

    static func compare<T: Comparable>(_ lhs: T, _ rhs: T) -> ComparisonResult {
        lhs < rhs ? .orderedAscending : lhs > rhs ? .orderedDescending : .orderedSame
    }
}

extension HKSample {
    /// Sort keys that are not properties of every sample: a workout's duration and energy, and
    /// the place of a key HealthKit does not sort by.
    var workoutDuration: TimeInterval { (self as? HKWorkout)?.duration ?? 0 }
    var workoutEnergy: Double { (self as? HKWorkout)?.totalEnergyBurned?.doubleValue(for: .kilocalorie()) ?? 0 }
    var unsortedKey: Int { 0 }

    /// `samples` in the order `descriptors` give (stable: ties keep HealthKit's order, oldest start first).
    static func sorted<S: HKSample>(_ samples: [S], by descriptors: [NSSortDescriptor]?) -> [S] {
        guard let descriptors, !descriptors.isEmpty else { return samples }
        return samples.enumerated().sorted { a, b in
            for descriptor in descriptors {
                switch descriptor.order(a.element, b.element) {
                case .orderedAscending: return true
                case .orderedDescending: return false
                case .orderedSame: continue
                }
            }
            return a.offset < b.offset
        }.map(\.element)
    }
}
