// HealthViewModel.swift
// Language mode: Swift 6. A main-actor view model using Observation
// (@Observable, iOS 17 / watchOS 10). No SwiftUI views are declared here.

import Foundation
import PairSimKit
import Observation

@MainActor
@Observable
final class HealthViewModel {
    var todaySteps: Double = 0
    var latestHeartRate: Double?
    var lastUpdated: Date?
    var isLoading = false
    var errorMessage: String?

    @ObservationIgnored private let healthStore = HKHealthStore()
    @ObservationIgnored private var refreshTask: Task<Void, Never>?

    private let readTypes: Set<HKObjectType> = [
        HKQuantityType(.stepCount),
        HKQuantityType(.heartRate)
    ]

    // MARK: - Authorization

    func requestAccessAndLoad() {
        Task {
            do {
                try await healthStore.requestAuthorization(toShare: [], read: readTypes)
                await load()
            } catch {
                errorMessage = error.localizedDescription
            }
        }
    }

    // MARK: - Loading with async/await

    func load() async {
        isLoading = true
        defer { isLoading = false }

        do {
            let today = Calendar.current.startOfDay(for: Date())
            let stepsPredicate = HKSamplePredicate.quantitySample(
                type: HKQuantityType(.stepCount),
                predicate: HKQuery.predicateForSamples(withStart: today, end: Date()))
            let stats = try await HKStatisticsQueryDescriptor(predicate: stepsPredicate, options: .cumulativeSum)
                .result(for: healthStore)
            todaySteps = stats?.sumQuantity()?.doubleValue(for: .count()) ?? 0

            let heartRates = try await HKSampleQueryDescriptor(
                predicates: [.quantitySample(type: HKQuantityType(.heartRate))],
                sortDescriptors: [SortDescriptor(\.startDate, order: .reverse)],
                limit: 1).result(for: healthStore)
            latestHeartRate = heartRates.first?.quantity.doubleValue(for: HKUnit.count().unitDivided(by: .minute()))

            lastUpdated = Date()
            errorMessage = nil
        } catch {
            errorMessage = "Failed to load: \(error.localizedDescription)"
        }
    }

    // MARK: - Periodic refresh

    func startAutoRefresh(every seconds: Int = 60) {
        refreshTask?.cancel()
        refreshTask = Task { [weak self] in
            while !Task.isCancelled {
                await self?.load()
                do {
                    try await Task.sleep(for: .seconds(seconds))
                } catch {
                    break // Cancelled.
                }
            }
        }
    }

    func stopAutoRefresh() {
        refreshTask?.cancel()
        refreshTask = nil
    }

    // MARK: - Background work hopping back to the main actor

    func recomputeInBackground() {
        let store = healthStore
        Task.detached(priority: .utility) {
            let earliest = store.earliestPermittedSampleDate()
            let daysOfHistory = Date().timeIntervalSince(earliest) / 86_400
            await MainActor.run {
                self.errorMessage = daysOfHistory < 1 ? "Very little history available" : nil
                self.lastUpdated = Date()
            }
        }
    }

    // MARK: - Completion-handler API delivered with DispatchQueue.main.async

    func refreshStepsWithCompletionHandler() {
        let today = Calendar.current.startOfDay(for: Date())
        let query = HKStatisticsQuery(quantityType: HKQuantityType(.stepCount),
                                      quantitySamplePredicate: HKQuery.predicateForSamples(withStart: today, end: nil),
                                      options: .cumulativeSum) { _, statistics, error in
            let steps = statistics?.sumQuantity()?.doubleValue(for: .count()) ?? 0
            let message = error?.localizedDescription
            DispatchQueue.main.async {
                self.todaySteps = steps
                self.errorMessage = message
                self.lastUpdated = Date()
            }
        }
        healthStore.execute(query)
    }
}
