import Foundation
import PairSimKit

// 11 · The phone dates the watch's data with its own clock, on arrival.
// duxins/alog#37 "Wrong Timestamp in App": an entry recorded on the Apple Watch and opened on the
// iPhone days later carried the phone's date of arrival instead of the time it was recorded.
// Here a run recorded while the phone was out of range reaches the phone hours later; the app
// shows the time it took the workout in, not the time the workout ended.

/// Buggy: the time shown is the phone's `Date()` when the workout arrived.
public final class StampedOnArrivalBuggy: CompanionApp {
    override public func shownDate(for workout: HKWorkout) -> Date { Date() }
}

/// Fixed: CompanionApp shows the workout's own endDate.
public final class StampedOnArrivalFixed: CompanionApp {}
