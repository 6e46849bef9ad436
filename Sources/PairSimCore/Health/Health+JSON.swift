import Foundation

extension HealthSample {
    /// Wire form: `{"uuid","type","start","end","value","source"}`.
    public var json: JSON {
        var o = JSONObject()
        o.append("uuid", .string(uuid.text))
        o.append("type", .string(type.rawValue))
        o.append("start", .int(start.milliseconds))
        o.append("end", .int(end.milliseconds))
        o.append("value", .double(value))
        o.append("source", .string(source.name))
        return .object(o)
    }

    public init(reading r: FieldReader) throws(DecodeError) {
        try r.only(WireKeys.sample)
        let typeName = try r.string("type")
        guard let type = SampleType(rawValue: typeName) else {
            throw DecodeError(path: "\(r.path).type", reason: "unknown sample type \"\(typeName.prefix(40))\"")
        }
        let start = try r.instant("start")
        let end = try r.instant("end")
        guard end >= start else { throw DecodeError(path: "\(r.path).end", reason: "is before start") }
        let value = try r.double("value", min: type.validRange.lowerBound, max: type.validRange.upperBound)
        guard type.acceptsValue(value) else { throw DecodeError(path: "\(r.path).value", reason: "\(type.rawValue) takes whole category numbers, got \(value)") }
        self.init(uuid: try r.uuid("uuid"), type: type, start: start, end: end, value: value, source: try r.source("source"))
    }
}

extension Workout {
    /// Wire form: `{"uuid","activity","start","end","activeDuration","activeEnergy","source"}`.
    public var json: JSON {
        var o = JSONObject()
        o.append("uuid", .string(uuid.text))
        o.append("activity", .string(activity))
        o.append("start", .int(start.milliseconds))
        o.append("end", .int(end.milliseconds))
        o.append("activeDuration", .int(activeDuration.milliseconds))
        o.append("activeEnergy", activeEnergy.map(JSON.double) ?? .null)
        o.append("source", .string(source.name))
        return .object(o)
    }

    public init(reading r: FieldReader) throws(DecodeError) {
        try r.only(WireKeys.workout)
        let start = try r.instant("start")
        let end = try r.instant("end")
        guard end >= start else { throw DecodeError(path: "\(r.path).end", reason: "is before start") }
        let active = try r.int("activeDuration", min: 0, max: end.milliseconds - start.milliseconds)
        self.init(uuid: try r.uuid("uuid"), activity: try r.string("activity", maxBytes: Workout.maxActivityBytes), start: start, end: end,
                  activeDuration: .milliseconds(active),
                  activeEnergy: try r.optionalDouble("activeEnergy", min: 0, max: 50_000),
                  source: try r.source("source"))
    }
}

extension ExerciseRecord {
    /// Wire form: `{"id","exercise","start","duration","calories","healthKitWorkoutID","source"}`.
    public var json: JSON {
        var o = JSONObject()
        o.append("id", .string(id.text))
        o.append("exercise", .string(exercise))
        o.append("start", .int(start.milliseconds))
        o.append("duration", .int(duration.milliseconds))
        o.append("calories", calories.map(JSON.double) ?? .null)
        o.append("healthKitWorkoutID", .optional(healthKitWorkoutID?.text))
        o.append("source", .string(source.name))
        return .object(o)
    }

    public init(reading r: FieldReader) throws(DecodeError) {
        try r.only(WireKeys.record)
        self.init(id: try r.uuid("id"), exercise: try r.string("exercise", maxBytes: Workout.maxActivityBytes), start: try r.instant("start"),
                  duration: .milliseconds(try r.int("duration", min: 0, max: 1 << 40)),
                  calories: try r.optionalDouble("calories", min: 0, max: 50_000),
                  healthKitWorkoutID: try r.optionalUUID("healthKitWorkoutID"),
                  source: try r.source("source"))
    }
}

extension DeletedObject {
    public var json: JSON { .object(["uuid": .string(uuid.text), "type": .string(type.name)]) }

