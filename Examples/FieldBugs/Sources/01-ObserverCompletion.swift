import PairSimKit

// 01 · The observer's completion handler is called only when the sync succeeded.
// tryVital/vital-ios#42 "Always call HealthKit completion handlers": the SDK called HKObserverQuery's
// completion handler only after a successful sync; a run of failures (there: a bad network) left
// three wakes unanswered and HealthKit stopped background delivery for the app.
// Here the sync fails because the phone is locked: HealthKit still wakes the app
// (healthkit.wakeWhileLocked: true), but protected health data cannot be read until unlock.

/// Buggy: the completion handler waits for a successful sync.
public final class ObserverCompletionBuggy: CompanionApp {
    override public func syncFinished(_ succeeded: Bool, _ completionHandler: @escaping HKObserverQueryCompletionHandler) {
        if succeeded {
            completionHandler()
        }
    }
}

/// Fixed: CompanionApp calls it on every path.
public final class ObserverCompletionFixed: CompanionApp {}
