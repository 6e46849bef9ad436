import Foundation

/// A device's HealthKit store: samples and workouts with anchors, tombstones for deletions,
/// idempotent saves by UUID. Phone-only rules (authorization, lock) sit on top of it.
public struct HealthStore: Hashable, Sendable {
    struct Stored<Object: Hashable & Sendable>: Hashable, Sendable {
        var object: Object
        var anchor: Int64
    }

    /// A deletion, kept for anchored queries until purged.
    public struct Tombstone: Hashable, Sendable {
        public var object: DeletedObject
        public var anchor: Int64
        public var deletedAt: EmulatedInstant

        public init(object: DeletedObject, anchor: Int64, deletedAt: EmulatedInstant) {
            self.object = object
            self.anchor = anchor
            self.deletedAt = deletedAt
        }
    }

    /// Samples per type, indexed by `SampleType.index` (no hashing per sample).
    struct SampleTable: Hashable, Sendable {
        var lists: [ChunkedList<Stored<HealthSample>>] = Array(repeating: ChunkedList(), count: SampleType.allCases.count)
        subscript(type: SampleType) -> ChunkedList<Stored<HealthSample>> { lists[type.index] }
    }

    /// What a save changed.
    public struct SaveResult: Hashable, Sendable {
        public var workouts: [Workout] = []
        public var samples: [HealthSample] = []
        /// Objects already present (or deleted before) and so not saved again.
        public var ignored = 0
        /// The types that gained objects, in a fixed order.
        public var changedTypes: [ObjectType] {
            // A bit by type index rather than a Set of every sample's type (a hash per sample), and
            // one array sized once (flags, filter and map were three allocations a save);
            // sample types in `allCases` order, then workouts, is `ObjectType`'s order.
            var seen: UInt64 = 0 // room for 64 sample types (there are 9)
            for sample in samples { seen |= 1 << UInt64(sample.type.index) }
            var types: [ObjectType] = []
            types.reserveCapacity(seen.nonzeroBitCount + (workouts.isEmpty ? 0 : 1))
            for type in SampleType.allCases where seen & (1 << UInt64(type.index)) != 0 { types.append(.sample(type)) }
            if !workouts.isEmpty { types.append(.workout) }
            return types
        }
        public var isEmpty: Bool { workouts.isEmpty && samples.isEmpty }
    }

    /// Increases with every change; anchored queries return changes after a given anchor.
    public private(set) var anchor: Int64 = 0
    var workoutsByID: [UUID: Stored<Workout>] = [:]
    var samplesByType = SampleTable()
    /// Every stored sample's id: one hash per save decides "new or duplicate".
    var sampleIDs = UUIDSet()
    public private(set) var tombstones: [Tombstone] = []
    /// Every UUID ever deleted: a late copy of a deleted object is not resurrected.
    var deletedIDs = UUIDSet()

    public init() {}

    public var workoutCount: Int { workoutsByID.count }
    public var sampleCount: Int { sampleIDs.count }
    public func sampleCount(_ type: SampleType) -> Int { samplesByType[type].count }
    /// Objects held by type name (`heartRate`, …, `workout`), for `status --json`.
    public var countsJSON: JSON {
        var counts: JSONObject = [:]
        for type in SampleType.allCases { counts.append(type.rawValue, .int(Int64(sampleCount(type)))) }
        counts.append("workout", .int(Int64(workoutCount)))
        return .object(counts)
    }

    /// Makes room for `additional` more samples (a bulk import knows how many are coming): the set
    /// of ids grows once instead of rehashing at every power of two. (The samples themselves are
    /// kept in chunks that never move.)
    public mutating func reserveCapacity(_ additional: [SampleType: Int]) {
        sampleIDs.reserveCapacity(sampleIDs.count + additional.values.reduce(0, +))
    }

    /// Saves new objects; objects already here or deleted earlier are ignored (idempotent by UUID).
    public mutating func save(workouts: [Workout], samples: [HealthSample]) -> (SaveResult, [PersistOp]) {
        var result = SaveResult()
        let newAnchor = anchor + 1
        for workout in workouts {
            if workoutsByID[workout.uuid] != nil || deletedIDs.contains(UUIDKey(workout.uuid)) { result.ignored += 1; continue }
            workoutsByID[workout.uuid] = Stored(object: workout, anchor: newAnchor)
            result.workouts.append(workout)
        }
        result.samples.reserveCapacity(samples.count)
        // A deleted UUID is never saved again; the others go into the id set in one batch.
        // With nothing ever deleted (nearly always) the candidates are `samples` itself, not a copy.
        let candidates = deletedIDs.isEmpty ? samples : samples.filter { !deletedIDs.contains(UUIDKey($0.uuid)) }
        result.ignored += samples.count - candidates.count
        let fresh = sampleIDs.insertMany(candidates.map { UUIDKey($0.uuid) })
        for (sample, isNew) in zip(candidates, fresh) {
            guard isNew else { result.ignored += 1; continue }
            samplesByType.lists[sample.type.index].append(Stored(object: sample, anchor: newAnchor))
            result.samples.append(sample)
        }
        guard !result.isEmpty else { return (result, []) }
        anchor = newAnchor
        var ops: [PersistOp] = []
        if !result.workouts.isEmpty { ops.append(.putWorkouts(result.workouts, anchor: newAnchor)) }
        if !result.samples.isEmpty { ops.append(.putSamples(result.samples, anchor: newAnchor)) }
        return (result, ops)
    }

