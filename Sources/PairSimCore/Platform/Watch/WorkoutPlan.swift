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
    /// With a hosted watch app: the next workout was started in the app and ends at `nextAt`.
    public var started = false

    public var json: JSON {
        var object: JSONObject = ["remaining": .int(Int64(remaining)), "every": .int(every.milliseconds), "duration": .int(duration.milliseconds),
                                  "nextAt": .int(nextAt.milliseconds), "generated": .int(Int64(generated))]
        // Written only when set: journals from before it existed read back as false.
        if started { object.append("started", true) }
        return .object(object)
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
        started = r.has("started") ? try r.bool("started") : false
    }
}

extension WatchModel {
    /// Starts a stream of `count` workouts, one ending every `every`, each `duration` long.
    mutating func generateWorkouts(count: Int, every: EmulatedDuration, duration: EmulatedDuration, first: EmulatedInstant?,
                                   now: EmulatedInstant) throws(CommandError) -> CommandResult {
        guard plan == nil || plan!.remaining == 0 else { throw CommandError("generate-workouts: a stream is already running (\(plan!.remaining) to go)") }
        guard session.live == nil, !(workout?.isRecoverable ?? false) else {
            throw CommandError("generate-workouts: finish the \(sessionStateName) session first")
        }
        guard duration <= every else { throw CommandError("generate-workouts: --duration \(duration) is longer than --every \(every)") }
        let firstEnd = first ?? now + every
        plan = WorkoutPlan(remaining: count, every: every, duration: duration, nextAt: firstEnd)
        return ok("generating \(count) workouts, one every \(every) (\(duration) each), the first ending at \(firstEnd)")
    }

    /// When the stream next needs the driver: with a hosted app, the next workout's start in the
    /// app, then its end; without one, the next workout's end.
    var planDeadline: EmulatedInstant? {
        guard let plan, plan.remaining > 0 else { return nil }
        return hostedApp == nil || plan.started ? plan.nextAt : plan.nextAt - plan.duration
    }

    /// With a hosted watch app the stream is the user's (R: A10): each workout is started in the
    /// app (`start-workout <activity>`) `duration` before its end and finished there
    /// (`finish-workout`) at its end; the node performs these as the user's actions, and the
    /// sensor reads live in between. A start or an end the watch was down for happens when it is
    /// back. Each waits for room in both outboxes, as the built-in stream's workouts do.
    public mutating func takePlannedActions(now: EmulatedInstant) -> [ParsedCommand] {
        guard hostedApp != nil else { return [] }
        var commands: [ParsedCommand] = []
        while var current = plan, current.remaining > 0, let due = planDeadline, due <= now, sync.hasRoom(.healthkit), sync.hasRoom(.cloudkit) {
            if current.started {
                commands.append(ParsedCommand(verb: "finish-workout"))
                current.started = false
                current.remaining -= 1
                current.generated += 1
                current.nextAt = current.nextAt + current.every
            } else {
                commands.append(ParsedCommand(verb: "start-workout", arguments: [Activity.all[current.generated % Activity.all.count].name]))
                current.started = true
            }
            plan = current
        }
        return commands
    }

    /// Produces every planned workout due by `now`, each stamped with its own scheduled time.
    mutating func runPlan(now: EmulatedInstant) -> [NodeAction] {
        guard hostedApp == nil else { return [] }
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
