import Foundation
import PairSimKit

/// An iPhone app kept fresh by BackgroundTasks, written as Apple's "Refreshing and Maintaining Your
/// App Using Background Tasks" sample writes one (R: F2): it registers an app-refresh handler and a
/// database-cleaning (processing) handler while launching; each time it leaves the screen it
/// schedules a refresh no earlier than 15 minutes away and the cleaning for when the phone is idle
/// and on power; each refresh schedules the next one first, reads the last hour's heart rate, and
/// completes. Leaving the screen, it finishes saving its state inside a UIKit background task, as
/// "Extending your app's background execution time" shows — the save takes `saveSeconds` (the
/// topology's `phone.app.settings`, 3 s when not set), so a long one meets the task's expiration.
public final class BackgroundRefreshApp: PairSimApp {
    public static let registration = AppRegistration(
        name: "background-refresh", summary: "BGTaskScheduler refresh and processing tasks, and a UIKit background task on leaving the screen",
        actions: [], make: { BackgroundRefreshApp() })

    static let refreshIdentifier = "com.example.pairsim.refresh"
    static let cleaningIdentifier = "com.example.pairsim.db_cleaning"

    let healthStore = HKHealthStore()
    var saveTask: Task<Void, Never>?

    public init() {}

    public func didFinishLaunching(_ options: LaunchOptions) {
        print("Launched (\(options.reason.rawValue))")
        BGTaskScheduler.shared.register(forTaskWithIdentifier: Self.refreshIdentifier, using: nil) { task in
            self.handleAppRefresh(task: task as! BGAppRefreshTask)
        }
        BGTaskScheduler.shared.register(forTaskWithIdentifier: Self.cleaningIdentifier, using: nil) { task in
            self.handleDatabaseCleaning(task: task as! BGProcessingTask)
        }
    }

    public func scenePhaseDidChange(to phase: AppScenePhase) {
        guard phase == .background else { return }
        scheduleAppRefresh()
        scheduleDatabaseCleaning()
        saveState()
    }

    // MARK: Scheduling

    func scheduleAppRefresh() {
        let request = BGAppRefreshTaskRequest(identifier: Self.refreshIdentifier)
        // Fetch no earlier than 15 minutes from now.
        request.earliestBeginDate = Date(timeIntervalSinceNow: 15 * 60)
        do {
            try BGTaskScheduler.shared.submit(request)
        } catch {
            print("Could not schedule app refresh: \(error)")
        }
    }

    func scheduleDatabaseCleaning() {
        let request = BGProcessingTaskRequest(identifier: Self.cleaningIdentifier)
        request.requiresNetworkConnectivity = false
        request.requiresExternalPower = true
        do {
            try BGTaskScheduler.shared.submit(request)
        } catch {
            print("Could not schedule database cleaning: \(error)")
        }
    }

    // MARK: Handling launch for tasks

    func handleAppRefresh(task: BGAppRefreshTask) {
        // Schedule a new refresh task.
        scheduleAppRefresh()

        let heartRate = HKQuantityType(.heartRate)
        let lastHour = HKQuery.predicateForSamples(withStart: Date(timeIntervalSinceNow: -3600), end: Date(), options: [])
        let query = HKStatisticsQuery(quantityType: heartRate, quantitySamplePredicate: lastHour, options: .discreteAverage) { _, statistics, error in
            if let average = statistics?.averageQuantity() {
                print("Refreshed: \(Int(average.doubleValue(for: HKUnit.count().unitDivided(by: .minute())))) bpm over the last hour")
            } else {
                print("Refreshed: no heart rate in the last hour (\(error?.localizedDescription ?? "no samples"))")
            }
            // Show the new figure on the Home Screen widget.
            WidgetCenter.shared.reloadTimelines(ofKind: "HeartRateWidget")
            task.setTaskCompleted(success: error == nil)
        }
        // Provide the background task with an expiration handler that cancels the operation.
        task.expirationHandler = {
            self.healthStore.stop(query)
        }
        healthStore.execute(query)
    }

    func handleDatabaseCleaning(task: BGProcessingTask) {
        let cleaning = Task {
            try? await Task.sleep(for: .seconds(90))
            guard !Task.isCancelled else { return }
            print("Cleaned the database")
            task.setTaskCompleted(success: true)
        }
        task.expirationHandler = {
            cleaning.cancel()
            task.setTaskCompleted(success: false)
        }
    }

    // MARK: Finishing work in the background

    func saveState() {
        let configured = AppSettings.standard.double(forKey: "saveSeconds")
        let seconds = configured > 0 ? configured : 3
        var taskID = UIBackgroundTaskIdentifier.invalid
        taskID = UIApplication.shared.beginBackgroundTask(withName: "Finish saving") {
            // End the activity if time expires.
            print("Finishing the save was cut short")
            self.saveTask?.cancel()
            UIApplication.shared.endBackgroundTask(taskID)
            taskID = .invalid
        }
        saveTask = Task {
            try? await Task.sleep(for: .seconds(seconds))
            guard !Task.isCancelled else { return }
            UserDefaults.standard.set(Date(), forKey: "savedAt")
            print("Saved")
            UIApplication.shared.endBackgroundTask(taskID)
            taskID = .invalid
        }
    }
}
