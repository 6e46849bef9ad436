// PairSim's side of the source-compatibility suite, Swift 5 half (R: A13): the other files in this
// folder are written as Apple's documentation writes them, only `import HealthKit` /
// `import WatchConnectivity` changed to `import PairSimKit`. This one — PairSim's, not Apple's —
// makes each of them an app PairSim runs: what a real app's delegate and screens would call, as
// launches and UI actions, printing what a screen would show. Tests/Compatibility/Scenarios plays
// each; Tests/EndToEndTests/CompatibilityEndToEndTests.swift runs those twice and compares.

import Foundation
import PairSimKit

public enum Swift5CompatApps {
    public static let all: [AppRegistration] = [
        AppRegistration(name: "compat-observer-manager", summary: "ObserverManager.swift: observer queries with background delivery",
                        actions: [UserActionSpec("stop-steps", "", "ObserverManager.stop(type: steps)"),
                                  UserActionSpec("stop-all", "", "ObserverManager.stopAll()")],
                        make: { ObserverManagerApp() }),
        AppRegistration(name: "compat-anchored-sync", summary: "AnchoredSyncStore.swift: a long-running anchored query, its anchor archived in UserDefaults",
                        actions: [UserActionSpec("show", "", "how many samples the store mirrors"),
                                  UserActionSpec("reset", "", "resetAnchor(), then startSync() again")],
                        make: { AnchoredSyncApp() }),
        AppRegistration(name: "compat-weekly-steps", summary: "WeeklySteps.swift: a statistics-collection query of daily steps with updates",
                        actions: [UserActionSpec("stop", "", "WeeklySteps.stop()")],
                        make: { WeeklyStepsApp() }),
        AppRegistration(name: "compat-heart-rate-summary", summary: "HeartRateSummary.swift: today's heart-rate statistics and sample queries",
                        actions: [UserActionSpec("summary", "", "fetchTodaySummary"),
                                  UserActionSpec("elevated", "[THRESHOLD]", "fetchRecentElevatedReadings"),
                                  UserActionSpec("count", "", "fetchAllReadingsToday")],
                        make: { HeartRateSummaryApp() }),
        AppRegistration(name: "compat-workout-reader", summary: "WorkoutReader.swift: workouts, their statistics and sources",
                        actions: [UserActionSpec("log-workout", "MINUTES", "the phone app saves a workout of its own"),
                                  UserActionSpec("mine", "", "fetchMyRecentWorkouts"),
                                  UserActionSpec("all", "", "every workout, summarized, and whether it is this app's")],
                        make: { WorkoutReaderApp() }),
        AppRegistration(name: "compat-phone-session", summary: "PhoneSessionManager.swift: the iPhone's WCSession delegate",
                        actions: [UserActionSpec("send-summary", "STEPS HEARTRATE", "sendLatestSummary"),
                                  UserActionSpec("show", "", "what the manager received")],
                        make: { PhoneSessionApp() }),
        AppRegistration(name: "compat-watch-refresh", summary: "ExtensionDelegate.swift: a watch app kept fresh by background refresh tasks",
                        actions: [UserActionSpec("show", "", "the step count and how many refreshes ran")],
                        makeWatchApp: { WatchRefreshApp() }),
    ]
}

/// The delegate as PairSim's watch app: the same class, plus its screen.
final class WatchRefreshApp: ExtensionDelegate, PairSimWatchApp {
    func perform(_ action: UserAction) async throws -> String {
        guard action.verb == "show" else { throw AppError("unknown action \(action.verb)") }
        show("steps", "\(Int(stepsToday)) after \(refreshes) refresh(es)")
        return "done"
    }
}

/// Prints a line as an app's screen would show it, with a label.
private func show(_ label: String, _ value: Any) { print("\(label): \(value)") }

final class ObserverManagerApp: PairSimApp {
    func didFinishLaunching(_ options: LaunchOptions) { ObserverManager.shared.start() }

    func perform(_ action: UserAction) async throws -> String {
        switch action.verb {
        case "stop-steps": ObserverManager.shared.stop(type: HKQuantityType(.stepCount))
        case "stop-all": ObserverManager.shared.stopAll()
        default: throw AppError("unknown action \(action.verb)")
        }
        return "done"
    }
}

final class AnchoredSyncApp: PairSimApp {
    let store = AnchoredSyncStore()

    func didFinishLaunching(_ options: LaunchOptions) {
        store.onChange = { [store] added, deleted in
            show("synced", "+\(added) -\(deleted), \(store.samplesByID.count) kept")
        }
        store.startSync()
    }