    /// Deletes objects by UUID, leaving tombstones; returns the ones that existed. A UUID not
    /// (yet) here is remembered, so a copy arriving after its deletion is not saved.
    public mutating func delete(_ objects: [DeletedObject], now: EmulatedInstant) -> ([DeletedObject], [PersistOp]) {
        var deleted: [DeletedObject] = []
        var blocked: [UUID] = []
        var sampleKeys: Set<UUIDKey> = []
        for object in objects {
            let key = UUIDKey(object.uuid)
            guard deletedIDs.insert(key) else { continue }
            if workoutsByID.removeValue(forKey: object.uuid) != nil {
                deleted.append(DeletedObject(uuid: object.uuid, type: .workout))
            } else if sampleIDs.remove(key) {
                sampleKeys.insert(key)
            } else {
                blocked.append(object.uuid)
            }
        }
        if !sampleKeys.isEmpty {
            // One pass per type for the whole batch, however many samples it deletes.
            for type in SampleType.allCases where !samplesByType.lists[type.index].isEmpty {
                samplesByType.lists[type.index].removeAll { stored in
                    guard sampleKeys.contains(UUIDKey(stored.object.uuid)) else { return false }
                    deleted.append(DeletedObject(uuid: stored.object.uuid, type: .sample(type)))
                    return true
                }
            }
        }
        var ops: [PersistOp] = blocked.isEmpty ? [] : [.blockIDs(blocked)]
        guard !deleted.isEmpty else { return ([], ops) }
        anchor += 1
        for object in deleted { tombstones.append(Tombstone(object: object, anchor: anchor, deletedAt: now)) }
        ops.append(.deleteObjects(deleted, anchor: anchor, at: now))
        return (deleted, ops)
    }

    /// Drops tombstones older than `retention` (HealthKit purges deleted-object records too).
    public mutating func purgeTombstones(olderThan retention: EmulatedDuration, now: EmulatedInstant) -> [PersistOp] {
        let expired = tombstones.filter { now - $0.deletedAt > retention }
        guard let last = expired.map(\.anchor).max() else { return [] }
        tombstones.removeAll { $0.anchor <= last }
        return [.purgeTombstones(throughAnchor: last)]
    }

    // MARK: Queries

    public func workout(_ uuid: UUID) -> Workout? { workoutsByID[uuid]?.object }

    /// All workouts, oldest end first.
    public var workouts: [Workout] {
        workoutsByID.values.map(\.object).sorted { ($0.end, $0.uuid.text) < ($1.end, $1.uuid.text) }
    }

    /// The workout with the latest end date (HKSampleQuery sorted by end date, limit 1).
    public var latestWorkout: Workout? {
        workoutsByID.values.map(\.object).max { ($0.end, $0.uuid.text) < ($1.end, $1.uuid.text) }
    }

    /// Samples of `type` overlapping `range`, ordered by start.
    public func samples(_ type: SampleType, from start: EmulatedInstant = .zero, to end: EmulatedInstant = .distantFuture) -> [HealthSample] {
        samplesByType[type].lazy.map(\.object)
            .filter { $0.end >= start && $0.start <= end }
            .sorted { ($0.start, UUIDKey($0.uuid)) < ($1.start, UUIDKey($1.uuid)) }
    }

    /// The most recent sample of `type` by end date, among those `included`.
    public func latestSample(_ type: SampleType, where included: (HealthSample) -> Bool = { _ in true }) -> HealthSample? {
        samplesByType[type].lazy.map(\.object).filter(included).max { ($0.end, UUIDKey($0.uuid)) < ($1.end, UUIDKey($1.uuid)) }
    }

    /// Who wrote the stored object `object` names (nil when it is not here). Scans the type's
    /// samples: meant for the rare deletion of a type the app may not read.
    public func source(of object: DeletedObject) -> ObjectSource? {
        switch object.type {
        case .workout: workoutsByID[object.uuid]?.object.source
        case .sample(let type): samplesByType[type].first { $0.object.uuid == object.uuid }?.object.source
        }
    }

    /// HKAnchoredObjectQuery: objects of `type` added after `since`, tombstones after it, and the new anchor.
    public func anchoredQuery(_ type: ObjectType, since: Int64) -> (added: [UUID], deleted: [DeletedObject], anchor: Int64) {
        var added: [(Int64, UUID)] = []
        switch type {
        case .workout:
            added = workoutsByID.values.filter { $0.anchor > since }.map { ($0.anchor, $0.object.uuid) }
        case .sample(let sampleType):
            added = samplesByType[sampleType].filter { $0.anchor > since }.map { ($0.anchor, $0.object.uuid) }
        }
        added.sort { ($0.0, $0.1.text) < ($1.0, $1.1.text) }
        let deleted = tombstones.filter { $0.anchor > since && $0.object.type == type }.map(\.object)
        return (added.map(\.1), deleted, anchor)
    }

