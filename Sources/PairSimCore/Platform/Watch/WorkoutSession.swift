/// The watch's workout session: idle → running ⇄ paused → ended, plus crash and recovery.
public struct WorkoutSession: Hashable, Sendable {
    /// The live part of a session.
    public struct Live: Hashable, Sendable {
        public var activity: Activity
        public var exercises: [String]
        public var start: EmulatedInstant
        /// Active stretches; the last one is open (end nil) while running.
        public var segments: [Segment]
        /// Session number on this watch, fixing its random heart-rate series.
        public var number: Int64
        /// True once the session came back from a crash.
        public var recovered = false
        /// False when recovery lost the workout builder: finishing yields no HKWorkout.
        public var hasBuilder = true

        package init(activity: Activity, exercises: [String], start: EmulatedInstant, segments: [Segment], number: Int64,
                     recovered: Bool = false, hasBuilder: Bool = true) {
            self.activity = activity
            self.exercises = exercises
            self.start = start
            self.segments = segments
            self.number = number
            self.recovered = recovered
            self.hasBuilder = hasBuilder
        }

        /// Active time so far (pauses and crash gaps excluded); an open segment runs to `now`.
        public func activeDuration(at now: EmulatedInstant) -> EmulatedDuration {
            segments.reduce(EmulatedDuration.zero) { $0 + (($1.end ?? now) - $1.start) }
        }
    }

    /// One stretch of activity.
    public struct Segment: Hashable, Sendable {
        public var start: EmulatedInstant
        public var end: EmulatedInstant?

        package init(start: EmulatedInstant, end: EmulatedInstant?) {
            self.start = start
            self.end = end
        }
    }

    /// What a finished session leaves behind.
    public struct Finished: Hashable, Sendable {
        public var live: Live
        public var end: EmulatedInstant
        /// Total active time (pauses and crash gaps excluded).
        public var activeDuration: EmulatedDuration
    }

    public enum State: Hashable, Sendable {
        case idle
        case running(Live)
        case paused(Live)
        /// The watch app crashed mid-session; `recover` resumes it.
        case crashed(Live, wasPaused: Bool)
        /// The last session ended; a new one may start.
        case ended
    }

    public internal(set) var state: State = .idle

    public init() {}

    /// A session in `state` (what a restart reads back).
    package init(state: State) { self.state = state }

    /// The state's name for events and `status`: idle, running, paused, crashed, ended.
    public var stateName: String {
        switch state {
        case .idle: "idle"
        case .running: "running"
        case .paused: "paused"
        case .crashed: "crashed"
        case .ended: "ended"
        }
    }

    /// The live session, if one is in progress (running, paused or crashed).
    public var live: Live? {
        switch state {
        case .running(let live), .paused(let live), .crashed(let live, _): live
        case .idle, .ended: nil
        }
    }

    public mutating func start(_ activity: Activity, exercises: [String], number: Int64, now: EmulatedInstant) throws(CommandError) {
        switch state {
        case .idle, .ended:
            state = .running(Live(activity: activity, exercises: exercises, start: now,
                                  segments: [Segment(start: now, end: nil)], number: number))
        default:
            throw CommandError("start-workout: a \(live!.activity.name) session is already \(stateName); finish it first")
        }
    }

    public mutating func pause(now: EmulatedInstant) throws(CommandError) {
        guard case .running(var live) = state else { throw CommandError("pause: no running session (state: \(stateName))") }
        live.segments[live.segments.count - 1].end = now
        state = .paused(live)
    }

    public mutating func resume(now: EmulatedInstant) throws(CommandError) {
        guard case .paused(var live) = state else { throw CommandError("resume: no paused session (state: \(stateName))") }
        live.segments.append(Segment(start: now, end: nil))
        state = .running(live)
    }

    /// Ends the session; the caller builds the workout from the result.
    public mutating func finish(now: EmulatedInstant) throws(CommandError) -> Finished {
        var live: Live
        switch state {
        case .running(let current):
            live = current
            live.segments[live.segments.count - 1].end = now
        case .paused(let current):
            live = current
        case .crashed:
            throw CommandError("finish-workout: the session crashed; 'recover' it first")
        case .idle, .ended:
            throw CommandError("finish-workout: no session in progress (state: \(stateName))")
        }
        state = .ended
        return Finished(live: live, end: now, activeDuration: live.activeDuration(at: now))
    }

    /// The watch app dies mid-session.
    public mutating func crash(now: EmulatedInstant) throws(CommandError) {
        switch state {
        case .running(var live):
            live.segments[live.segments.count - 1].end = now
            state = .crashed(live, wasPaused: false)
        case .paused(let live):
            state = .crashed(live, wasPaused: true)
        default:
            throw CommandError("crash: no session in progress (state: \(stateName))")
        }
    }

    /// The app relaunches and recovers the session (`HKHealthStore.recoverActiveWorkoutSession`).
    /// With `keepBuilder` false the builder is gone, so finishing yields no HKWorkout.
    public mutating func recover(keepBuilder: Bool, now: EmulatedInstant) throws(CommandError) {
        guard case .crashed(var live, let wasPaused) = state else {
            throw CommandError("recover: nothing to recover (state: \(stateName))")
        }
        live.recovered = true
        live.hasBuilder = keepBuilder
        if wasPaused {
            state = .paused(live)
        } else {
            live.segments.append(Segment(start: now, end: nil))
            state = .running(live)
        }
    }
}
