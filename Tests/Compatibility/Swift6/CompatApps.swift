// PairSim's side of the source-compatibility suite, Swift 6 half (R: A13, A14): the other files in
// this folder are written as Apple's documentation writes them, only `import HealthKit` changed to
// `import PairSimKit`. This one — PairSim's, not Apple's — makes each an app PairSim runs, printing
// what a screen would show. Tests/Compatibility/Scenarios plays each.

import Foundation
import Observation
import PairSimKit

public enum Swift6CompatApps {
    public static let all: [AppRegistration] = [
        AppRegistration(name: "compat-descriptor-queries", summary: "DescriptorQueries.swift: the async query descriptors, one-shot and long-running",
                        actions: [UserActionSpec("latest-hr", "", "latestHeartRates()"),
                                  UserActionSpec("workouts", "", "readWorkouts(after:) from the last anchor"),
                                  UserActionSpec("steps-today", "", "stepsToday()"),
                                  UserActionSpec("daily", "", "dailyStepCounts()")],
                        make: { DescriptorQueriesApp() }),
        AppRegistration(name: "compat-health-view-model", summary: "HealthViewModel.swift: a @MainActor @Observable view model",
                        actions: [UserActionSpec("show", "", "the model's state"),
                                  UserActionSpec("stop-refresh", "", "stopAutoRefresh()"),
                                  UserActionSpec("recompute", "", "recomputeInBackground()"),
                                  UserActionSpec("refresh-steps", "", "refreshStepsWithCompletionHandler()")],
                        make: { HealthViewModelApp() }),
        AppRegistration(name: "compat-errors-and-units", summary: "HealthErrorsAndUnits.swift: HKError, authorization status, HKUnit, queries in sets",
                        actions: [UserActionSpec("save-hrv", "", "saveAndDeleteHRV()"),
                                  UserActionSpec("errors", "", "describe(_:) of HealthKit's errors")],
                        make: { ErrorsAndUnitsApp() }),
        AppRegistration(name: "compat-watch-workout",
                        summary: "WorkoutManager.swift + WatchConnectivityManager.swift: a watchOS 10 workout app (@MainActor, @Observable, AsyncStream)",
                        actions: [UserActionSpec("start", "", "startWorkout(workoutConfiguration:) of an outdoor run"),
                                  UserActionSpec("pause", "", "pause()"), UserActionSpec("resume", "", "resume()"),
                                  UserActionSpec("end", "", "endWorkout()"), UserActionSpec("show", "", "the model's state")],
                        makeWatchApp: { WatchWorkoutApp() }),
    ]
}

/// The watch app's delegate and screen: what the app's SwiftUI views would call.
final class WatchWorkoutApp: PairSimWatchApp {
    let manager = MainActor.assumeIsolated { WorkoutManager() }

    func applicationDidFinishLaunching() {
        let manager = self.manager
        MainActor.assumeIsolated {
            WatchConnectivityManager.shared.activate()
            manager.onFinished = { workout in
                WatchConnectivityManager.shared.sendWorkoutFinished(id: workout.uuid, duration: workout.duration)
            }
        }
        Task { await manager.requestAuthorization() }
    }

    func perform(_ action: UserAction) async throws -> String {
        switch action.verb {
        case "start":
            let configuration = HKWorkoutConfiguration()
            configuration.activityType = .running
            configuration.locationType = .outdoor
            try await manager.startWorkout(workoutConfiguration: configuration)
        case "pause": await manager.pause()
        case "resume": await manager.resume()
        case "end": await manager.endWorkout()
        case "show":
            let manager = self.manager
            await MainActor.run {
                print("state \(manager.sessionState.rawValue), elapsed \(Int(manager.elapsedTime)) s, "
                      + "workout \(manager.workout.map { "\(Int($0.duration / 60)) min" } ?? "none")")
                print("heart rate \(Int(manager.heartRate)), average \(Int(manager.averageHeartRate)), energy \(Int(manager.activeEnergy)) kcal")
            }
        default: throw AppError("unknown action \(action.verb)")
        }
        return "done"
    }
}

