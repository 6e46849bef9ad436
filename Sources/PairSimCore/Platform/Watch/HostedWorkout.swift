import Foundation

/// A hosted watch app's workout session and its live builder, as watchOS runs them (R: A9):
/// `HKWorkoutSession` moves through its states at the app's calls; while it runs and the builder
/// collects, the watch's sensor reads heart rate (and the active energy it implies) once per
/// `watch.heartRate.workoutInterval` of active time. Each reading is saved to the watch's HealthKit
/// store at once, synced to the phone, and handed to the builder (`workoutBuilder(_:didCollectDataOf:)`);
/// `finishWorkout()` saves the HKWorkout over the collection's interval. Apple: "Running workout
/// sessions" (HealthKit) — while a session runs, the watch saves the samples it collects.
public struct HostedWorkout: Hashable, Sendable {
    /// The app's session (PairSimKit's number for it).
    public var session: Int
    /// This watch's workout number (events, `status`).
    public var number: Int64
    public var activity: Activity
    public var state: WorkoutSessionState = .notStarted
    /// The types the builder's data source collects (nil: the builder has none, or has not begun).
    public var collecting: [SampleType]?
    public var collectionStart: EmulatedInstant?
    public var collectionEnd: EmulatedInstant?
    /// Active time collected so far, and since when it runs on (running and collecting).
    public var active = EmulatedDuration.zero
    public var activeSince: EmulatedInstant?
    /// The sensor's next reading.
    public var nextSampleAt: EmulatedInstant?
    /// Readings handed to the builder and not saved in the store yet, and when they will be
    /// (`liveSaveInterval`); the watch's process memory: a kill loses them, as the watch that is
    /// down reads nothing.
    public var unsaved: [HealthSample] = []
    public var saveAt: EmulatedInstant?
    /// Readings so far, and the heart-rate samples saved for the builder (the workout's, for its
    /// summary: `workout.finished samples=`).
    public var readings: Int64 = 0
    public var samples = 0
    public var energy = 0.0
    public var finished = false
    /// When the activity started (`startActivity(with:)`).
    public var startDate: EmulatedInstant?
    /// The system relaunched the app once already for this session (after a trap in its code).
    public var relaunched = false
    /// `crash`: the app's process died mid-session and is not relaunched until `recover`; the
    /// sensor's active time stops meanwhile, as the seeds' watch app's crash gap does.
    public var crashed = false
    /// `recover --no-builder`: the recovered session lost its builder's data, so `finishWorkout()`
    /// fails and the app saves its records without a workout (seed 002's edge case).
    public var builderLost = false
    /// The session came back from a `crash` (`status`'s `recovered`).
    public var wasRecovered = false
    var random: SplitMix64
    var steady: Double
    var noise = 0.0

    init(session: Int, number: Int64, activity: Activity, seed: UInt64) {
        self.session = session
        self.number = number
        self.activity = activity
        random = SplitMix64(seed: seed, label: "hosted-session#\(number)")
        steady = activity.steadyHeartRate + random.uniform(-6, 6)
    }

    /// The session is under way (the resting sensor waits).
    public var isActive: Bool { state == .running || state == .paused || state == .prepared }

    /// The session has not ended: a relaunched app may recover it.
    public var isRecoverable: Bool { state != .ended && state != .notStarted && !finished }

    /// Active time on to `now`.
    public func activeDuration(at now: EmulatedInstant) -> EmulatedDuration {
        active + (activeSince.map { now - $0 } ?? .zero)
    }

    /// Active time stops accruing (a pause, a stop, the end of collection).
    mutating func pauseActive(at instant: EmulatedInstant) {
        if let since = activeSince { active += max(.zero, instant - since) }
        activeSince = nil
        nextSampleAt = nil
    }

    /// Active time accrues from `instant` when the session runs and the builder collects. The
    /// sensor reads at every whole `interval` of active time, the first at the collection's start
    /// (as the seeds' watch app's series has a reading at 0 and one at the end when it falls on one).
    mutating func resumeActive(at instant: EmulatedInstant, interval: EmulatedDuration) {
        guard state == .running, collecting != nil, collectionEnd == nil, activeSince == nil, !crashed else { return }
        activeSince = instant
        nextSampleAt = instant + max(.zero, interval * readings - active)
    }

