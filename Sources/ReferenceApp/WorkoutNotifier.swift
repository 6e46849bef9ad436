import Foundation
import PairSimKit

/// The workout-completed notification of seed 004 (R: D6): on a workout observer callback, query
/// the latest workout; a UUID different from the persisted last-seen one posts once; the first
/// launch only records; a failed (locked) query posts "open the app to update" instead, once
/// until a query succeeds again. Its memory is `UserDefaults`, as in the seed.
struct WorkoutNotifier {
    static let lastSeenKey = "workoutNotifier.lastSeenID"
    static let initializedKey = "workoutNotifier.initialized"
    static let lockedNoticeKey = "workoutNotifier.lockedNoticePosted"

    /// Handles one workout observer callback.
    func check(store: HKHealthStore) async {
        let defaults = AppDefaults.standard
        let latest: HKWorkout?
        do {
            latest = try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: [SortDescriptor(\.endDate, order: .reverse)], limit: 1)
                .result(for: store).first
        } catch {
            guard !defaults.bool(forKey: Self.lockedNoticeKey) else { return }
            defaults.set(true, forKey: Self.lockedNoticeKey)
            let content = UNMutableNotificationContent()
            content.title = "Device locked"
            content.body = "A workout synced while your iPhone was locked — open the app to update"
            UNUserNotificationCenter.current().add(UNNotificationRequest(identifier: "locked", content: content))
            return
        }
        defaults.set(false, forKey: Self.lockedNoticeKey)
        guard defaults.bool(forKey: Self.initializedKey) else {
            defaults.set(true, forKey: Self.initializedKey)
            defaults.set(latest?.uuid.uuidString, forKey: Self.lastSeenKey)
            AppLog.event("notification.suppressed", ["reason": "first launch: latest workout recorded", "uuid": latest.map { .string($0.uuid.uuidString) } ?? .null])
            return
        }
        guard let workout = latest, workout.uuid.uuidString != defaults.string(forKey: Self.lastSeenKey) else { return }
        defaults.set(workout.uuid.uuidString, forKey: Self.lastSeenKey)
        let content = UNMutableNotificationContent()
        content.title = "Workout completed"
        content.body = "\(WorkoutActivities.name(of: workout.workoutActivityType).capitalized) saved — open the app to see it"
        content.userInfo = ["uuid": workout.uuid.uuidString]
        UNUserNotificationCenter.current().add(UNNotificationRequest(identifier: workout.uuid.uuidString, content: content))
    }
}