    /// HKAnchoredObjectQuery with the objects themselves: workouts or samples of `type` added
    /// after `since` (in anchor order), its tombstones after it, and the new anchor. With a
    /// `limit`, only the first `limit` changes (additions and deletions in the order they were
    /// made), and an anchor after the last of them (`PageAnchor`): the next page starts there.
    public func anchoredObjects(_ type: ObjectType, since: Int64, limit: Int? = nil) -> (workouts: [Workout], samples: [HealthSample], deleted: [DeletedObject], anchor: Int64) {
        let from = PageAnchor(since)
        // Each change with its save's anchor and its place among that save's changes of `type`.
        var changes: [(batch: Int64, position: Int, change: Change)] = []
        var position = 0, lastBatch: Int64 = -1
        func add(_ batch: Int64, _ change: Change) {
            position = batch == lastBatch ? position + 1 : 0
            lastBatch = batch
            // After `from`: later saves, and what of the partly delivered one was not delivered.
            if batch > from.batch + 1 || (batch == from.batch + 1 && position >= from.delivered) {
                changes.append((batch, position, change))
            }
        }
        switch type {
        case .workout:
            for stored in workoutsByID.values.sorted(by: { ($0.anchor, $0.object.uuid.text) < ($1.anchor, $1.object.uuid.text) }) {
                add(stored.anchor, .workout(stored.object))
            }
        case .sample(let sampleType):
            // Stored in anchor order already (appended as saved).
            for stored in samplesByType[sampleType] { add(stored.anchor, .sample(stored.object)) }
        }
        lastBatch = -1
        for tombstone in tombstones where tombstone.object.type == type { add(tombstone.anchor, .deleted(tombstone.object)) }
        changes.sort { ($0.batch, $0.position) < ($1.batch, $1.position) }
        var newAnchor = anchor
        if let limit, limit > 0, changes.count > limit {
            let last = changes[limit - 1]
            let batchSize = changes.filter { $0.batch == last.batch }.map(\.position).max().map { $0 + 1 } ?? 0
            changes = Array(changes.prefix(limit))
            newAnchor = last.position + 1 >= batchSize ? last.batch : PageAnchor(batch: last.batch - 1, delivered: last.position + 1).value
        }
        var workouts: [Workout] = [], samples: [HealthSample] = [], deleted: [DeletedObject] = []
        for entry in changes {
            switch entry.change {
            case .workout(let workout): workouts.append(workout)
            case .sample(let sample): samples.append(sample)
            case .deleted(let object): deleted.append(object)
            }
        }
        return (workouts, samples, deleted, newAnchor)
    }

    /// One change an anchored query reports.
    enum Change { case workout(Workout), sample(HealthSample), deleted(DeletedObject) }

    /// An anchored query's anchor: a save's anchor (everything up to it delivered), or, after a
    /// page that ended inside a save, the anchor before it and how many of that save's changes of
    /// the type were delivered (marked by the top bit, so plain anchors keep their meaning).
    public struct PageAnchor: Hashable, Sendable {
        public var batch: Int64
        public var delivered: Int

        static let partial: Int64 = 1 << 62

        init(batch: Int64, delivered: Int) {
            self.batch = batch
            self.delivered = delivered
        }

        init(_ value: Int64) {
            if value & Self.partial != 0 {
                batch = (value & ~Self.partial) >> 20
                delivered = Int(value & 0xF_FFFF)
            } else {
                batch = value
                delivered = 0
            }
        }

        var value: Int64 { delivered == 0 ? batch : Self.partial | (batch << 20) | Int64(delivered) }
    }

    /// True if `uuid` was deleted here (or blocked as deleted before it arrived).
    public func isDeleted(_ uuid: UUID) -> Bool { deletedIDs.contains(UUIDKey(uuid)) }
    /// The store holds a sample with this id now.
    public func holdsSample(_ uuid: UUID) -> Bool { sampleIDs.contains(UUIDKey(uuid)) }

    /// Remembers UUIDs deleted earlier whose tombstones were purged.
    public mutating func markDeleted(_ ids: [UUID]) {
        deletedIDs.formUnion(ids.map(UUIDKey.init))
    }

    /// Restores persisted contents (after a restart).
    public mutating func restore(workouts: [(Workout, Int64)], samples: [(HealthSample, Int64)],
                                 tombstones: [Tombstone], anchor: Int64) {
        for (workout, anchor) in workouts { workoutsByID[workout.uuid] = Stored(object: workout, anchor: anchor) }
        sampleIDs.reserveCapacity(sampleIDs.count + samples.count)
        for (sample, anchor) in samples {
            sampleIDs.insert(UUIDKey(sample.uuid))
            samplesByType.lists[sample.type.index].append(Stored(object: sample, anchor: anchor))
        }
        self.tombstones = tombstones
        deletedIDs.formUnion(tombstones.map { UUIDKey($0.object.uuid) })
        self.anchor = max(anchor, (workouts.map(\.1) + samples.map(\.1) + tombstones.map(\.anchor)).max() ?? 0)
    }
}