    /// `collectLive` has work at `now`: a reading due, or readings to save.
    func liveWorkDue(now: EmulatedInstant, flush: Bool) -> Bool {
        if collecting != nil, let due = nextSampleAt, due <= now { return true }
        return !unsaved.isEmpty && (flush || now >= (saveAt ?? now))
    }
}

/// The hosted app's requests of its workout session and builder.
extension WatchModel {
    /// An activity PairSim's sensor knows by name, else a moderate steady one.
    static func sensorActivity(_ name: String) -> Activity {
        Activity.named(name) ?? Activity(name: name, steadyHeartRate: 125, variability: 4, intervalSeconds: 0)
    }

    mutating func handleWorkout(_ session: Int, _ request: WorkoutRequest, now: EmulatedInstant) -> [NodeAction] {
        let interval = topology.watch.heartRateInterval
        // A session of the app's own, or a new one; another session still under way refuses it.
        func current(_ activity: String) -> HostedWorkout? {
            if let workout, workout.session == session { return workout }
            if let workout, workout.state != .ended, workout.state != .notStarted { return nil }
            hostedSessions += 1
            return HostedWorkout(session: session, number: hostedSessions, activity: Self.sensorActivity(activity), seed: seed)
        }
        switch request {
        case .prepare(let activity), .startActivity(let activity, _):
            guard var w = current(activity) else {
                call(.workoutSessionFailed(session: session, error: "errorAnotherWorkoutSessionStarted"))
                return [event(.workoutSession, now, level: .warning, ["session": .int(hostedSessions), "error": "errorAnotherWorkoutSessionStarted",
                                                                      "reason": "another workout session is under way"])]
            }
            workout = w
            if case .prepare = request {
                guard w.state == .notStarted else { return [] }
                return transition(&w, to: .prepared, at: stamp(now))
            }
            guard w.state == .notStarted || w.state == .prepared, case .startActivity(_, let at) = request else { return [] }
            w.startDate = at
            var actions = transition(&w, to: .running, at: at)
            // `at` is a date on the watch's clock; the sensor's schedule runs on true time (R: F5).
            w.resumeActive(at: max(time.clock.instant(reading: at), now), interval: interval)
            workout = w
            actions.append(event(.workoutStarted, now, ["activity": .string(w.activity.name), "session": .int(w.number)]))
            return actions
        case .pause, .resume, .stopActivity, .end:
            // A reading due at this instant is taken (and what was read saved) before active time stops.
            let collected = collectLive(now: now, flush: true)
            guard var w = workout, w.session == session else { return collected }
            let from = w.state
            switch request {
            case .pause where from == .running:
                w.pauseActive(at: now)
                return collected + transition(&w, to: .paused, at: stamp(now)) + [event(.workoutPaused, now, ["activity": .string(w.activity.name)])]
            case .resume where from == .paused:
                var actions = collected + transition(&w, to: .running, at: stamp(now))
                w.resumeActive(at: now, interval: interval)
                workout = w
                actions.append(event(.workoutResumed, now, ["activity": .string(w.activity.name)]))
                return actions
            case .stopActivity(let at) where from == .running || from == .paused:
                w.pauseActive(at: max(time.clock.instant(reading: at), now))
                return collected + transition(&w, to: .stopped, at: at)
            case .end where from != .ended:
                w.pauseActive(at: now)
                return collected + transition(&w, to: .ended, at: stamp(now))
            default:
                return collected
            }
        case .beginCollection(let id, let at, let types):
            guard var w = workout, w.session == session, w.collectionStart == nil else {
                call(.done(id: id, error: "errorInvalidArgument"))
                return []
            }
            w.collecting = types
            w.collectionStart = at
            w.resumeActive(at: max(time.clock.instant(reading: at), now), interval: interval)
            workout = w
            call(.done(id: id, error: nil))
            return []
        case .endCollection(let id, let at):
            let collected = collectLive(now: now, flush: true)
            guard var w = workout, w.session == session, w.collectionStart != nil, w.collectionEnd == nil else {
                call(.done(id: id, error: "errorInvalidArgument"))
                return collected
            }
            w.pauseActive(at: max(time.clock.instant(reading: at), now))
            w.collectionEnd = at
            workout = w
            call(.done(id: id, error: nil))
            return collected
        case .finish(let id):
            return finishHostedWorkout(session, id: id, now: now)
        case .recover(let id):
            return recoverHostedWorkout(session, id: id, now: now)
        case .discard:
            guard var w = workout, w.session == session else { return [] }
            w.pauseActive(at: now)
            w.finished = true
            workout = w
            return [event(.workoutSession, now, ["session": .int(w.number), "discarded": true])]
        }
    }

