// WorkoutManager.swift
// Language mode: Swift 6. Platform: watchOS 10. A workout manager in the shape of
// Apple's multidevice workout sample: an @Observable model on the main actor that
// owns an HKWorkoutSession and its HKLiveWorkoutBuilder; the delegate callbacks are
// nonisolated and hand session state changes to the main actor through an
// AsyncStream, where the builder is ended and the workout finished.

import Foundation
import PairSimKit
import Observation

struct SessionStateChange: Sendable {
    let newState: HKWorkoutSessionState
    let date: Date
}

@MainActor
@Observable
final class WorkoutManager: NSObject {
    var sessionState: HKWorkoutSessionState = .notStarted
    var heartRate: Double = 0
    var averageHeartRate: Double = 0
    var activeEnergy: Double = 0
    var workout: HKWorkout?

    @ObservationIgnored let healthStore = HKHealthStore()
    @ObservationIgnored var session: HKWorkoutSession?
    @ObservationIgnored var builder: HKLiveWorkoutBuilder?
    @ObservationIgnored var onFinished: ((HKWorkout) -> Void)?

    /// Session state changes, from the delegate to the main actor, in order.
    @ObservationIgnored let stateChanges = AsyncStream.makeStream(of: SessionStateChange.self,
                                                                  bufferingPolicy: .bufferingNewest(1))

    override init() {
        super.init()
        Task {
            for await change in stateChanges.stream {
                await consumeSessionStateChange(change)
            }
        }
    }

    func requestAuthorization() async {
        let typesToShare: Set = [HKQuantityType.workoutType()]
        let typesToRead: Set = [
            HKQuantityType(.heartRate),
            HKQuantityType(.activeEnergyBurned),
            HKObjectType.workoutType(),
        ]
        do {
            try await healthStore.requestAuthorization(toShare: typesToShare, read: typesToRead)
        } catch {
            print("Failed to request authorization: \(error)")
        }
    }

    func startWorkout(workoutConfiguration: HKWorkoutConfiguration) async throws {
        session = try HKWorkoutSession(healthStore: healthStore, configuration: workoutConfiguration)
        builder = session?.associatedWorkoutBuilder()
        session?.delegate = self
        builder?.delegate = self
        builder?.dataSource = HKLiveWorkoutDataSource(healthStore: healthStore, workoutConfiguration: workoutConfiguration)

        let startDate = Date()
        session?.startActivity(with: startDate)
        try await builder?.beginCollection(at: startDate)
    }

    func pause() { session?.pause() }

    func resume() { session?.resume() }

    func endWorkout() {
        session?.stopActivity(with: .now)
    }

    var elapsedTime: TimeInterval { builder?.elapsedTime(at: .now) ?? 0 }

    private func consumeSessionStateChange(_ change: SessionStateChange) async {
        sessionState = change.newState
        // Once the activity stops, end the builder's collection, finish the workout, then end the session.
        guard change.newState == .stopped, let builder else { return }
        let finishedWorkout: HKWorkout?
        do {
            try await builder.endCollection(at: change.date)
            finishedWorkout = try await builder.finishWorkout()
            session?.end()
        } catch {
            print("Failed to end workout: \(change) error: \(error)")
            return
        }
        workout = finishedWorkout
        if let finishedWorkout { onFinished?(finishedWorkout) }
    }

    func updateForStatistics(_ statistics: HKStatistics) {
        switch statistics.quantityType {
        case HKQuantityType(.heartRate):
            let heartRateUnit = HKUnit.count().unitDivided(by: .minute())
            heartRate = statistics.mostRecentQuantity()?.doubleValue(for: heartRateUnit) ?? 0
            averageHeartRate = statistics.averageQuantity()?.doubleValue(for: heartRateUnit) ?? 0
        case HKQuantityType(.activeEnergyBurned):
            let energyUnit = HKUnit.kilocalorie()
            activeEnergy = statistics.sumQuantity()?.doubleValue(for: energyUnit) ?? 0
        default:
            return
        }
    }
}

// MARK: - HKWorkoutSessionDelegate

extension WorkoutManager: HKWorkoutSessionDelegate {
    nonisolated func workoutSession(_ workoutSession: HKWorkoutSession,
                                    didChangeTo toState: HKWorkoutSessionState,
                                    from fromState: HKWorkoutSessionState,
                                    date: Date) {
        print("Session state changed from \(fromState.rawValue) to \(toState.rawValue)")
        let sessionStateChange = SessionStateChange(newState: toState, date: date)
        stateChanges.continuation.yield(sessionStateChange)
    }

    nonisolated func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: Error) {
        print("\(#function): \(error)")
    }
}

// MARK: - HKLiveWorkoutBuilderDelegate

extension WorkoutManager: HKLiveWorkoutBuilderDelegate {
    nonisolated func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder) {
        print("Collected an event: \(workoutBuilder.workoutEvents.last?.type.rawValue ?? 0)")
    }

    nonisolated func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>) {
        let statistics = collectedTypes.compactMap { type -> HKStatistics? in
            guard let quantityType = type as? HKQuantityType else { return nil }
            return workoutBuilder.statistics(for: quantityType)
        }
        Task { @MainActor in
            for statistic in statistics {
                self.updateForStatistics(statistic)
            }
        }
    }
}