    public init(reading r: FieldReader) throws(DecodeError) {
        try r.only(WireKeys.deleted)
        let typeName = try r.string("type")
        // The wire takes HealthKit's names only (`heartRate`, `workout`); commands' shortcuts
        // (`hr`, `workouts`) are for people typing.
        guard let type = typeName == "workout" ? .workout : SampleType(rawValue: typeName).map(ObjectType.sample) else {
            throw DecodeError(path: "\(r.path).type", reason: "unknown object type \"\(typeName.prefix(40))\" (a sample type or workout)")
        }
        self.init(uuid: try r.uuid("uuid"), type: type)
    }
}

extension Workout {
    /// Longest activity (workout) or exercise (record) name the wire takes, in UTF-8 bytes.
    public static let maxActivityBytes = 256

    /// Why the peer would refuse this workout on the wire (a name too long, a number out of
    /// range), or nil: the wire's own reader decides, so the platform's API and docs/PROTOCOL.md
    /// cannot disagree.
    public var wireProblem: String? {
        do { _ = try Workout(reading: FieldReader(json.objectValue!, path: "workout")); return nil } catch { return error.description }
    }
}

extension HealthSample {
    /// Why the peer would refuse this sample on the wire, or nil.
    public var wireProblem: String? {
        do { _ = try HealthSample(reading: FieldReader(json.objectValue!, path: "sample")); return nil } catch { return error.description }
    }
}

extension ExerciseRecord {
    /// Why the peer would refuse this record on the wire (an exercise name over 256 bytes,
    /// calories over 50,000, a time out of range), or nil.
    public var wireProblem: String? {
        do { _ = try ExerciseRecord(reading: FieldReader(json.objectValue!, path: "record")); return nil } catch { return error.description }
    }
}

/// Body of an `hk.objects` message: a HealthKit sync batch.
public struct HealthObjectsBatch: Hashable, Sendable {
    public var workouts: [Workout] = []
    public var samples: [HealthSample] = []
    public var deleted: [DeletedObject] = []

    public init(workouts: [Workout] = [], samples: [HealthSample] = [], deleted: [DeletedObject] = []) {
        self.workouts = workouts
        self.samples = samples
        self.deleted = deleted
    }

    public var isEmpty: Bool { workouts.isEmpty && samples.isEmpty && deleted.isEmpty }
    public var itemCount: Int { workouts.count + samples.count + deleted.count }

    /// Samples travel as `series`: one columnar group per type and source (compact, fast to read).
    public var body: JSONObject {
        var o = JSONObject()
        if !workouts.isEmpty { o.append("workouts", .array(workouts.map(\.json))) }
        if !samples.isEmpty { o.append("series", .array(SampleSeries.group(samples).map(\.json))) }
        if !deleted.isEmpty { o.append("deleted", .array(deleted.map(\.json))) }
        return o
    }

