import Foundation
import PairSimKit

/// The iPhone app most entries start from, written as HealthKit's and WatchConnectivity's
/// documentation write one: at launch it enables background delivery of workouts, runs an
/// observer query, fetches what changed with an anchored object query whose anchor it archives in
/// `UserDefaults`, and calls the observer's completion handler whatever happened; it activates
/// `WCSession` at launch and answers every message that wants a reply.
///
/// Each entry's buggy app overrides the one place its bug lives (and its fixed app, where the fix
/// needs more than this). What it logs, for the scenarios to check:
/// - `gallery.workout uuid=… ended=HH:mm`: a workout the app took in (`ended` is the time it shows);
/// - `gallery.received via=message|userInfo keys=…`: something from the watch.
open class CompanionApp: PairSimApp, WCSessionDelegate {
    public let healthStore = HKHealthStore()
    public let workoutType = HKObjectType.workoutType()
    static let anchorKey = "workoutAnchor"

    public required init() {}

    // MARK: Launch

    open func didFinishLaunching(_ options: LaunchOptions) {
        startObservingWorkouts()
        activateSession()
    }

    open func scenePhaseDidChange(to phase: AppScenePhase) {}

    /// HealthKit's rule: observer queries and background delivery are set up before launching ends.
    open func startObservingWorkouts() {
        enableBackgroundDelivery()
        let query = HKObserverQuery(sampleType: workoutType, predicate: nil) { [unowned self] _, completionHandler, error in
            if let error = error {
                print("workout observer failed: \(error.localizedDescription)")
                completionHandler()
                return
            }
            self.fetchNewWorkouts { succeeded in
                self.syncFinished(succeeded, completionHandler)
            }
        }
        healthStore.execute(query)
    }

    open func enableBackgroundDelivery() {
        healthStore.enableBackgroundDelivery(for: workoutType, frequency: .immediate) { success, error in
            if !success { print("enableBackgroundDelivery failed: \(error?.localizedDescription ?? "")") }
        }
    }

    /// The observer's completion handler: called on every path, success or not.
    open func syncFinished(_ succeeded: Bool, _ completionHandler: @escaping HKObserverQueryCompletionHandler) {
        completionHandler()
    }

    // MARK: The anchored fetch

    /// The anchor of the last fetch whose workouts were stored, archived in UserDefaults.
    open var anchor: HKQueryAnchor? {
        get {
            guard let data = UserDefaults.standard.data(forKey: Self.anchorKey) else { return nil }
            return try? NSKeyedUnarchiver.unarchivedObject(ofClass: HKQueryAnchor.self, from: data)
        }
        set {
            guard let newValue = newValue,
                  let data = try? NSKeyedArchiver.archivedData(withRootObject: newValue, requiringSecureCoding: true) else {
                UserDefaults.standard.removeObject(forKey: Self.anchorKey)
                return
            }
            UserDefaults.standard.set(data, forKey: Self.anchorKey)
        }
    }

    open func fetchNewWorkouts(_ done: @escaping (Bool) -> Void) {
        let query = HKAnchoredObjectQuery(type: workoutType, predicate: nil, anchor: anchor, limit: HKObjectQueryNoLimit) {
            [unowned self] _, added, _, newAnchor, error in
            guard let added = added, error == nil else {
                print("anchored query failed: \(error?.localizedDescription ?? "no results")")
                done(false)
                return
            }
            self.store(added.compactMap { $0 as? HKWorkout }, newAnchor: newAnchor, done)
        }
        healthStore.execute(query)
    }

    /// Takes the workouts in, then moves the anchor past them.
    open func store(_ workouts: [HKWorkout], newAnchor: HKQueryAnchor?, _ done: @escaping (Bool) -> Void) {
        workouts.forEach(takeIn)
        anchor = newAnchor
        done(true)
    }

    public func takeIn(_ workout: HKWorkout) {
        AppLog.event("gallery.workout", ["uuid": .string(workout.uuid.uuidString), "ended": .string(Self.clockTime(shownDate(for: workout)))])
    }

    /// The time the app shows for a workout: when it ended.
    open func shownDate(for workout: HKWorkout) -> Date { workout.endDate }

    /// As the app shows it: in the phone's time zone (a new DateFormatter's default).
    static func clockTime(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm"
        return formatter.string(from: date)
    }

    // MARK: WatchConnectivity

    open func activateSession() {
        guard WCSession.isSupported() else { return }
        WCSession.default.delegate = self
        WCSession.default.activate()
    }

    public func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: Error?) {}
    public func sessionDidBecomeInactive(_ session: WCSession) {}
    public func sessionDidDeactivate(_ session: WCSession) { session.activate() }

    open func session(_ session: WCSession, didReceiveMessage message: [String: Any]) {
        received(message, via: "message")
    }

    /// Answers every message that wants a reply: the sender waits for it.
    open func session(_ session: WCSession, didReceiveMessage message: [String: Any], replyHandler: @escaping ([String: Any]) -> Void) {
        received(message, via: "message")
        replyHandler(["ok": true])
    }

    open func session(_ session: WCSession, didReceiveUserInfo userInfo: [String: Any]) {
        received(userInfo, via: "userInfo")
    }

    public func received(_ payload: [String: Any], via: String) {
        AppLog.event("gallery.received", ["via": .string(via), "keys": .string(payload.keys.sorted().joined(separator: ","))])
    }
}
