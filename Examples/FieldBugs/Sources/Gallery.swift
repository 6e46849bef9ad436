import PairSimKit

/// The gallery's apps, a buggy and a fixed one per entry (docs/FIELD-BUGS.md); `field-bugs`
/// runs them, and `Examples/FieldBugs/gallery.tsv` says which scenario each entry plays.
public enum FieldBugs {
    static func phone(_ name: String, _ summary: String, _ make: @escaping @Sendable () -> any PairSimApp) -> AppRegistration {
        AppRegistration(name: name, summary: summary, actions: [], make: make)
    }

    static func watch(_ name: String, _ summary: String, _ make: @escaping @Sendable () -> any PairSimWatchApp) -> AppRegistration {
        AppRegistration(name: name, summary: summary, actions: WatchWorkoutApp.actions, makeWatchApp: make)
    }

    public static let all: [AppRegistration] = [
        phone("observer-completion-buggy", "01: calls the observer's completion handler only after a successful sync", { ObserverCompletionBuggy() }),
        phone("observer-completion-fixed", "01: calls it on every path", { ObserverCompletionFixed() }),
        phone("observers-late-buggy", "02: sets up its observer query when its screen first becomes active", { ObserversRegisteredLateBuggy() }),
        phone("observers-late-fixed", "02: sets it up while launching", { ObserversRegisteredLateFixed() }),
        phone("no-background-delivery-buggy", "03: an observer query without enableBackgroundDelivery", { NoBackgroundDeliveryBuggy() }),
        phone("no-background-delivery-fixed", "03: with background delivery", { NoBackgroundDeliveryFixed() }),
        phone("anchor-before-ingest-buggy", "04: saves the anchor before the workouts are stored", { AnchorBeforeIngestBuggy() }),
        phone("anchor-before-ingest-fixed", "04: saves it after", { AnchorBeforeIngestFixed() }),
        phone("anchor-in-memory-buggy", "05: keeps the anchor only in memory", { AnchorInMemoryBuggy() }),
        phone("anchor-in-memory-fixed", "05: archives it in UserDefaults", { AnchorInMemoryFixed() }),
        phone("session-late-buggy", "06: activates WCSession when its screen becomes active", { SessionActivatedLateBuggy() }),
        phone("session-late-fixed", "06: activates it while launching", { SessionActivatedLateFixed() }),
        phone("reply-never-sent-buggy", "07: replies only to messages carrying a workout", { ReplyNeverSentBuggy() }),
        phone("reply-never-sent-fixed", "07: replies to every message that wants a reply", { ReplyNeverSentFixed() }),
        watch("message-no-fallback-buggy", "08: sends the workout's UUID with sendMessage only", { MessageWithoutFallbackBuggy() }),
        watch("message-no-fallback-fixed", "08: falls back to transferUserInfo", { MessageWithoutFallbackFixed() }),
        watch("finish-before-end-collection-buggy", "09: finishWorkout() without endCollection first", { FinishBeforeEndCollectionBuggy() }),
        watch("finish-before-end-collection-fixed", "09: endCollection, then finishWorkout()", { FinishBeforeEndCollectionFixed() }),
        watch("no-workout-recovery-buggy", "10: no handleActiveWorkoutRecovery()", { NoWorkoutRecoveryBuggy() }),
        watch("no-workout-recovery-fixed", "10: recovers the session", { NoWorkoutRecoveryFixed() }),
        phone("stamped-on-arrival-buggy", "11: shows a workout at the time it arrived", { StampedOnArrivalBuggy() }),
        phone("stamped-on-arrival-fixed", "11: shows its endDate", { StampedOnArrivalFixed() }),
        phone("observer-per-foreground-buggy", "12: executes another observer query each time it comes on screen", { ObserverPerForegroundBuggy() }),
        phone("observer-per-foreground-fixed", "12: one observer query per launch", { ObserverPerForegroundFixed() }),
        phone("companion", "the iPhone app the watch entries talk to (every entry's fixed phone app)", { CompanionApp() }),
    ]
}
