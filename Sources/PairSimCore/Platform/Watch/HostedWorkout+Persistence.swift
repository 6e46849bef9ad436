import Foundation

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
        /// `crash`: the app's process died and waits for `recover`; `recover --no-builder` lost the builder.
        public var crashed = false
        public var builderLost = false
        public var wasRecovered = false

        package init(number: Int64, activity: String, state: WorkoutSessionState, collecting: [SampleType]?, collectionStart: EmulatedInstant?,
                     collectionEnd: EmulatedInstant?, active: EmulatedDuration, activeSince: EmulatedInstant?, readings: Int64, samples: Int,
                     energy: Double, finished: Bool, startDate: EmulatedInstant?, random: UInt64, steady: Double, noise: Double,
                     crashed: Bool = false, builderLost: Bool = false, wasRecovered: Bool = false) {
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
            self.crashed = crashed
            self.builderLost = builderLost
            self.wasRecovered = wasRecovered
        }
    }

    public var snapshot: Snapshot {
        Snapshot(number: number, activity: activity.name, state: state, collecting: collecting, collectionStart: collectionStart,
                 collectionEnd: collectionEnd, active: active, activeSince: activeSince, readings: readings, samples: samples, energy: energy,
                 finished: finished, startDate: startDate, random: random.state, steady: steady, noise: noise,
                 crashed: crashed, builderLost: builderLost, wasRecovered: wasRecovered)
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
        crashed = snapshot.crashed
        builderLost = snapshot.builderLost
        wasRecovered = snapshot.wasRecovered
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
        // Written only when set: journals from before they existed read back as false.
        if crashed { object.append("crashed", true) }
        if builderLost { object.append("builderLost", true) }
        if wasRecovered { object.append("recovered", true) }
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
                  noise: try reader.double("noise", min: -300, max: 300),
                  crashed: reader.has("crashed") ? try reader.bool("crashed") : false,
                  builderLost: reader.has("builderLost") ? try reader.bool("builderLost") : false,
                  wasRecovered: reader.has("recovered") ? try reader.bool("recovered") : false)
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
