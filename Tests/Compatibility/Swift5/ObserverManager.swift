// ObserverManager.swift
// Language mode: Swift 5 (completion-handler style, as in Apple's
// "Executing Observer Queries" article). Platforms: iOS 17 / watchOS 10.
// Requires the HealthKit + "Background Delivery" entitlements on device.

import Foundation
import PairSimKit

final class ObserverManager {
    static let shared = ObserverManager()

    let healthStore = HKHealthStore()
    private var activeQueries: [HKObserverQuery] = []
    private(set) var lastDelivery: [String: Date] = [:]

    /// Types we observe in the background. `HKQuantityType(_:)` is the
    /// non-failable iOS 15+ initializer.
    private let observedTypes: [HKSampleType] = [
        HKQuantityType(.heartRateVariabilitySDNN),
        HKQuantityType(.restingHeartRate),
        HKQuantityType(.stepCount),
        HKCategoryType(.sleepAnalysis),
        HKObjectType.workoutType()
    ]

    private func frequency(for type: HKSampleType) -> HKUpdateFrequency {
        if type == HKQuantityType(.stepCount) {
            return .hourly
        }
        return .immediate
    }

    // MARK: - Setup

    func start() {
        guard HKHealthStore.isHealthDataAvailable() else {
            print("Health data is not available on this device.")
            return
        }

        let readTypes = Set(observedTypes)
        healthStore.requestAuthorization(toShare: nil, read: readTypes) { success, error in
            if let error = error {
                print("Authorization failed: \(error.localizedDescription)")
                return
            }
            guard success else { return }
            for type in self.observedTypes {
                self.observe(type)
            }
        }
    }

    private func observe(_ sampleType: HKSampleType) {
        let query = HKObserverQuery(sampleType: sampleType, predicate: nil) { query, completionHandler, errorOrNil in
            if let error = errorOrNil {
                // Properly handle the error.
                print("Observer query for \(sampleType.identifier) failed: \(error)")
                completionHandler()
                return
            }

            // Take whatever steps are necessary to update your app.
            // For example, fetch the new samples with an anchored object query.
            self.lastDelivery[sampleType.identifier] = Date()
            print("New data for \(query.objectType?.identifier ?? "unknown type")")

            // If you have subscribed for background updates you must call
            // the completion handler here.
            completionHandler()
        }

        activeQueries.append(query)
        healthStore.execute(query)

        healthStore.enableBackgroundDelivery(for: sampleType,
                                             frequency: frequency(for: sampleType)) { success, error in
            if !success {
                print("Unable to enable background delivery for \(sampleType): \(String(describing: error))")
            }
        }
    }

    // MARK: - Teardown

    func stop(type sampleType: HKSampleType) {
        for query in activeQueries where query.objectType == sampleType {
            healthStore.stop(query)
        }
        activeQueries.removeAll { $0.objectType == sampleType }

        healthStore.disableBackgroundDelivery(for: sampleType) { success, error in
            print("Disabled background delivery for \(sampleType.identifier): \(success) \(error?.localizedDescription ?? "")")
        }
    }

    func stopAll() {
        for query in activeQueries {
            healthStore.stop(query)
        }
        activeQueries.removeAll()

        healthStore.disableAllBackgroundDelivery { success, error in
            if let error = error {
                print("disableAllBackgroundDelivery failed: \(error.localizedDescription)")
            } else {
                print("All background deliveries disabled: \(success)")
            }
        }
    }
}
