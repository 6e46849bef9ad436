/// One piece of a node model's small durable state, typed (R: K7): what a model hands its storage
/// after a turn, and what it gets back at restart. Each case carries exactly what is kept — never
/// what belongs to one process only (an app's handles, a timer not yet due) — so two values are
/// equal exactly when a restarted node would restore the same model from either.
///
/// A storage keeps each case in tables of its own (`StateTables`, schema v11) and the turn journal
/// in the JSON spelling of `json`, under the case's `Key.name`; both read back only these cases,
/// and anything else is an error naming the value.
public enum NodeValue: Equatable, Sendable {
    // Both devices
    /// The HealthKit store's anchor.
    case storeAnchor(Int64)
    /// The sync engine's streams, sequence counters and receive windows.
    case sync(SyncEngine.Snapshot)
    /// The WatchConnectivity session's queues, context and flags.
    indirect case watchConnectivity(WCSessionCore.Snapshot)
    /// The CloudKit record changes waiting for the next export.
    case cloudKitExport(CloudKitExporter.Snapshot)
    // The watch
    /// A developer's watch app's workout session (nil: none).
    indirect case watchHostedWorkout(HostedWorkout.Snapshot?)
    case watchHostedSessions(Int64)
    case watchRestingCount(Int64)
    case watchNextRestingAt(EmulatedInstant?)
    case watchFailNextFinish(Bool)
    /// A developer's watch app's `UserDefaults`.
    case watchAppDefaults(JSONObject)
    case watchClock(DeviceClock)
    /// The partitions the user's commands hold (`out-of-range`, `offline`), in a fixed order.
    case watchPartitions([WatchPartition])
    case watchUUIDs(UInt64)
    case watchPlan(WorkoutPlan?)
    case watchBulk(BulkWrite?)
    indirect case watchImport(HealthImportJob?)
    // The phone
    case phoneApp(PhoneAppSnapshot)
    case phoneDelivery(BackgroundDelivery.Snapshot)
    /// The phone app's `UserDefaults`.
    case phoneDefaults(JSONObject)
    case phoneSaveFailures(Int64)
    case phoneMissCompletions([ObjectType: Int])
    case phoneDeferred([ObjectType])
    case phoneUUIDs(UInt64)
    case phoneClock(DeviceClock)

    /// Which value this is: one per case.
    public enum Key: Int, CaseIterable, Comparable, Sendable {
        case storeAnchor, sync, watchConnectivity, cloudKitExport
        case watchHostedWorkout, watchHostedSessions, watchRestingCount, watchNextRestingAt,
             watchFailNextFinish, watchAppDefaults, watchClock, watchPartitions, watchUUIDs, watchPlan, watchBulk, watchImport
        case phoneApp, phoneDelivery, phoneDefaults, phoneSaveFailures, phoneMissCompletions, phoneDeferred, phoneUUIDs, phoneClock

        /// The name the turn journal files it under (and errors quote).
        public var name: String { Self.names[rawValue] }

        public init?(name: String) {
            guard let index = Self.names.firstIndex(of: name) else { return nil }
            self.init(rawValue: index)
        }

        /// Names journals from before schema v12 may hold that no value has any more: PairSim's
        /// built-in watch app's session and session count (the reference watch app replaced it, R:
        /// A10). A journal reader skips them; a session of that app under way is not carried over.
        public static let retired: Set<String> = ["watch.session", "watch.sessionCount"]

        static let names = [
            "store.anchor", "sync", "wc", "cloudkit.export",
            "watch.hostedWorkout", "watch.hostedSessions", "watch.restingCount", "watch.nextRestingAt",
            "watch.failNextFinish", "watch.appDefaults", "watch.clock", "watch.partitions", "watch.uuids", "watch.plan", "watch.bulk", "watch.import",
            "phone.app", "phone.delivery", "phone.defaults", "phone.saveFailures", "phone.missCompletions", "phone.deferred", "phone.uuids", "phone.clock",
        ]

        public static func < (a: Key, b: Key) -> Bool { a.rawValue < b.rawValue }
    }

    public var key: Key {
        switch self {
        case .storeAnchor: .storeAnchor
        case .sync: .sync
        case .watchConnectivity: .watchConnectivity
        case .cloudKitExport: .cloudKitExport
        case .watchHostedWorkout: .watchHostedWorkout
        case .watchHostedSessions: .watchHostedSessions
        case .watchRestingCount: .watchRestingCount
        case .watchNextRestingAt: .watchNextRestingAt
        case .watchFailNextFinish: .watchFailNextFinish
        case .watchAppDefaults: .watchAppDefaults
        case .watchClock: .watchClock
        case .watchPartitions: .watchPartitions
        case .watchUUIDs: .watchUUIDs
        case .watchPlan: .watchPlan
        case .watchBulk: .watchBulk
        case .watchImport: .watchImport
        case .phoneApp: .phoneApp
        case .phoneDelivery: .phoneDelivery
        case .phoneDefaults: .phoneDefaults
        case .phoneSaveFailures: .phoneSaveFailures
        case .phoneMissCompletions: .phoneMissCompletions
        case .phoneDeferred: .phoneDeferred
        case .phoneUUIDs: .phoneUUIDs
        case .phoneClock: .phoneClock
        }
    }
}

