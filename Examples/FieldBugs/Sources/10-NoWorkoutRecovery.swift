import PairSimKit

// 10 · No crash recovery for a workout under way.
// darrylcauldwell/TetraTrack#143 "Watch missing crash recovery for active workout sessions": the watch
// app implemented neither handleActiveWorkoutRecovery() nor recoverActiveWorkoutSession(), so a
// crash mid-workout lost the session and what it had collected.

/// Buggy: ignores the relaunch; the session runs on with nobody to end it.
public final class NoWorkoutRecoveryBuggy: WatchWorkoutApp {
    override public func handleActiveWorkoutRecovery() {}
}

/// Fixed: WatchWorkoutApp takes the session back with recoverActiveWorkoutSession.
public final class NoWorkoutRecoveryFixed: WatchWorkoutApp {}
