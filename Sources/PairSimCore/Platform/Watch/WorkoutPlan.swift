/// `generate-workouts`: a stream of the user's workouts in the watch app at fixed emulated times,
/// rotating through the activities. The plan is persisted, so a node killed and restarted
/// mid-stream goes on with it: a workout under way is recovered by the relaunched app, and a start
/// or an end the watch was down for happens when it is back.
public struct WorkoutPlan: Hashable, Sendable {
    public var remaining: Int
    public var every: EmulatedDuration
    public var duration: EmulatedDuration
    /// End time of the next workout.
    public var nextAt: EmulatedInstant
    public var generated = 0
    /// The next workout was started in the app and ends at `nextAt`.
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
        guard !(workout?.isRecoverable ?? false) else {
            throw CommandError("generate-workouts: finish the \(sessionStateName) session first")
        }
        guard duration <= every else { throw CommandError("generate-workouts: --duration \(duration) is longer than --every \(every)") }
        let firstEnd = first ?? now + every
        plan = WorkoutPlan(remaining: count, every: every, duration: duration, nextAt: firstEnd)
        return ok("generating \(count) workouts, one every \(every) (\(duration) each), the first ending at \(firstEnd)")
    }

    /// When the stream next needs the driver: the next workout's start in the app, then its end.
    var planDeadline: EmulatedInstant? {
        guard let plan, plan.remaining > 0 else { return nil }
        return plan.started ? plan.nextAt : plan.nextAt - plan.duration
    }

    /// The stream is the user's (R: A10): each workout is started in the watch
    /// app (`start-workout <activity>`) `duration` before its end and finished there
    /// (`finish-workout`) at its end; the node performs these as the user's actions, and the
    /// sensor reads live in between. A start or an end the watch was down for happens when it is
    /// back. Each waits for room in both outboxes, as the built-in stream's workouts do.
    public mutating func takePlannedActions(now: EmulatedInstant) -> [ParsedCommand] {
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
}