/// A partition the watch's user holds with a command, kept across restarts (R: K9).
public enum WatchPartition: String, CaseIterable, Sendable {
    /// `out-of-range`: the radio link (HealthKit's sync and WatchConnectivity) stops.
    case outOfRange = "out-of-range"
    /// `offline`: every channel stops.
    case offline
}

// MARK: The journal's spelling

extension NodeValue {
    /// Appends `JSONWriter.write(json)`'s bytes; the sync value without building its tree.
    public func writeJSON(into out: inout [UInt8]) {
        switch self {
        case .sync(let snapshot): snapshot.writeJSON(into: &out)
        case .storeAnchor(let anchor): JSONWriter.writeInt(anchor, into: &out)
        default: JSONWriter.write(json, into: &out)
        }
    }

    /// The value as the turn journal writes it (and as every value was kept before schema v5).
    public var json: JSON {
        func optional(_ instant: EmulatedInstant?) -> JSON { instant.map { .int($0.milliseconds) } ?? .null }
        return switch self {
        case .storeAnchor(let anchor): .int(anchor)
        case .sync(let snapshot): snapshot.json
        case .watchConnectivity(let snapshot): snapshot.json
        case .cloudKitExport(let snapshot): snapshot.json
        case .watchHostedWorkout(let workout): workout?.json ?? .null
        case .watchHostedSessions(let count), .watchRestingCount(let count), .phoneSaveFailures(let count): .int(count)
        case .watchNextRestingAt(let instant): optional(instant)
        case .watchFailNextFinish(let flag): .bool(flag)
        case .watchAppDefaults(let defaults), .phoneDefaults(let defaults): .object(defaults)
        case .watchClock(let clock), .phoneClock(let clock): clock.json
        case .watchPartitions(let reasons): .array(reasons.map { .string($0.rawValue) })
        case .watchUUIDs(let state), .phoneUUIDs(let state): .int(Int64(bitPattern: state))
        case .watchPlan(let plan): plan?.json ?? .null
        case .watchBulk(let bulk): bulk?.json ?? .null
        case .watchImport(let job): job?.json ?? .null
        case .phoneApp(let app): app.json
        case .phoneDelivery(let delivery): delivery.json
        case .phoneMissCompletions(let misses): .object(Self.missesJSON(misses))
        case .phoneDeferred(let types): .array(types.map { .string($0.name) })
        }
    }

