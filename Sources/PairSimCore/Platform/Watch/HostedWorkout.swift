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
    /// Readings so far, and the samples saved for the builder (the workout's, for its summary).
    public var readings: Int64 = 0
    public var samples = 0
    public var energy = 0.0
    public var finished = false
    /// When the activity started (`startActivity(with:)`).
    public var startDate: EmulatedInstant?
    /// The system relaunched the app once already for this session (after a crash).
    public var relaunched = false
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

    /// Active time accrues from `instant` when the session runs and the builder collects.
    mutating func resumeActive(at instant: EmulatedInstant, interval: EmulatedDuration) {
        guard state == .running, collecting != nil, collectionEnd == nil, activeSince == nil else { return }
        activeSince = instant
        nextSampleAt = instant + interval
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
            guard var w = workout, w.session == session else { return [] }
            let from = w.state
            switch request {
            case .pause where from == .running:
                w.pauseActive(at: now)
                return transition(&w, to: .paused, at: stamp(now)) + [event(.workoutPaused, now, ["activity": .string(w.activity.name)])]
            case .resume where from == .paused:
                var actions = transition(&w, to: .running, at: stamp(now))
                w.resumeActive(at: now, interval: interval)
                workout = w
                actions.append(event(.workoutResumed, now, ["activity": .string(w.activity.name)]))
                return actions
            case .stopActivity(let at) where from == .running || from == .paused:
                w.pauseActive(at: max(time.clock.instant(reading: at), now))
                return transition(&w, to: .stopped, at: at)
            case .end where from != .ended:
                w.pauseActive(at: now)
                return transition(&w, to: .ended, at: stamp(now))
            default:
                return []
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
            guard var w = workout, w.session == session, w.collectionStart != nil, w.collectionEnd == nil else {
                call(.done(id: id, error: "errorInvalidArgument"))
                return []
            }
            w.pauseActive(at: max(time.clock.instant(reading: at), now))
            w.collectionEnd = at
            workout = w
            call(.done(id: id, error: nil))
            return []
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
        if failNextFinish {
            failNextFinish = false
            counters.failedFinishes += 1
            call(.workoutFinished(id: id, workout: nil, error: "errorDatabaseInaccessible"))
            return [event(.workoutFinishFailed, now, level: .warning, ["activity": .string(w.activity.name), "reason": "finishWorkout() failed (fail-finish)",
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

    /// The sensor's readings that came due: saved, synced, and handed to the builder.
    mutating func collectLive(now: EmulatedInstant) -> [NodeAction] {
        guard var w = workout, let types = w.collecting, var due = w.nextSampleAt, due <= now else { return [] }
        let interval = topology.watch.heartRateInterval
        var made: [HealthSample] = []
        while due <= now {
            let t = (w.active + (due - (w.activeSince ?? due))).seconds
            let rate = heartRate.liveValue(activity: w.activity, steady: w.steady, t: t, noise: &w.noise, random: &w.random)
            if types.contains(.heartRate) {
                made.append(HealthSample(uuid: uuids.next(at: due), type: .heartRate, start: stamp(due), end: stamp(due), value: rate, source: .watchApp))
            }
            if types.contains(.activeEnergyBurned) {
                let kcal = HeartRateGenerator.activeEnergy(heartRate: rate, seconds: interval.seconds)
                w.energy += kcal
                made.append(HealthSample(uuid: uuids.next(at: due), type: .activeEnergyBurned, start: stamp(due - interval), end: stamp(due),
                                         value: (kcal * 1_000).rounded() / 1_000, source: .watchApp))
            }
            w.readings += 1
            due += interval
        }
        w.nextSampleAt = due
        w.samples += made.count
        workout = w
        guard !made.isEmpty else { return [] }
        let (saved, ops) = store.save(workouts: [], samples: made)
        counters.samplesWritten += saved.samples.count
        call(.workoutCollected(session: w.session, samples: saved.samples))
        var fields: JSONObject = ["session": .int(w.number), "samples": .int(Int64(saved.samples.count))]
        if let rate = made.last(where: { $0.type == .heartRate })?.value { fields.append("heartRate", .double(rate)) }
        return ops.map(NodeAction.persist) + [event(.workoutCollected, now, fields)]
            + sendObjects(HealthObjectsBatch(samples: saved.samples), now: now)
    }
}

/// The hosted workout as persisted state: the session outlives the app's process and the node's
/// (R: A9), and a relaunched app recovers it (`recoverActiveWorkoutSession`).
extension HostedWorkout {
    /// What a restart keeps of the session (R: A9, K7): not the app's handle for it, nor the
    /// sensor's next reading (the sensor reads again from the restart).
    public struct Snapshot: Hashable, Sendable {
        public var number: Int64
        public var activity: String
        public var state: WorkoutSessionState
        public var collecting: [SampleType]?
        public var collectionStart: EmulatedInstant?
        public var collectionEnd: EmulatedInstant?
        public var active: EmulatedDuration
        public var activeSince: EmulatedInstant?
        public var readings: Int64
        public var samples: Int
        public var energy: Double
        public var finished: Bool
        public var startDate: EmulatedInstant?
        /// The sensor's random state, its steady rate and its noise now.
        public var random: UInt64
        public var steady: Double
        public var noise: Double

        package init(number: Int64, activity: String, state: WorkoutSessionState, collecting: [SampleType]?, collectionStart: EmulatedInstant?,
                     collectionEnd: EmulatedInstant?, active: EmulatedDuration, activeSince: EmulatedInstant?, readings: Int64, samples: Int,
                     energy: Double, finished: Bool, startDate: EmulatedInstant?, random: UInt64, steady: Double, noise: Double) {
            self.number = number
            self.activity = activity
            self.state = state
            self.collecting = collecting
            self.collectionStart = collectionStart
            self.collectionEnd = collectionEnd
            self.active = active
            self.activeSince = activeSince
            self.readings = readings
            self.samples = samples
            self.energy = energy
            self.finished = finished
            self.startDate = startDate
            self.random = random
            self.steady = steady
            self.noise = noise
        }
    }

    public var snapshot: Snapshot {
        Snapshot(number: number, activity: activity.name, state: state, collecting: collecting, collectionStart: collectionStart,
                 collectionEnd: collectionEnd, active: active, activeSince: activeSince, readings: readings, samples: samples, energy: energy,
                 finished: finished, startDate: startDate, random: random.state, steady: steady, noise: noise)
    }

    /// The session `snapshot` kept; the app's handle for it belongs to the process that made it:
    /// unbound until recovered.
    init(_ snapshot: Snapshot) {
        self.init(session: 0, number: snapshot.number, activity: WatchModel.sensorActivity(snapshot.activity), seed: 0)
        state = snapshot.state
        collecting = snapshot.collecting
        collectionStart = snapshot.collectionStart
        collectionEnd = snapshot.collectionEnd
        active = snapshot.active
        activeSince = snapshot.activeSince
        readings = snapshot.readings
        samples = snapshot.samples
        energy = snapshot.energy
        finished = snapshot.finished
        startDate = snapshot.startDate
        random = SplitMix64(seed: snapshot.random)
        steady = snapshot.steady
        noise = snapshot.noise
    }
}

extension HostedWorkout.Snapshot {
    /// The turn journal's spelling.
    var json: JSON {
        var object: JSONObject = [
            "number": .int(number), "activity": .string(activity), "state": .int(Int64(state.rawValue)),
            "active": .int(active.milliseconds), "readings": .int(readings), "samples": .int(Int64(samples)),
            "energy": .double(energy), "finished": .bool(finished), "random": .int(Int64(bitPattern: random)),
            "steady": .double(steady), "noise": .double(noise),
        ]
        if let collecting { object.append("collecting", .array(collecting.map { .string($0.rawValue) })) }
        if let collectionStart { object.append("collectionStart", .int(collectionStart.milliseconds)) }
        if let collectionEnd { object.append("collectionEnd", .int(collectionEnd.milliseconds)) }
        if let activeSince { object.append("activeSince", .int(activeSince.milliseconds)) }
        if let startDate { object.append("startDate", .int(startDate.milliseconds)) }
        return .object(object)
    }

    init(json: JSON) throws(DecodeError) {
        guard let object = json.objectValue else { throw DecodeError(path: "watch.hostedWorkout", reason: "expected an object") }
        let reader = FieldReader(object, path: "watch.hostedWorkout")
        guard let state = WorkoutSessionState(rawValue: Int(try reader.int("state", min: 1, max: 6))) else {
            throw DecodeError(path: "watch.hostedWorkout.state", reason: "not a session state")
        }
        var collecting: [SampleType]?
        if let list = object["collecting"]?.arrayValue {
            collecting = try list.map { item throws(DecodeError) in
                guard let name = item.stringValue, let type = SampleType(rawValue: name) else {
                    throw DecodeError(path: "watch.hostedWorkout.collecting", reason: "not a sample type")
                }
                return type
            }
        }
        // The app dates what it starts, unchecked on the way in (before the emulation's zero, or far
        // ahead): any instant, so a node never refuses its own session.
        func optional(_ key: String) throws(DecodeError) -> EmulatedInstant? {
            reader.has(key) ? EmulatedInstant(milliseconds: try reader.int(key)) : nil
        }
        self.init(number: try reader.int("number", min: 0), activity: try reader.string("activity", maxBytes: 256), state: state,
                  collecting: collecting, collectionStart: try optional("collectionStart"), collectionEnd: try optional("collectionEnd"),
                  active: .milliseconds(try reader.int("active", min: 0)), activeSince: try optional("activeSince"),
                  readings: try reader.int("readings", min: 0), samples: Int(try reader.int("samples", min: 0, max: Int64(Int32.max))),
                  energy: try reader.double("energy", min: 0), finished: try reader.bool("finished"), startDate: try optional("startDate"),
                  random: UInt64(bitPattern: try reader.int("random")), steady: try reader.double("steady", min: 0, max: 300),
                  noise: try reader.double("noise", min: -300, max: 300))
    }
}

extension HostedWorkout {
    /// What a relaunched app gets back (`recoverActiveWorkoutSession`).
    func recovered(session: Int, samples: [HealthSample]) -> RecoveredWorkout {
        RecoveredWorkout(session: session, activity: activity.name, state: state, startDate: startDate, collectionStart: collectionStart,
                         collecting: collecting ?? [], active: active, activeSince: activeSince, samples: samples)
    }
}

/// A workout session under way that a relaunched watch app recovers: its state and its builder's.
public struct RecoveredWorkout: Hashable, Sendable {
    public var session: Int
    public var activity: String
    public var state: WorkoutSessionState
    public var startDate: EmulatedInstant?
    public var collectionStart: EmulatedInstant?
    public var collecting: [SampleType]
    /// Active time up to `activeSince` (nil: not accruing now).
    public var active: EmulatedDuration
    public var activeSince: EmulatedInstant?
    /// What the builder collected so far (the store's readings of the collected types since the collection began).
    public var samples: [HealthSample]
}