    /// `recoverActiveWorkoutSession`: the session under way, bound to the app's new handle, with
    /// what its builder collected; nil when there is none.
    mutating func recoverHostedWorkout(_ session: Int, id: Int, now: EmulatedInstant) -> [NodeAction] {
        guard var w = workout, w.isRecoverable else {
            call(.workoutRecovered(id: id, nil))
            return []
        }
        w.session = session
        workout = w
        var samples: [HealthSample] = []
        if let start = w.collectionStart {
            let reads = HealthReads(store: store, denied: [])
            for type in w.collecting ?? [] {
                if case .objects(let found, _) = reads.answer(.samples(.sample(type), from: start, to: w.collectionEnd ?? stamp(now), uuids: nil, newestFirst: false, limit: nil)) {
                    samples += found.filter { $0.source == .watchApp }
                }
            }
            samples += w.unsaved
        }
        var recovered = w.recovered(session: session, samples: samples)
        recovered.activeSince = recovered.activeSince.map(stamp) // the app measures elapsed time with its Date()
        call(.workoutRecovered(id: id, recovered))
        return [event(.workoutSession, now, ["session": .int(w.number), "recovered": true, "state": .string(w.state.name)])]
    }

    /// The session changes state: the app hears it (`workoutSession(_:didChangeTo:from:date:)`).
    mutating func transition(_ w: inout HostedWorkout, to state: WorkoutSessionState, at date: EmulatedInstant) -> [NodeAction] {
        let from = w.state
        w.state = state
        workout = w
        call(.workoutSessionChanged(session: w.session, to: state, from: from, date: date))
        return [event(.workoutSession, time.clock.instant(reading: date), ["session": .int(w.number), "from": .string(from.name), "to": .string(state.name)])]
    }

    /// `finishWorkout()`: the HKWorkout over the collection's interval, saved and synced; the
    /// samples collected before it are in the store already.
    mutating func finishHostedWorkout(_ session: Int, id: Int, now: EmulatedInstant) -> [NodeAction] {
        guard var w = workout, w.session == session, !w.finished, let start = w.collectionStart else {
            call(.workoutFinished(id: id, workout: nil, error: "errorInvalidArgument"))
            return []
        }
        guard let end = w.collectionEnd else {
            // Apple: call endCollection(withEnd:) before finishWorkout().
            call(.workoutFinished(id: id, workout: nil, error: "errorInvalidArgument"))
            return [event(.workoutFinishFailed, now, level: .warning, ["activity": .string(w.activity.name),
                                                                       "reason": "finishWorkout() before endCollection(withEnd:)"])]
        }
        // A recovered session without its builder fails; so does the finish `fail-finish` armed.
        var failure: (error: String, reason: String)?
        if w.builderLost {
            failure = ("errorNoData", "recovered session has no workout builder")
        } else if failNextFinish {
            failNextFinish = false
            failure = ("errorDatabaseInaccessible", "finishWorkout() failed (fail-finish)")
        }
        if let failure {
            counters.failedFinishes += 1
            call(.workoutFinished(id: id, workout: nil, error: failure.error))
            return [event(.workoutFinishFailed, now, level: .warning, ["activity": .string(w.activity.name), "reason": .string(failure.reason),
                                                                       "samples": .int(Int64(w.samples))])]
        }
        w.finished = true
        workout = w
        let energy = w.collecting?.contains(.activeEnergyBurned) == true ? w.energy.roundedToTenth : nil
        let made = Workout(uuid: uuids.next(at: now), activity: w.activity.name, start: start, end: max(end, start),
                           activeDuration: min(w.active, max(end, start) - start), activeEnergy: energy, source: .watchApp)
        let (saved, ops) = store.save(workouts: [made], samples: [])
        counters.workoutsFinished += 1
        call(.workoutFinished(id: id, workout: made, error: nil))
        var fields: JSONObject = ["uuid": .string(made.uuid.text), "activity": .string(made.activity),
                                  "duration": .string(w.active.description), "samples": .int(Int64(w.samples))]
        if let energy { fields.append("activeEnergy", .double(energy)) }
        return ops.map(NodeAction.persist) + [event(.workoutFinished, now, fields)]
            + sendObjects(HealthObjectsBatch(workouts: saved.workouts), now: now)
    }

