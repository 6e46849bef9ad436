// ExtensionDelegate.swift
// Language mode: Swift 5 (NSObject-based delegate, as in Apple's watchOS samples).
// Platform: watchOS 9. A watch app's delegate that keeps a step count fresh with
// background refresh tasks, the way Apple's background-task documentation and its
// watch samples write it: schedule the next refresh at launch and after each one,
// query HealthKit in the refresh, and complete every task handed over.

import Foundation
import PairSimKit

class ExtensionDelegate: NSObject, WKApplicationDelegate {
    let healthStore = HKHealthStore()
    private(set) var stepsToday: Double = 0
    private(set) var refreshes = 0

    // MARK: - Lifecycle

    func applicationDidFinishLaunching() {
        let stepType = HKQuantityType.quantityType(forIdentifier: .stepCount)!
        healthStore.requestAuthorization(toShare: nil, read: [stepType]) { success, error in
            if !success {
                print("Authorization failed: \(error?.localizedDescription ?? "unknown")")
            }
        }
        scheduleBackgroundRefreshTasks()
    }

    func applicationDidBecomeActive() {
        updateStepsToday {}
    }

    // MARK: - Background tasks

    func handle(_ backgroundTasks: Set<WKRefreshBackgroundTask>) {
        for task in backgroundTasks {
            switch task {
            case let backgroundTask as WKApplicationRefreshBackgroundTask:
                refreshes += 1
                updateStepsToday {
                    // Schedule the next one before telling the system this one is done.
                    self.scheduleBackgroundRefreshTasks()
                    backgroundTask.setTaskCompletedWithSnapshot(false)
                }
            case let snapshotTask as WKSnapshotRefreshBackgroundTask:
                snapshotTask.setTaskCompleted(restoredDefaultState: true, estimatedSnapshotExpiration: Date.distantFuture, userInfo: nil)
            case let connectivityTask as WKWatchConnectivityRefreshBackgroundTask:
                connectivityTask.setTaskCompletedWithSnapshot(false)
            default:
                task.setTaskCompletedWithSnapshot(false)
            }
        }
    }

    func scheduleBackgroundRefreshTasks() {
        let watchExtension = WKExtension.shared()
        // Every 15 minutes, the shortest interval the system is likely to honour.
        let targetDate = Date().addingTimeInterval(15.0 * 60.0)
        watchExtension.scheduleBackgroundRefresh(withPreferredDate: targetDate, userInfo: nil) { error in
            if let error = error {
                print("An error occurred while scheduling a background refresh task: \(error.localizedDescription)")
                return
            }
            print("Scheduled the next background refresh.")
        }
    }

    // MARK: - HealthKit

    func updateStepsToday(completion: @escaping () -> Void) {
        let stepType = HKQuantityType.quantityType(forIdentifier: .stepCount)!
        let startOfDay = Calendar.current.startOfDay(for: Date())
        let predicate = HKQuery.predicateForSamples(withStart: startOfDay, end: Date(), options: .strictStartDate)
        let query = HKStatisticsQuery(quantityType: stepType, quantitySamplePredicate: predicate, options: .cumulativeSum) { _, statistics, error in
            if let error = error {
                print("Could not read today's steps: \(error.localizedDescription)")
            }
            let steps = statistics?.sumQuantity()?.doubleValue(for: HKUnit.count()) ?? 0
            DispatchQueue.main.async {
                self.stepsToday = steps
                print("Steps today: \(Int(steps))")
                completion()
            }
        }
        healthStore.execute(query)
    }
}