    func perform(_ action: UserAction) async throws -> String {
        switch action.verb {
        case "show":
            let values = store.samplesByID.values.sorted { $0.startDate < $1.startDate }
                .map { Int($0.quantity.doubleValue(for: HKUnit(from: "count/min"))) }
            show("mirrored", values)
        case "reset":
            store.resetAnchor()
            store.startSync()
        default: throw AppError("unknown action \(action.verb)")
        }
        return "done"
    }
}

final class WeeklyStepsApp: PairSimApp {
    let steps = WeeklySteps()

    func didFinishLaunching(_ options: LaunchOptions) {
        steps.onUpdate = { totals in
            show("week", totals.map { "\(Int($0.date.timeIntervalSince1970 / 86_400)):\(Int($0.steps))" }.joined(separator: " "))
        }
        steps.start()
    }

    func perform(_ action: UserAction) async throws -> String {
        guard action.verb == "stop" else { throw AppError("unknown action \(action.verb)") }
        steps.stop()
        return "done"
    }
}

final class HeartRateSummaryApp: PairSimApp {
    let summary = HeartRateSummary()

    func didFinishLaunching(_ options: LaunchOptions) {}

    func perform(_ action: UserAction) async throws -> String {
        switch action.verb {
        case "summary":
            let result: String = await withCheckedContinuation { done in
                summary.fetchTodaySummary { summary, error in
                    guard let summary else { return done.resume(returning: "no summary: \(String(describing: error))") }
                    done.resume(returning: "avg \(summary.average ?? 0) min \(summary.minimum ?? 0) max \(summary.maximum ?? 0)")
                }
            }
            show("summary", result)
        case "elevated":
            let threshold = action.argument(0).flatMap(Double.init) ?? 100
            let readings: [(Date, Double)] = await withCheckedContinuation { done in
                summary.fetchRecentElevatedReadings(threshold: threshold) { done.resume(returning: $0) }
            }
            show("elevated", readings.map { "\(Int($0.0.timeIntervalSince1970))s:\(Int($0.1))" }.joined(separator: " "))
        case "count":
            let count: Int = await withCheckedContinuation { done in summary.fetchAllReadingsToday { done.resume(returning: $0) } }
            show("readings today", count)
        default: throw AppError("unknown action \(action.verb)")
        }
        return "done"
    }
}

final class WorkoutReaderApp: PairSimApp {
    let reader = WorkoutReader()

    func didFinishLaunching(_ options: LaunchOptions) {}

    func perform(_ action: UserAction) async throws -> String {
        switch action.verb {
        case "log-workout":
            let minutes = action.argument(0).flatMap(Double.init) ?? 30
            let end = Date()
            let workout = HKWorkout(activityType: .yoga, start: end.addingTimeInterval(-minutes * 60), end: end,
                                    totalEnergyBurned: HKQuantity(unit: .kilocalorie(), doubleValue: 3 * minutes))
            try await reader.healthStore.save(workout)
            show("saved", workout.uuid)
        case "mine":
            let mine: [WorkoutReader.WorkoutSummary] = await withCheckedContinuation { done in
                reader.fetchMyRecentWorkouts { done.resume(returning: $0) }
            }
            show("mine", mine.map(\.description))
        case "all":
            let all: [HKWorkout] = try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: [SortDescriptor(\.startDate)])
                .result(for: reader.healthStore)
            for workout in all {
                let summary = reader.summarize(workout)
                show("workout", "\(summary) avg HR \(summary.averageHeartRate.map { Int($0) } ?? 0), indoor \(summary.isIndoor), "
                     + "\(summary.sourceBundleIdentifier), this app's: \(reader.isFromThisApp(workout))")
                let found: HKWorkout? = await withCheckedContinuation { done in reader.fetchWorkout(with: workout.uuid) { done.resume(returning: $0) } }
                show("found by UUID", found?.uuid == workout.uuid)
            }
        default: throw AppError("unknown action \(action.verb)")
        }
        return "done"
    }
}

final class PhoneSessionApp: PairSimApp {
    func didFinishLaunching(_ options: LaunchOptions) {
        PhoneSessionManager.shared.onWatchStateChange = { paired, installed, reachable in
            show("watch state", "paired \(paired), installed \(installed), reachable \(reachable)")
        }
        PhoneSessionManager.shared.activate()
    }

    func perform(_ action: UserAction) async throws -> String {
        switch action.verb {
        case "send-summary":
            PhoneSessionManager.shared.sendLatestSummary(steps: action.argument(0).flatMap(Int.init) ?? 0,
                                                         heartRate: action.argument(1).flatMap(Double.init) ?? 0)
        case "show":
            let context = PhoneSessionManager.shared.lastReceivedContext
            show("context", context.keys.sorted().map { "\($0)=\(context[$0]!)" }.joined(separator: " "))
            show("user infos", PhoneSessionManager.shared.receivedUserInfos.count)
        default: throw AppError("unknown action \(action.verb)")
        }
        return "done"
    }
}
