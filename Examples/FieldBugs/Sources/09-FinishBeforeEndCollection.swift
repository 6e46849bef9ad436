import PairSimKit

// 09 · finishWorkout() without endCollection(withEnd:) first.
// eerimoq/moblin#434 "End workouts the way Apple documents": stopping called finishWorkout() and then
// end() while the session still ran, endCollection was never called and the errors were ignored —
// rides were not saved to Health. The fix: end the session, end collection, then finish.

/// Buggy: finishes the workout straight away.
public final class FinishBeforeEndCollectionBuggy: WatchWorkoutApp {
    override public func finish(_ builder: HKLiveWorkoutBuilder, at date: Date) {
        builder.finishWorkout { workout, error in self.finished(workout, error) }
    }
}

/// Fixed: WatchWorkoutApp ends collection first.
public final class FinishBeforeEndCollectionFixed: WatchWorkoutApp {}
