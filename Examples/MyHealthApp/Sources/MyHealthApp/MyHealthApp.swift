import Foundation
import PairSimKit

/// A small app as a developer would write it today: it watches HRV with background delivery, reads
/// the latest value when HealthKit says it changed, and posts "HRV dropped" when HRV falls 20 %
/// below the average of the readings before it. On screen it waits for a quiet period, so a burst
/// of readings gives one alert; woken in the background it checks at once — a wake lasts seconds,
/// and a suspended app's timers wait (PairSim shows both).
///
/// It also hears from its watch half (MyWatchApp) the UUID of each workout the watch saved, and
/// logs the workout once HealthKit has it: the message usually arrives before HealthKit's own
/// sync of the workout, so the UUID waits (in `UserDefaults`, surviving a relaunch) until the
/// workout observer says workouts changed.
///
/// Written the way Apple's sample code writes it — a `@MainActor` model, `Task { }`,
/// `Task.sleep(for:)`, `DispatchQueue.main.async`, `Date()` — and PairSim runs all of it on the
/// app's executor in emulated time: the same seed gives the same log, byte for byte.
public final class MyHealthApp: PairSimApp, WCSessionDelegate {
    public static let registration = AppRegistration(
        name: "my-health-app", summary: "alerts when HRV drops 20 % below its recent average",
        actions: [UserActionSpec("show-hrv", "", "the readings the app has seen and its baseline"),
                  UserActionSpec("crash", "", "a bug on purpose: the app traps; PairSim ends its process and the phone goes on")],
        make: { MyHealthApp() })

    let store = HKHealthStore()
    let hrv = HKQuantityType(.heartRateVariabilitySDNN)
    let model = MainActor.assumeIsolated { HRVModel() }
    var onScreen = false

    public init() {}

    public func didFinishLaunching(_ options: LaunchOptions) {
        store.enableBackgroundDelivery(for: hrv, frequency: .immediate) { _, _ in }
        let query = HKObserverQuery(sampleType: hrv, predicate: nil) { [weak self] _, completion, _ in
            guard let self else { return completion() }
            Task {
                await self.update()
                completion()
            }
        }
        store.execute(query)
        // Workouts: the watch's UUIDs wait for HealthKit's copy; the observer says when it came.
        store.enableBackgroundDelivery(for: .workoutType(), frequency: .immediate) { _, _ in }
        store.execute(HKObserverQuery(sampleType: .workoutType(), predicate: nil) { [weak self] _, completion, _ in
            guard let self else { return completion() }
            Task {
                await self.resolveWorkouts()
                completion()
            }
        })
        WCSession.default.delegate = self
        WCSession.default.activate()
    }

    // MARK: The watch's workouts

    static let pendingKey = "pendingWorkoutIDs"

    /// UUIDs the watch sent whose workout HealthKit does not have yet.
    var pendingWorkoutIDs: [String] {
        get { UserDefaults.standard.stringArray(forKey: Self.pendingKey) ?? [] }
        set { UserDefaults.standard.set(newValue, forKey: Self.pendingKey) }
    }

