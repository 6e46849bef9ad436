import Foundation
import PairSimKit

/// A small app as a developer would write it: it watches HRV with background delivery, reads the
/// latest value when HealthKit says it changed, and posts "HRV dropped" when HRV falls 20 % below
/// the average of the readings before it. On screen it waits for a quiet period on its own clock,
/// so a burst of readings gives one alert; woken in the background it checks at once — a wake
/// lasts seconds, and a suspended app's timers wait (PairSim shows both). Async/await throughout;
/// PairSim runs it deterministically.
public final class MyHealthApp: PairSimApp {
    public static let registration = AppRegistration(
        name: "my-health-app", summary: "alerts when HRV drops 20 % below its recent average",
        actions: [UserActionSpec("show-hrv", "", "the readings the app has seen and its baseline"),
                  UserActionSpec("crash", "", "a bug on purpose: the app traps; PairSim ends its process and the phone goes on")],
        make: { MyHealthApp() })

    let store = HKHealthStore()
    let clock = AppClock()
    let hrv = HKQuantityType(.heartRateVariabilitySDNN)!
    /// Readings seen this process (ms), oldest first.
    var readings: [Double] = []
    /// Bumped by each update; a check runs only if no newer update came during the quiet period.
    var generation = 0
    var onScreen = false

    public init() {}

    public func didFinishLaunching(_ options: LaunchOptions) {
        store.enableBackgroundDelivery(for: hrv, frequency: .immediate) { _, _ in }
        let query = HKObserverQuery(sampleType: hrv, predicate: nil) { [weak self] _, completion, _ in
            guard let self else { return completion() }
            AppTask {
                await self.update()
                completion()
            }
        }
        store.execute(query)
    }

    public func scenePhaseDidChange(to phase: AppScenePhase) { onScreen = phase != .background }

    /// Reads the newest HRV and compares it with the baseline: at once in the background, after
    /// 2 quiet minutes on screen.
    func update() async {
        guard let sample = try? await HKSampleQueryDescriptor(type: hrv, sort: .endDateDescending, limit: 1).result(for: store).first
                as? HKQuantitySample else { return }
        let value = sample.quantity.doubleValue(for: .secondUnit(with: .milli))
        if readings.last != value { readings.append(value) }
        generation += 1
        let mine = generation
        AppLog.event("myapp.reading", ["hrv": .double(value), "readings": .int(readings.count)])
        guard onScreen else { return check() }
        AppTask { [weak self] in
            try? await AppClock().sleep(for: .seconds(120))
            guard let self, self.generation == mine else { return }
            self.check()
        }
    }

    func check() {
        guard readings.count >= 3, let latest = readings.last else { return }
        let baseline = readings.dropLast().reduce(0, +) / Double(readings.count - 1)
        guard latest < baseline * 0.8 else { return }
        var content = UNMutableNotificationContent()
        content.title = "HRV dropped"
        content.body = String(format: "%.0f ms, %.0f %% below your recent %.0f ms", latest, (1 - latest / baseline) * 100, baseline)
        UNUserNotificationCenter.current().add(UNNotificationRequest(identifier: "hrv-drop", content: content))
    }

    public func perform(_ action: UserAction) async throws -> String {
        if action.verb == "crash" {
            let missing: Double? = nil
            return "never: \(missing!)"
        }
        guard action.verb == "show-hrv" else { throw AppError("unknown action \(action.verb)") }
        let baseline = readings.count > 1 ? readings.dropLast().reduce(0, +) / Double(readings.count - 1) : nil
        return "readings \(readings.map { String(format: "%.0f", $0) }.joined(separator: ", ")); baseline \(baseline.map { String(format: "%.1f", $0) } ?? "none")"
    }
}
