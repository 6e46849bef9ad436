// WorkoutReader.swift
// Language mode: Swift 5 (completion handlers capture `self`).
// Platforms: iOS 17 / watchOS 10. `totalEnergyBurned` is used as a fallback
// (deprecated in iOS 18, still available on iOS 17).

import Foundation
import PairSimKit

final class WorkoutReader {
    struct WorkoutSummary: CustomStringConvertible {
        let id: UUID
        let activityName: String
        let duration: TimeInterval
        let kilocalories: Double?
        let averageHeartRate: Double?
        let distanceMeters: Double?
        let isIndoor: Bool
        let sourceName: String
        let sourceBundleIdentifier: String
        let activityCount: Int

        var description: String {
            "\(activityName) \(Int(duration / 60)) min, \(kilocalories ?? 0) kcal, from \(sourceName)"
        }
    }

    let healthStore = HKHealthStore()

    /// Workouts written by *this* app, newest first.
    func fetchMyRecentWorkouts(limit: Int = 20, completion: @escaping ([WorkoutSummary]) -> Void) {
        let fromThisApp = HKQuery.predicateForObjects(from: HKSource.default())
        let newestFirst = NSSortDescriptor(key: HKSampleSortIdentifierEndDate, ascending: false)

        let query = HKSampleQuery(sampleType: HKObjectType.workoutType(),
                                  predicate: fromThisApp,
                                  limit: limit,
                                  sortDescriptors: [newestFirst]) { _, samples, error in
            guard let workouts = samples as? [HKWorkout] else {
                print("Workout query failed: \(String(describing: error))")
                completion([])
                return
            }
            completion(workouts.map { self.summarize($0) })
        }
        healthStore.execute(query)
    }

    /// Look up a single workout by the UUID we stored earlier.
    func fetchWorkout(with uuid: UUID, completion: @escaping (HKWorkout?) -> Void) {
        let predicate = HKQuery.predicateForObject(with: uuid)
        let query = HKSampleQuery(sampleType: HKWorkoutType.workoutType(), predicate: predicate, limit: 1, sortDescriptors: nil) { _, samples, _ in
            completion(samples?.first as? HKWorkout)
        }
        healthStore.execute(query)
    }

    func summarize(_ workout: HKWorkout) -> WorkoutSummary {
        let energyType = HKQuantityType(.activeEnergyBurned)
        let heartRateType = HKQuantityType(.heartRate)
        let distanceType = HKQuantityType(.distanceWalkingRunning)

        let kilocalories = workout.statistics(for: energyType)?.sumQuantity()?.doubleValue(for: .kilocalorie())
            ?? workout.totalEnergyBurned?.doubleValue(for: .kilocalorie())

        let bpm = HKUnit.count().unitDivided(by: HKUnit.minute())
        let averageHeartRate = workout.statistics(for: heartRateType)?.averageQuantity()?.doubleValue(for: bpm)
        let distance = workout.allStatistics[distanceType]?.sumQuantity()?.doubleValue(for: .meter())

        let isIndoor = (workout.metadata?[HKMetadataKeyIndoorWorkout] as? Bool) ?? false
        let source = workout.sourceRevision.source

        for activity in workout.workoutActivities {
            let type = activity.workoutConfiguration.activityType
            print("  activity \(name(for: type)) \(activity.startDate)–\(String(describing: activity.endDate)) \(activity.duration)s")
        }

        return WorkoutSummary(id: workout.uuid,
                              activityName: name(for: workout.workoutActivityType),
                              duration: workout.duration,
                              kilocalories: kilocalories,
                              averageHeartRate: averageHeartRate,
                              distanceMeters: distance,
                              isIndoor: isIndoor,
                              sourceName: source.name,
                              sourceBundleIdentifier: source.bundleIdentifier,
                              activityCount: workout.workoutActivities.count)
    }

    func isFromThisApp(_ workout: HKWorkout) -> Bool {
        workout.sourceRevision.source == HKSource.default()
            || workout.sourceRevision.source.bundleIdentifier == HKSource.default().bundleIdentifier
    }

    private func name(for activityType: HKWorkoutActivityType) -> String {
        switch activityType {
        case .running: return "Running"
        case .walking: return "Walking"
        case .cycling: return "Cycling"
        case .swimming: return "Swimming"
        case .yoga: return "Yoga"
        case .traditionalStrengthTraining: return "Strength Training"
        case .highIntensityIntervalTraining: return "HIIT"
        default: return "Workout (\(activityType.rawValue))"
        }
    }
}
