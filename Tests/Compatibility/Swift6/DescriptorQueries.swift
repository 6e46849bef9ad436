// DescriptorQueries.swift
// Language mode: Swift 6. Uses the Swift-concurrency query descriptors
// (iOS 15.4+ / watchOS 8.5+). Platforms: iOS 17 / watchOS 10.

import Foundation
import PairSimKit

struct DescriptorQueries {
    let store = HKHealthStore()

    // MARK: - HKSampleQueryDescriptor (one-shot)

    /// The ten most recent heart-rate readings from the last 24 hours, in BPM.
    func latestHeartRates() async throws -> [Double] {
        let heartRateType = HKQuantityType(.heartRate)
        let lastDay = HKQuery.predicateForSamples(withStart: Date().addingTimeInterval(-86_400), end: nil)

        let descriptor = HKSampleQueryDescriptor(
            predicates: [.quantitySample(type: heartRateType, predicate: lastDay)],
            sortDescriptors: [SortDescriptor(\.endDate, order: .reverse)],
            limit: 10)

        // The system automatically sets results to [HKQuantitySample].
        let results = try await descriptor.result(for: store)

        let bpm = HKUnit.count().unitDivided(by: .minute())
        return results.map { $0.quantity.doubleValue(for: bpm) }
    }

    // MARK: - HKAnchoredObjectQueryDescriptor (one-shot batch)

    func readWorkouts(after anchor: HKQueryAnchor?) async throws -> (workouts: [HKWorkout], deleted: [UUID], anchor: HKQueryAnchor) {
        let anchorDescriptor = HKAnchoredObjectQueryDescriptor(
            predicates: [.workout()],
            anchor: anchor,
            limit: 100)

        let result = try await anchorDescriptor.result(for: store)
        return (workouts: result.addedSamples, deleted: result.deletedObjects.map(\.uuid), anchor: result.newAnchor)
    }

    // MARK: - HKAnchoredObjectQueryDescriptor (long-running)

    func monitorSteps(from anchor: HKQueryAnchor?) -> Task<Void, Error> {
        let stepType = HKQuantityType(.stepCount)
        let anchorDescriptor = HKAnchoredObjectQueryDescriptor(
            predicates: [.quantitySample(type: stepType)],
            anchor: anchor)

        let updateQueue = anchorDescriptor.results(for: store)

        return Task {
            for try await results in updateQueue {
                let added = results.addedSamples.reduce(0.0) { total, sample in
                    total + sample.quantity.doubleValue(for: .count())
                }
                print("\(results.addedSamples.count) new samples (\(added) steps), \(results.deletedObjects.count) deleted, anchor \(results.newAnchor)")
            }
        }
    }

    // MARK: - HKStatisticsQueryDescriptor

    func stepsToday() async throws -> Double {
        let today = Calendar.current.startOfDay(for: Date())
        let predicate = HKSamplePredicate.quantitySample(
            type: HKQuantityType(.stepCount),
            predicate: HKQuery.predicateForSamples(withStart: today, end: nil))

        let descriptor = HKStatisticsQueryDescriptor(predicate: predicate, options: .cumulativeSum)
        let statistics = try await descriptor.result(for: store)
        return statistics?.sumQuantity()?.doubleValue(for: .count()) ?? 0
    }

    // MARK: - HKStatisticsCollectionQueryDescriptor

    func dailyStepCounts(days: Int = 7) async throws -> [(date: Date, steps: Double)] {
        // Create a predicate for this week's samples.
        let calendar = Calendar(identifier: .gregorian)
        let today = calendar.startOfDay(for: Date())

        guard let endDate = calendar.date(byAdding: .day, value: 1, to: today),
              let startDate = calendar.date(byAdding: .day, value: -days, to: endDate) else {
            return []
        }

        let thisWeek = HKQuery.predicateForSamples(withStart: startDate, end: endDate)
        let stepType = HKQuantityType(.stepCount)
        let stepsThisWeek = HKSamplePredicate.quantitySample(type: stepType, predicate: thisWeek)

        // Create the query descriptor.
        let everyDay = DateComponents(day: 1)
        let sumOfStepsQuery = HKStatisticsCollectionQueryDescriptor(
            predicate: stepsThisWeek,
            options: .cumulativeSum,
            anchorDate: endDate,
            intervalComponents: everyDay)

        let stepCounts = try await sumOfStepsQuery.result(for: store)
        return stepCounts.statistics().map { statistics in
            (date: statistics.startDate, steps: statistics.sumQuantity()?.doubleValue(for: .count()) ?? 0)
        }
    }

    func watchDailyStepCounts() async throws {
        let descriptor = HKStatisticsCollectionQueryDescriptor(
            predicate: .quantitySample(type: HKQuantityType(.stepCount)),
            options: .cumulativeSum,
            anchorDate: Calendar.current.startOfDay(for: Date()),
            intervalComponents: DateComponents(day: 1))

        for try await result in descriptor.results(for: store) {
            let collection = result.statisticsCollection
            let changed = result.updatedStatistics?.count ?? collection.statistics().count
            print("Statistics collection updated; \(changed) interval(s) changed")
        }
    }
}
