/// The session as persisted state: a watch killed mid-workout resumes it at restart.
extension WorkoutSession {
    public var json: JSON {
        var object: JSONObject = ["state": .string(stateName)]
        if let live {
            object.append("live", .object([
                "activity": .string(live.activity.name), "exercises": .array(live.exercises.map(JSON.string)),
                "start": .int(live.start.milliseconds), "number": .int(live.number),
                "recovered": .bool(live.recovered), "hasBuilder": .bool(live.hasBuilder),
                "segments": .array(live.segments.map { .array([.int($0.start.milliseconds), $0.end.map { .int($0.milliseconds) } ?? .null]) }),
            ]))
        }
        if case .crashed(_, let wasPaused) = state { object.append("wasPaused", .bool(wasPaused)) }
        return .object(object)
    }

    public init(json: JSON) throws(DecodeError) {
        guard let object = json.objectValue else { throw DecodeError(path: "watch.session", reason: "expected an object") }
        let reader = FieldReader(object, path: "watch.session")
        let name = try reader.string("state")
        self.init()
        if name == "idle" { return }
        if name == "ended" { state = .ended; return }
        let r = try reader.reader("live")
        let activityName = try r.string("activity")
        guard let activity = Activity.named(activityName) else {
            throw DecodeError(path: "watch.session.live.activity", reason: "unknown activity \(activityName)")
        }
        var segments: [Segment] = []
        for item in try r.array("segments", limit: 100_000) {
            guard let pair = item.arrayValue, pair.count == 2, let start = pair[0].intValue else {
                throw DecodeError(path: "watch.session.live.segments", reason: "expected [start, end]")
            }
            segments.append(Segment(start: EmulatedInstant(milliseconds: start), end: pair[1].intValue.map(EmulatedInstant.init(milliseconds:))))
        }
        var live = Live(activity: activity, exercises: try r.array("exercises", limit: 100).compactMap(\.stringValue),
                        start: try r.instant("start"), segments: segments, number: try r.int("number"))
        live.recovered = object["live"]?["recovered"]?.boolValue ?? false
        live.hasBuilder = object["live"]?["hasBuilder"]?.boolValue ?? true
        switch name {
        case "running": state = .running(live)
        case "paused": state = .paused(live)
        case "crashed": state = .crashed(live, wasPaused: object["wasPaused"]?.boolValue ?? false)
        default: throw DecodeError(path: "watch.session.state", reason: "unknown state \(name)")
        }
    }
}
