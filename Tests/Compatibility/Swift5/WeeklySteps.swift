// WeeklySteps.swift
// Language mode: Swift 5 (follows the HKStatisticsCollectionQuery sample in
// Apple's documentation). Platforms: iOS 17 / watchOS 10.

import Foundation
import PairSimKit

final class WeeklySteps {
    struct DailyTotal {
        let date: Date
        let steps: Double
    }

    private let healthStore = HKHealthStore()
    private var query: HKStatisticsCollectionQuery?

    /// Called on the main queue with the last seven days of step totals.
    var onUpdate: (([DailyTotal]) -> Void)?

    func start() {
        let calendar = Calendar.current

        // Create a 1-day interval.
        let interval = DateComponents(day: 1)

        // Anchor the intervals at midnight.
        let anchorComponents = DateComponents(calendar: calendar,
                                              timeZone: calendar.timeZone,
                                              hour: 0, minute: 0, second: 0)
        guard let anchorDate = calendar.nextDate(after: Date(),
                                                 matching: anchorComponents,
                                                 matchingPolicy: .nextTime,
                                                 repeatedTimePolicy: .first,
                                                 direction: .backward) else {
            fatalError("*** unable to find the previous midnight ***")
        }

        let stepType = HKQuantityType(.stepCount)

        let query = HKStatisticsCollectionQuery(quantityType: stepType,
                                                quantitySamplePredicate: nil,
                                                options: .cumulativeSum,
                                                anchorDate: anchorDate,
                                                intervalComponents: interval)

        // Set the results handler.
        query.initialResultsHandler = { query, results, error in
            // Handle errors here.
            if let error = error as? HKError {
                switch error.code {
                case .errorDatabaseInaccessible:
                    // HealthKit couldn't access the database because the device is locked.
                    return
                default:
                    print("*** An error occurred while calculating the statistics: \(error.localizedDescription) ***")
                    return
                }
            }

            guard let statsCollection = results else {
                // You should only hit this case if you have an unhandled error.
                fatalError("*** Unable to get the statistics collection ***")
            }

            self.deliver(statsCollection)
        }

        query.statisticsUpdateHandler = { query, statistics, statsCollection, error in
            if let statistics = statistics {
                let value = statistics.sumQuantity()?.doubleValue(for: .count()) ?? 0
                print("Updated interval starting \(statistics.startDate): \(value) steps")
            }
            guard let statsCollection = statsCollection else { return }
            self.deliver(statsCollection)
        }

        self.query = query
        healthStore.execute(query)
    }

    func stop() {
        if let query = query {
            healthStore.stop(query)
            self.query = nil
        }
    }

    private func deliver(_ statsCollection: HKStatisticsCollection) {
        let endDate = Date()
        guard let startDate = Calendar.current.date(byAdding: .day, value: -6,
                                                    to: Calendar.current.startOfDay(for: endDate)) else {
            return
        }

        var totals: [DailyTotal] = []
        // Enumerate over all the statistics objects between the start and end dates.
        statsCollection.enumerateStatistics(from: startDate, to: endDate) { statistics, stop in
            if let quantity = statistics.sumQuantity() {
                let date = statistics.startDate
                let value = quantity.doubleValue(for: .count())
                totals.append(DailyTotal(date: date, steps: value))
            } else {
                totals.append(DailyTotal(date: statistics.startDate, steps: 0))
            }
        }

        let today = statsCollection.statistics(for: endDate)?.sumQuantity()?.doubleValue(for: HKUnit.count())
        print("Steps so far today: \(today ?? 0), intervals: \(statsCollection.statistics().count)")

        DispatchQueue.main.async {
            self.onUpdate?(totals)
        }
    }
}