    /// How often HealthKit saves a running workout's readings and syncs them to the phone: PairSim's
    /// choice (Apple documents neither), also taken when the session pauses, stops or ends and when
    /// the collection ends. Measured: syncing each 5 s reading as its own message made every
    /// workout scenario 5-10 times slower to simulate (CI's swarm phase 35 s → 187 s).
    static let liveSaveInterval = EmulatedDuration.minutes(1)

    /// The sensor's readings that came due, handed to the builder at once; saved in the watch's
    /// store and synced to the phone once a `liveSaveInterval` (or now, with `flush`).
    mutating func collectLive(now: EmulatedInstant, flush: Bool = false) -> [NodeAction] {
        // Most of the watch's turns have no reading due and nothing to save: leave the workout be
        // (a copy and a reassignment marked the session changed, every turn of a workout).
        guard let due = workout?.liveWorkDue(now: now, flush: flush) else { return [] }
        if !due {
            if workout!.unsaved.isEmpty, workout!.saveAt != nil { workout!.saveAt = nil } // nothing to save: no deadline
            return []
        }
        var w = workout!
        workout = nil // `w` is the only copy: the readings below append in place
        var actions: [NodeAction] = []
        if let types = w.collecting, var due = w.nextSampleAt, due <= now {
            let interval = topology.watch.heartRateInterval
            var made: [HealthSample] = []
            made.reserveCapacity(2) // one reading's heart rate and energy: most turns take one reading
            while due <= now {
                let t = (w.active + (due - (w.activeSince ?? due))).seconds
                let rate = heartRate.liveValue(activity: w.activity, steady: w.steady, t: t, noise: &w.noise, random: &w.random)
                if types.contains(.heartRate) {
                    made.append(HealthSample(uuid: uuids.next(at: due), type: .heartRate, start: stamp(due), end: stamp(due), value: rate, source: .watchApp))
                }
                if types.contains(.activeEnergyBurned), w.readings > 0 {
                    let kcal = HeartRateGenerator.activeEnergy(heartRate: rate, seconds: interval.seconds)
                    w.energy += kcal
                    made.append(HealthSample(uuid: uuids.next(at: due), type: .activeEnergyBurned, start: stamp(due - interval), end: stamp(due),
                                             value: (kcal * 1_000).rounded() / 1_000, source: .watchApp))
                }
                w.readings += 1
                due += interval
            }
            w.nextSampleAt = due
            w.samples += made.count(where: { $0.type == .heartRate })
            if !made.isEmpty {
                if w.saveAt == nil { w.saveAt = now + Self.liveSaveInterval }
                w.unsaved += made
                call(.workoutCollected(session: w.session, samples: made))
                var fields: JSONObject = ["session": .int(w.number), "samples": .int(Int64(made.count))]
                if let rate = made.last(where: { $0.type == .heartRate })?.value { fields.append("heartRate", .double(rate)) }
                actions.append(event(.workoutCollected, now, fields))
            }
        }
        guard !w.unsaved.isEmpty, flush || now >= (w.saveAt ?? now) else {
            if w.unsaved.isEmpty { w.saveAt = nil } // nothing to save: no deadline
            workout = w
            return actions
        }
        let (saved, ops) = store.save(workouts: [], samples: w.unsaved)
        w.unsaved = []
        // Once a minute while the sensor reads on.
        w.saveAt = w.activeSince != nil && !flush ? now + Self.liveSaveInterval : nil
        workout = w
        counters.samplesWritten += saved.samples.count
        return actions + ops.map(NodeAction.persist) + sendObjects(HealthObjectsBatch(samples: saved.samples), now: now)
    }
}
