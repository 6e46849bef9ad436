import Foundation

/// Where a workout takes place (`HKWorkoutSessionLocationType`).
public enum HKWorkoutSessionLocationType: Int, Hashable, Sendable {
    case unknown = 1, indoor, outdoor
}

/// Where a swim takes place (`HKWorkoutSwimmingLocationType`).
public enum HKWorkoutSwimmingLocationType: Int, Hashable, Sendable {
    case unknown = 0, pool, openWater
}

/// What kind of workout to record (`HKWorkoutConfiguration`).
public final class HKWorkoutConfiguration: Hashable, @unchecked Sendable {
    public var activityType: HKWorkoutActivityType = .other
    public var locationType: HKWorkoutSessionLocationType = .unknown
    public var swimmingLocationType: HKWorkoutSwimmingLocationType = .unknown
    public var lapLength: HKQuantity?

    public init() {}

    public static func == (lhs: HKWorkoutConfiguration, rhs: HKWorkoutConfiguration) -> Bool {
        lhs.activityType == rhs.activityType && lhs.locationType == rhs.locationType
            && lhs.swimmingLocationType == rhs.swimmingLocationType && lhs.lapLength == rhs.lapLength
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(activityType) }
}

/// One activity of a workout (`HKWorkoutActivity`): PairSim's workouts have one, the whole workout.
public final class HKWorkoutActivity: Hashable, @unchecked Sendable {
    public let uuid: UUID
    public let workoutConfiguration: HKWorkoutConfiguration
    public let startDate: Date
    public let endDate: Date?
    public let duration: TimeInterval
    public let metadata: [String: Any]?
    let statistics: [HKQuantityType: HKStatistics]

    init(uuid: UUID, configuration: HKWorkoutConfiguration, start: Date, end: Date, duration: TimeInterval, statistics: [HKQuantityType: HKStatistics]) {
        self.uuid = uuid
        workoutConfiguration = configuration
        startDate = start
        endDate = end
        self.duration = duration
        metadata = nil
        self.statistics = statistics
    }

    public func statistics(for quantityType: HKQuantityType) -> HKStatistics? { statistics[quantityType] }
    public var allStatistics: [HKQuantityType: HKStatistics] { statistics }

    public static func == (lhs: HKWorkoutActivity, rhs: HKWorkoutActivity) -> Bool { lhs.uuid == rhs.uuid }
    public func hash(into hasher: inout Hasher) { hasher.combine(uuid) }
}

extension HKWorkout {
    /// The workout's statistics by type: its active energy (the one PairSim stores with a
    /// workout; query heart-rate samples in the workout's interval for the rest).
    public var allStatistics: [HKQuantityType: HKStatistics] {
        guard let energy = totalEnergyBurned else { return [:] }
        let type = HKQuantityType(.activeEnergyBurned)
        return [type: HKStatistics(type: type, start: startDate, end: endDate, sum: energy)]
    }

    public func statistics(for quantityType: HKQuantityType) -> HKStatistics? { allStatistics[quantityType] }

    /// The workout's activities: one, the whole workout.
    public var workoutActivities: [HKWorkoutActivity] {
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = workoutActivityType
        return [HKWorkoutActivity(uuid: uuid, configuration: configuration, start: startDate, end: endDate, duration: duration, statistics: allStatistics)]
    }

    /// Distance, strokes, flights: not recorded by PairSim's watch.
    public var totalDistance: HKQuantity? { nil }
    public var totalSwimmingStrokeCount: HKQuantity? { nil }
    public var totalFlightsClimbed: HKQuantity? { nil }
}
