// HeartRateSummary.swift
// Language mode: Swift 5 (completion handlers capture `self`).
// Platforms: iOS 17 / watchOS 10.

import Foundation
import PairSimKit

final class HeartRateSummary {
    struct Summary {
        var average: Double?
        var minimum: Double?
        var maximum: Double?
    }

    private let healthStore = HKHealthStore()
    private let heartRateType = HKQuantityType(.heartRate)
    private let beatsPerMinute = HKUnit(from: "count/min")

    private func todayPredicate() -> NSPredicate {
        let calendar = Calendar.current
        let now = Date()
        let startOfDay = calendar.startOfDay(for: now)
        return HKQuery.predicateForSamples(withStart: startOfDay, end: now, options: .strictStartDate)
    }

    // MARK: - Statistics query

    func fetchTodaySummary(completion: @escaping (Summary?, Error?) -> Void) {
        let query = HKStatisticsQuery(quantityType: heartRateType,
                                      quantitySamplePredicate: todayPredicate(),
                                      options: [.discreteAverage, .discreteMin, .discreteMax]) { query, statistics, error in
            guard let statistics = statistics else {
                completion(nil, error)
                return
            }

            let summary = Summary(
                average: statistics.averageQuantity()?.doubleValue(for: self.beatsPerMinute),
                minimum: statistics.minimumQuantity()?.doubleValue(for: self.beatsPerMinute),
                maximum: statistics.maximumQuantity()?.doubleValue(for: self.beatsPerMinute))
            print("Heart rate \(statistics.startDate) – \(statistics.endDate): \(summary)")
            completion(summary, nil)
        }
        healthStore.execute(query)
    }

    // MARK: - Sample query

    /// The ten most recent readings above `threshold` BPM recorded today.
    func fetchRecentElevatedReadings(threshold: Double = 100,
                                     completion: @escaping ([(Date, Double)]) -> Void) {
        let aboveThreshold = HKQuery.predicateForQuantitySamples(
            with: .greaterThanOrEqualTo,
            quantity: HKQuantity(unit: beatsPerMinute, doubleValue: threshold))

        let predicate = NSCompoundPredicate(andPredicateWithSubpredicates: [todayPredicate(), aboveThreshold])
        let sortByDate = NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false)

        let query = HKSampleQuery(sampleType: heartRateType,
                                  predicate: predicate,
                                  limit: 10,
                                  sortDescriptors: [sortByDate]) { query, samples, error in
            guard let samples = samples as? [HKQuantitySample] else {
                print("An error occurred: \(error?.localizedDescription ?? "Unknown error")")
                completion([])
                return
            }

            let readings = samples.map { sample in
                (sample.startDate, sample.quantity.doubleValue(for: self.beatsPerMinute))
            }
            DispatchQueue.main.async {
                completion(readings)
            }
        }
        healthStore.execute(query)
    }

    /// Count of all of today's readings (no limit, no sort).
    func fetchAllReadingsToday(completion: @escaping (Int) -> Void) {
        let query = HKSampleQuery(sampleType: heartRateType,
                                  predicate: todayPredicate(),
                                  limit: HKObjectQueryNoLimit,
                                  sortDescriptors: nil) { _, results, _ in
            completion(results?.count ?? 0)
        }
        healthStore.execute(query)
    }
}
