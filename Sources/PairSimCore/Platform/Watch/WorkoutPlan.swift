/// `generate-workouts`: a stream of workouts at fixed emulated times. Each one depends only on the
/// seed and its place in the stream, and the plan is persisted with each workout, so a node killed
/// and restarted mid-stream produces exactly what an uninterrupted one would.
public struct WorkoutPlan: Hashable, Sendable {
    public var remaining: Int
    public var every: EmulatedDuration
    public var duration: EmulatedDuration
    /// End time of the next workout.
    public var nextAt: EmulatedInstant
    public var generated = 0

    public var json: JSON {
        .object(["remaining": .int(Int64(remaining)), "every": .int(every.milliseconds), "duration": .int(duration.milliseconds),
                 "nextAt": .int(nextAt.milliseconds), "generated": .int(Int64(generated))])
    }

    public init(remaining: Int, every: EmulatedDuration, duration: EmulatedDuration, nextAt: EmulatedInstant) {
        self.remaining = remaining
        self.every = every
        self.duration = duration
        self.nextAt = nextAt
    }

    /// The plan the turn journal spelled as `json`; a member missing or out of range is an error naming it.
    public init(json: JSON) throws(DecodeError) {
        guard let object = json.objectValue else { throw DecodeError(path: "watch.plan", reason: "expected an object") }
        let r = FieldReader(object, path: "watch.plan")
        let count = Int64(Int32.max)
        // Any duration and instant `generate-workouts` accepts (durations up to ~9e15 ms), so a node
        // never refuses its own plan.
        self.init(remaining: Int(try r.int("remaining", min: 0, max: count)), every: .milliseconds(try r.int("every", min: 0)),
                  duration: .milliseconds(try r.int("duration", min: 0)), nextAt: EmulatedInstant(milliseconds: try r.int("nextAt")))
        generated = Int(try r.int("generated", min: 0, max: count))
    }
}

extension WatchModel {
    /// Starts a stream of `count` workouts, one ending every `every`, each `duration` long.
    mutating func generateWorkouts(count: Int, every: EmulatedDuration, duration: EmulatedDuration, first: EmulatedInstant?,
                                   now: EmulatedInstant) throws(CommandError) -> CommandResult {
        guard plan == nil || plan!.remaining == 0 else { throw CommandError("generate-workouts: a stream is already running (\(plan!.remaining) to go)") }
        guard session.live == nil else { throw CommandError("generate-workouts: finish the \(session.stateName) session first") }
        guard duration <= every else { throw CommandError("generate-workouts: --duration \(duration) is longer than --every \(every)") }
        let firstEnd = first ?? now + every
        plan = WorkoutPlan(remaining: count, every: every, duration: duration, nextAt: firstEnd)
        return ok("generating \(count) workouts, one every \(every) (\(duration) each), the first ending at \(firstEnd)")
    }

    /// Produces every planned workout due by `now`, each stamped with its own scheduled time.
    mutating func runPlan(now: EmulatedInstant) -> [NodeAction] {
        var actions: [NodeAction] = []
        while var current = plan, current.remaining > 0, current.nextAt <= now {
            guard sync.hasRoom(.healthkit), sync.hasRoom(.cloudkit) else {
                return actions + [sync.outboxFullEvent(sync.hasRoom(.healthkit) ? .cloudkit : .healthkit, now: now)]
            }
            let end = current.nextAt
            let start = end - current.duration
            let activity = Activity.all[current.generated % Activity.all.count]
            // Numbered and seeded by its place in the stream alone, so no other activity on the watch
            // (sessions, resting samples, restarts) changes what it contains.
            let live = WorkoutSession.Live(activity: activity, exercises: activity.defaultExercises, start: start,
                                           segments: [WorkoutSession.Segment(start: start, end: end)],
                                           number: (1 << 32) + Int64(current.generated))
            let shared = uuids
            uuids = UUIDGenerator(seed: seed, label: "plan#\(current.generated)")
            actions += complete(WorkoutSession.Finished(live: live, end: end, activeDuration: current.duration), failure: nil, now: end).actions
            uuids = shared
            current.remaining -= 1
            current.generated += 1
            current.nextAt = end + current.every
            plan = current
        }
        return actions
    }
}