    /// Exactly `JSONWriter.bytes(.object(body))`, with the series written directly (see
    /// `SampleSeries.write(into:)`).
    public var bodyBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bodyCapacity)
        writeBody(into: &out)
        return out
    }

    /// Room for the body's bytes: a sample takes ~56 bytes; the series' lists are written in room
    /// for their longest forms (SampleSeries.write), ~100 bytes a sample at the most.
    var bodyCapacity: Int { 64 + samples.count * 100 }

    /// Appends `bodyBytes`.
    func writeBody(into out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        var first = true
        func key(_ name: String) {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            JSONWriter.writeString(name, into: &out)
            out.append(UInt8(ascii: ":"))
        }
        if !workouts.isEmpty { key("workouts"); JSONWriter.write(.array(workouts.map(\.json)), into: &out) }
        if !samples.isEmpty {
            key("series")
            out.append(UInt8(ascii: "["))
            for (index, series) in SampleSeries.group(samples).enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                series.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
        if !deleted.isEmpty { key("deleted"); JSONWriter.write(.array(deleted.map(\.json)), into: &out) }
        out.append(UInt8(ascii: "}"))
    }

    /// Reads a body; samples may come as `series` (what nodes send) or as `samples` objects.
    public init(body: JSONObject, limits: WireLimits) throws(DecodeError) {
        let r = FieldReader(body, path: "body")
        try r.only(WireKeys.objects)
        let limit = limits.maxItemsPerMessage
        workouts = try r.objects("workouts", limit: limit) { (r) throws(DecodeError) in try Workout(reading: r) }
        samples = try r.objects("samples", limit: limit) { (r) throws(DecodeError) in try HealthSample(reading: r) }
        for (index, item) in try r.array("series", limit: 100).enumerated() {
            let path = "body.series[\(index)]"
            guard let object = item.objectValue else { throw DecodeError(path: path, reason: "expected an object, got \(item.kindName)") }
            let series = try SampleSeries.read(FieldReader(object, path: path), limit: limit - samples.count)
            // The first series is taken whole: appending a frame's 10,000 samples to an empty
            // array copied them, 4 % of the phone's time on the sync benchmark (perf).
            if samples.isEmpty { samples = series } else { samples += series }
        }
        deleted = try r.objects("deleted", limit: limit) { (r) throws(DecodeError) in try DeletedObject(reading: r) }
        if itemCount > limit { throw DecodeError(path: "body", reason: "\(itemCount) items exceed the limit of \(limit)") }
    }

    /// A short summary for events: `workouts=1 samples=360`.
    public var summary: JSONObject {
        var o = JSONObject()
        if !workouts.isEmpty { o.append("workouts", .int(Int64(workouts.count))) }
        if workouts.count == 1 { o.append("workout", .string(workouts[0].uuid.text)) }
        if !samples.isEmpty { o.append("samples", .int(Int64(samples.count))) }
        if !deleted.isEmpty { o.append("deleted", .int(Int64(deleted.count))) }
        return o
    }
}

/// Body of a `ck.records` message: a CloudKit export batch of ExerciseRecord changes.
public struct RecordsBatch: Hashable, Sendable {
    public var saved: [ExerciseRecord] = []
    public var deleted: [UUID] = []

    public init(saved: [ExerciseRecord] = [], deleted: [UUID] = []) {
        self.saved = saved
        self.deleted = deleted
    }

    public var isEmpty: Bool { saved.isEmpty && deleted.isEmpty }

    public var body: JSONObject {
        var o = JSONObject()
        if !saved.isEmpty { o.append("saved", .array(saved.map(\.json))) }
        if !deleted.isEmpty { o.append("deleted", .array(deleted.map { .string($0.text) })) }
        return o
    }

    public init(body: JSONObject, limits: WireLimits) throws(DecodeError) {
        let r = FieldReader(body, path: "body")
        try r.only(WireKeys.records)
        saved = try r.objects("saved", limit: limits.maxItemsPerMessage) { (r) throws(DecodeError) in try ExerciseRecord(reading: r) }
        deleted = []
        for (index, item) in try r.array("deleted", limit: limits.maxItemsPerMessage).enumerated() {
            guard let text = item.stringValue, let uuid = UUID(text: text) else {
                throw DecodeError(path: "body.deleted[\(index)]", reason: "expected a UUID string")
            }
            deleted.append(uuid)
        }
    }

    /// A batch kept in a node's own state (the CloudKit export's pending one), whose object holds
    /// more than the wire body: its `saved` and `deleted`, read as the wire reads them.
    public init(persisted object: JSONObject) throws(DecodeError) {
        var body = JSONObject()
        for key in ["saved", "deleted"] { if let value = object[key] { body.append(key, value) } }
        try self.init(body: body, limits: WireLimits(maxItemsPerMessage: .max / 16))
    }

    public var summary: JSONObject {
        var o = JSONObject()
        if !saved.isEmpty { o.append("saved", .int(Int64(saved.count))) }
        if !deleted.isEmpty { o.append("deleted", .int(Int64(deleted.count))) }
        return o
    }
}