    public func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: Error?) {}

    public func session(_ session: WCSession, didReceiveMessage message: [String: Any]) { received(message, via: "message") }

    public func session(_ session: WCSession, didReceiveUserInfo userInfo: [String: Any]) { received(userInfo, via: "userInfo") }

    func received(_ payload: [String: Any], via: String) {
        guard let id = payload["workoutID"] as? String, UUID(uuidString: id) != nil else { return }
        AppLog.event("myapp.workout.announced", ["uuid": .string(id), "via": .string(via)])
        if !pendingWorkoutIDs.contains(id) { pendingWorkoutIDs.append(id) }
        Task { await resolveWorkouts() }
    }

    /// Looks each announced workout up by its UUID; one HealthKit has is logged and forgotten.
    func resolveWorkouts() async {
        for id in pendingWorkoutIDs {
            guard let uuid = UUID(uuidString: id) else { continue }
            let descriptor = HKSampleQueryDescriptor(predicates: [.workout(HKQuery.predicateForObject(with: uuid))], sortDescriptors: [], limit: 1)
            guard let workout = try? await descriptor.result(for: store).first else { continue }
            // The message and the workout observer can both be resolving at once (each awaits its
            // query): only the first to get here logs it.
            guard pendingWorkoutIDs.contains(id) else { continue }
            pendingWorkoutIDs.removeAll { $0 == id }
            AppLog.event("myapp.workout", ["uuid": .string(id), "minutes": .int(Int(workout.duration / 60))])
        }
    }

    public func scenePhaseDidChange(to phase: AppScenePhase) { onScreen = phase != .background }

    /// Reads the newest HRV and compares it with the baseline: at once in the background, after
    /// 2 quiet minutes on screen.
    func update() async {
        let latest = HKSampleQueryDescriptor(predicates: [.quantitySample(type: hrv)], sortDescriptors: [SortDescriptor(\.endDate, order: .reverse)], limit: 1)
        guard let sample = try? await latest.result(for: store).first else { return }
        let value = sample.quantity.doubleValue(for: .secondUnit(with: .milli))
        let (generation, count) = await model.add(value, at: Date())
        AppLog.event("myapp.reading", ["hrv": .double(value), "readings": .int(count)])
        guard onScreen else { return await model.check() }
        Task { [model] in
            try? await Task.sleep(for: .seconds(120))
            guard await model.generation == generation else { return }
            await model.check()
        }
    }

    public func perform(_ action: UserAction) async throws -> String {
        if action.verb == "crash" {
            let missing: Double? = nil
            return "never: \(missing!)"
        }
        guard action.verb == "show-hrv" else { throw AppError("unknown action \(action.verb)") }
        return await model.summary
    }
}

/// What the app knows, on the main actor as a SwiftUI view model would be.
@MainActor final class HRVModel {
    /// Readings seen this process (ms), oldest first.
    private(set) var readings: [Double] = []
    /// Bumped by each reading; a check runs only if no newer reading came during the quiet period.
    private(set) var generation = 0
    private(set) var lastReadingAt: Date?

    /// Takes a reading; returns its generation and how many readings there are.
    func add(_ value: Double, at date: Date) -> (generation: Int, count: Int) {
        if readings.last != value { readings.append(value) }
        generation += 1
        lastReadingAt = date
        return (generation, readings.count)
    }

    var baseline: Double? { readings.count > 1 ? readings.dropLast().reduce(0, +) / Double(readings.count - 1) : nil }

    /// How far below its baseline HRV must drop to alert: `hrvDropPercent` of the topology's
    /// `phone.app.settings` (PairSim's AppSettings), 20 % when not set.
    var dropPercent: Double {
        let set = AppSettings.standard.double(forKey: "hrvDropPercent")
        return set > 0 ? set : 20
    }

    /// Posts "HRV dropped" when the latest reading is `dropPercent` below the ones before it.
    func check() {
        guard readings.count >= 3, let latest = readings.last, let baseline, latest < baseline * (1 - dropPercent / 100) else { return }
        let content = UNMutableNotificationContent()
        content.title = "HRV dropped"
        content.body = String(format: "%.0f ms, %.0f %% below your recent %.0f ms", latest, (1 - latest / baseline) * 100, baseline)
        alert(content)
    }

    #if os(iOS) || PAIRSIM_IOS
    /// On the iPhone the alert is a local notification. (`PAIRSIM_IOS` keeps this branch alive in
    /// PairSim's Linux build — Package.swift defines it; in Xcode only `os(iOS)` counts.)
    func alert(_ content: UNMutableNotificationContent) {
        // As UI code hands work to the main queue.
        DispatchQueue.main.async {
            UNUserNotificationCenter.current().add(UNNotificationRequest(identifier: "hrv-drop", content: content))
        }
    }
    #else
    /// Elsewhere (a Mac build of the model, say) there is no one to tell.
    func alert(_ content: UNMutableNotificationContent) {}
    #endif

    var summary: String {
        let seen = lastReadingAt.map { ", last at \(ISO8601DateFormatter().string(from: $0))" } ?? ""
        return "readings \(readings.map { String(format: "%.0f", $0) }.joined(separator: ", ")); baseline \(baseline.map { String(format: "%.1f", $0) } ?? "none")" + seen
    }
}
