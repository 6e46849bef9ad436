import Foundation
import PairSimKit

// 04 · The anchor is saved before the data it covers is stored.
// ryanbr/noop#1415 "commit the observer anchor only after ingestion, not before": the app saved the
// new HKQueryAnchor in the anchored query's handler, then ran its sync, which could bail out (a
// sync already under way, the store unavailable). Those samples were never stored, and the next
// wake saw nothing new: silent, permanent loss. The fix saves the anchor after the data is stored.

/// Fixed: the anchor moves only after the ingest stored the workouts; an ingest that bailed out
/// leaves it where it was, so the next wake fetches those workouts again.
public class AnchorBeforeIngestFixed: CompanionApp {
    var ingesting = false

    override public func store(_ workouts: [HKWorkout], newAnchor: HKQueryAnchor?, _ done: @escaping (Bool) -> Void) {
        ingest(workouts) { stored in
            if stored { self.anchor = newAnchor }
            done(stored)
        }
    }

    /// Stores the workouts: an upload that takes 10 s, refused while another is under way.
    func ingest(_ workouts: [HKWorkout], _ done: @escaping (Bool) -> Void) {
        guard !ingesting else {
            print("an ingest is under way; skipping \(workouts.count) workout(s)")
            done(false)
            return
        }
        ingesting = true
        Task {
            try? await Task.sleep(for: .seconds(10))
            self.ingesting = false
            workouts.forEach(self.takeIn)
            done(true)
        }
    }
}

/// Buggy: the anchor moves as soon as the query answers, whatever the ingest then does.
public final class AnchorBeforeIngestBuggy: AnchorBeforeIngestFixed {
    override public func store(_ workouts: [HKWorkout], newAnchor: HKQueryAnchor?, _ done: @escaping (Bool) -> Void) {
        anchor = newAnchor
        ingest(workouts, done)
    }
}