    /// Reads `key`'s value from its `json` spelling; anything else is an error naming the value
    /// and the member.
    public init(_ key: Key, json: JSON) throws(DecodeError) {
        let path = key.name
        func int(min: Int64 = .min) throws(DecodeError) -> Int64 {
            guard let number = json.intValue, number >= min else { throw DecodeError(path: path, reason: "expected an integer ≥ \(min), got \(json.kindName)") }
            return number
        }
        func object() throws(DecodeError) -> JSONObject {
            guard let object = json.objectValue else { throw DecodeError(path: path, reason: "expected an object, got \(json.kindName)") }
            return object
        }
        func strings() throws(DecodeError) -> [String] {
            guard let items = json.arrayValue else { throw DecodeError(path: path, reason: "expected an array, got \(json.kindName)") }
            return try items.map { item throws(DecodeError) in
                guard let text = item.stringValue else { throw DecodeError(path: path, reason: "expected strings, got \(item.kindName)") }
                return text
            }
        }
        func types() throws(DecodeError) -> [ObjectType] {
            try strings().map { name throws(DecodeError) in
                guard let type = ObjectType(name: name) else { throw DecodeError(path: path, reason: "unknown type \(name)") }
                return type
            }
        }
        func optional<T>(_ read: (JSON) throws(DecodeError) -> T) throws(DecodeError) -> T? { json == .null ? nil : try read(json) }
        switch key {
        case .storeAnchor: self = .storeAnchor(try int(min: 0))
        case .sync: self = .sync(try SyncEngine.Snapshot(json: json))
        case .watchConnectivity: self = .watchConnectivity(try WCSessionCore.Snapshot(json: json))
        case .cloudKitExport: self = .cloudKitExport(try CloudKitExporter.Snapshot(json: json))
        case .watchHostedWorkout: self = .watchHostedWorkout(try optional { (json) throws(DecodeError) in try HostedWorkout.Snapshot(json: json) })
        case .watchHostedSessions: self = .watchHostedSessions(try int(min: 0))
        case .watchRestingCount: self = .watchRestingCount(try int(min: 0))
        case .watchNextRestingAt: self = .watchNextRestingAt(try optional { (_) throws(DecodeError) in EmulatedInstant(milliseconds: try int()) })
        case .watchFailNextFinish:
            guard let flag = json.boolValue else { throw DecodeError(path: path, reason: "expected a boolean, got \(json.kindName)") }
            self = .watchFailNextFinish(flag)
        case .watchAppDefaults: self = .watchAppDefaults(try object())
        case .watchClock: self = .watchClock(try DeviceClock(json: json, path: path))
        case .watchPartitions:
            self = .watchPartitions(try strings().map { name throws(DecodeError) in
                guard let reason = WatchPartition(rawValue: name) else { throw DecodeError(path: path, reason: "unknown partition \(name)") }
                return reason
            })
        case .watchUUIDs: self = .watchUUIDs(UInt64(bitPattern: try int()))
        case .watchPlan: self = .watchPlan(try optional { (json) throws(DecodeError) in try WorkoutPlan(json: json) })
        case .watchBulk: self = .watchBulk(try optional { (json) throws(DecodeError) in try BulkWrite(json: json) })
        case .watchImport: self = .watchImport(try optional { (json) throws(DecodeError) in try HealthImportJob(json: json) })
        case .phoneApp: self = .phoneApp(try PhoneAppSnapshot(json: json))
        case .phoneDelivery: self = .phoneDelivery(try BackgroundDelivery.Snapshot(json: json))
        case .phoneDefaults: self = .phoneDefaults(try object())
        case .phoneSaveFailures: self = .phoneSaveFailures(try int(min: 0))
        case .phoneMissCompletions:
            var misses: [ObjectType: Int] = [:]
            for member in try object().members {
                guard let type = ObjectType(name: member.key), let count = member.value.intValue, count >= 0, count <= Int32.max else {
                    throw DecodeError(path: "\(path).\(member.key)", reason: "expected a type's count")
                }
                misses[type] = Int(count)
            }
            self = .phoneMissCompletions(misses)
        case .phoneDeferred: self = .phoneDeferred(try types())
        case .phoneUUIDs: self = .phoneUUIDs(UInt64(bitPattern: try int()))
        case .phoneClock: self = .phoneClock(try DeviceClock(json: json, path: path))
        }
    }

    static func missesJSON(_ misses: [ObjectType: Int]) -> JSONObject {
        var object = JSONObject()
        for type in ObjectType.all { if let count = misses[type] { object.append(type.name, .int(Int64(count))) } }
        return object
    }

    /// True for a value a storage may leave out and read back as nothing: nothing in it (a zero,
    /// false, nothing waiting, no job).
    public var isEmpty: Bool { Self.isEmpty(json) }

    static func isEmpty(_ value: JSON) -> Bool {
        switch value {
        case .null: true
        case .bool(let flag): !flag
        case .int(let number): number == 0
        case .double(let number): number == 0
        case .string(let text): text.isEmpty
        case .array(let items): items.isEmpty
        case .object(let object): object.members.allSatisfy { isEmpty($0.value) }
        }
    }
}

// MARK: A set of values

/// A model's values, at most one per key, in key order: all of them (`persistentValues()`), or
/// those a turn changed (`changedValues()`), or what a storage read back. Kept as a short sorted
/// list: a turn's changed values are three to six, and the largest cases are boxed (`indirect`),
/// so a set costs one small allocation rather than a slot for each of the 26 keys.
public struct NodeValues: Equatable, Sendable, Sequence, ExpressibleByArrayLiteral {
    private var values: [NodeValue] = []

    public init() {}

    public init(_ values: [NodeValue]) {
        for value in values { insert(value) }
    }

    public init(arrayLiteral values: NodeValue...) { self.init(values) }

    public var isEmpty: Bool { values.isEmpty }
    public var count: Int { values.count }

    public subscript(key: NodeValue.Key) -> NodeValue? {
        get { values.first { $0.key == key } }
        set {
            precondition(newValue.map { $0.key == key } ?? true, "Invalid value: a \(newValue!.key.name) value under \(key.name)")
            let index = values.firstIndex { $0.key >= key } ?? values.endIndex
            let present = index < values.endIndex && values[index].key == key
            switch (newValue, present) {
            case (let value?, true): values[index] = value
            case (let value?, false): values.insert(value, at: index)
            case (nil, true): values.remove(at: index)
            case (nil, false): break
            }
        }
    }

    /// Adds `value`, replacing the one under its key.
    public mutating func insert(_ value: NodeValue) { self[value.key] = value }

    /// Takes every value of `newer`, replacing those under the same keys.
    public mutating func merge(_ newer: NodeValues) {
        for value in newer { insert(value) }
    }

    public var keys: [NodeValue.Key] { values.map(\.key) }

    public func makeIterator() -> IndexingIterator<[NodeValue]> { values.makeIterator() }
}
