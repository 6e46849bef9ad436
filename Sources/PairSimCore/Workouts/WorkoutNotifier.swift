import Foundation

/// The workout-completed notification of seed 004 (R: D6): on a workout observer callback, query
/// the latest workout; a UUID different from the persisted last-seen one posts once; the first
/// launch only records; a locked device posts "open the app to update" instead.
public struct WorkoutNotifier: Hashable, Sendable {
    /// What a callback led to.
    public enum Outcome: Hashable, Sendable {
        case posted(Workout)
        /// First launch: the latest workout (if any) is recorded without a notification.
        case recordedFirstLaunch(UUID?)
        /// Nothing new.
        case unchanged
        /// The query failed because the device is locked: post the locked notice (once per lock).
        case lockedNotice
        /// Locked and the notice was already posted.
        case lockedAgain
    }

    /// The stored last-seen workout id (UserDefaults in the seed).
    public internal(set) var lastSeenID: UUID?
    /// Set once the first callback recorded the latest workout.
    public internal(set) var initialized = false
    /// The locked notice was posted during the current lock.
    public internal(set) var lockedNoticePosted = false

    public init() {}

    /// Handles one workout observer callback; `latest` is nil when the query failed (locked).
    public mutating func callback(latest: Workout??) -> Outcome {
        guard let latest else {
            if lockedNoticePosted { return .lockedAgain }
            lockedNoticePosted = true
            return .lockedNotice
        }
        guard initialized else {
            initialized = true
            lastSeenID = latest?.uuid
            return .recordedFirstLaunch(latest?.uuid)
        }
        guard let workout = latest, workout.uuid != lastSeenID else { return .unchanged }
        lastSeenID = workout.uuid
        return .posted(workout)
    }

    /// The device unlocked: a later lock may post its notice again.
    public mutating func unlocked() { lockedNoticePosted = false }

    public var json: JSON {
        .object(["lastSeenID": .optional(lastSeenID?.text), "initialized": .bool(initialized),
                 "lockedNoticePosted": .bool(lockedNoticePosted)])
    }

    public mutating func restore(_ json: JSON) {
        lastSeenID = json["lastSeenID"]?.stringValue.flatMap { UUID(text: $0) }
        initialized = json["initialized"]?.boolValue ?? false
        lockedNoticePosted = json["lockedNoticePosted"]?.boolValue ?? false
    }
}