final class DescriptorQueriesApp: PairSimApp {
    let queries = DescriptorQueries()
    var anchor: HKQueryAnchor?
    var monitor: Task<Void, Error>?

    func didFinishLaunching(_ options: LaunchOptions) {
        monitor = queries.monitorSteps(from: nil)
        let queries = self.queries
        Task { try await queries.watchDailyStepCounts() }
    }

    func perform(_ action: UserAction) async throws -> String {
        switch action.verb {
        case "latest-hr":
            print("latest heart rates: \(try await queries.latestHeartRates().map { Int($0) })")
        case "workouts":
            let batch = try await queries.readWorkouts(after: anchor)
            anchor = batch.anchor
            print("workouts: \(batch.workouts.count) new, \(batch.deleted.count) deleted, \(batch.workouts.map { Int($0.duration / 60) }) min")
        case "steps-today":
            print("steps today: \(Int(try await queries.stepsToday()))")
        case "daily":
            let days = try await queries.dailyStepCounts()
            print("daily: " + days.map { "\(Int($0.date.timeIntervalSince1970 / 86_400)):\(Int($0.steps))" }.joined(separator: " "))
        default: throw AppError("unknown action \(action.verb)")
        }
        return "done"
    }
}

final class HealthViewModelApp: PairSimApp, @unchecked Sendable {
    // The app delegate of an iOS app is on the main actor; PairSim delivers on the app's executor,
    // where the main actor's isolation holds (so `assumeIsolated`, and @unchecked: only ever used there).
    let model = MainActor.assumeIsolated { HealthViewModel() }

    func didFinishLaunching(_ options: LaunchOptions) {
        MainActor.assumeIsolated {
            Self.observe(model)
            model.requestAccessAndLoad()
            model.startAutoRefresh(every: 600)
        }
    }

    /// Prints each change of the model's steps, as a SwiftUI view redraws (Observation).
    @MainActor static func observe(_ model: HealthViewModel) {
        withObservationTracking {
            _ = model.todaySteps
            _ = model.latestHeartRate
        } onChange: {
            Task { @MainActor in
                print("view: \(Int(model.todaySteps)) steps, heart rate \(model.latestHeartRate.map { String(Int($0)) } ?? "-")")
                observe(model)
            }
        }
    }

    func perform(_ action: UserAction) async throws -> String {
        try await MainActor.run {
            switch action.verb {
            case "show":
                print("model: steps \(Int(model.todaySteps)), heart rate \(model.latestHeartRate.map { String(Int($0)) } ?? "-"), "
                      + "updated \(model.lastUpdated.map { String(Int($0.timeIntervalSince1970)) } ?? "-"), error \(model.errorMessage ?? "none")")
            case "stop-refresh": model.stopAutoRefresh()
            case "recompute": model.recomputeInBackground()
            case "refresh-steps": model.refreshStepsWithCompletionHandler()
            default: throw AppError("unknown action \(action.verb)")
            }
            return "done"
        }
    }
}

final class ErrorsAndUnitsApp: PairSimApp {
    let health = HealthErrorsAndUnits()

    func didFinishLaunching(_ options: LaunchOptions) {
        health.logAuthorization()
        health.unitExamples()
        health.trackQueries()
    }

    func perform(_ action: UserAction) async throws -> String {
        switch action.verb {
        case "save-hrv":
            await health.saveAndDeleteHRV()
        case "errors":
            for code in [HKError.Code.errorDatabaseInaccessible, .errorNoData, .errorInvalidArgument, .errorAuthorizationDenied, .errorUserCanceled] {
                print("error \(code.rawValue): \(health.describe(HKError(code)))")
            }
        default: throw AppError("unknown action \(action.verb)")
        }
        return "done"
    }
}
