extension BackgroundDelivery {
    /// What a restart keeps of background delivery (R: K7): per type, in `ObjectType.all` order.
    public struct Snapshot: Hashable, Sendable {
        public struct Entry: Hashable, Sendable {
            public var type: ObjectType
            public var frequency: DeliveryFrequency
            public var enabled: Bool
            public var stopped: Bool
            /// A change not yet delivered, or a wake whose completion was awaited.
            public var pending: Bool
            public var lastWakeAt: EmulatedInstant?
            public var misses: Int
            public var wakeAt: EmulatedInstant?

            package init(type: ObjectType, frequency: DeliveryFrequency, enabled: Bool, stopped: Bool, pending: Bool, lastWakeAt: EmulatedInstant?,
                         misses: Int, wakeAt: EmulatedInstant?) {
                self.type = type
                self.frequency = frequency
                self.enabled = enabled
                self.stopped = stopped
                self.pending = pending
                self.lastWakeAt = lastWakeAt
                self.misses = misses
                self.wakeAt = wakeAt
            }
        }

        public var entries: [Entry]

        public init(entries: [Entry]) { self.entries = entries }
    }

    public var snapshot: Snapshot {
        Snapshot(entries: ObjectType.all.compactMap { type in
            types[type].map { state in
                Snapshot.Entry(type: type, frequency: state.frequency, enabled: state.enabled, stopped: state.stopped,
                               pending: state.pending || state.awaitingCompletion, lastWakeAt: state.lastWakeAt,
                               misses: state.consecutiveMisses, wakeAt: state.wakeAt)
            }
        })
    }

    /// Restores from `snapshot`; a wake awaiting completion when the node stopped is delivered again.
    public mutating func restore(_ snapshot: Snapshot) {
        for entry in snapshot.entries {
            var state = TypeState(frequency: entry.frequency)
            state.enabled = entry.enabled
            state.stopped = entry.stopped
            state.pending = entry.pending
            state.lastWakeAt = entry.lastWakeAt
            state.consecutiveMisses = entry.misses
            state.wakeAt = entry.wakeAt
            // A change not yet delivered (or a wake cut off by the restart) gets its wake back.
            if state.pending, state.wakeAt == nil, state.enabled, !state.stopped {
                state.wakeAt = state.lastWakeAt.map { $0 + state.frequency.period } ?? .zero
            }
            types[entry.type] = state
        }
    }
}

extension BackgroundDelivery.Snapshot {
    /// The turn journal's spelling.
    public var json: JSON {
        var object = JSONObject()
        for entry in entries {
            object.append(entry.type.name, .object([
                "frequency": .string(entry.frequency.rawValue), "enabled": .bool(entry.enabled), "stopped": .bool(entry.stopped),
                "pending": .bool(entry.pending), "lastWakeAt": entry.lastWakeAt.map { .int($0.milliseconds) } ?? .null,
                "misses": .int(Int64(entry.misses)), "wakeAt": entry.wakeAt.map { .int($0.milliseconds) } ?? .null,
            ]))
        }
        return .object(object)
    }

    public init(json: JSON) throws(DecodeError) {
        guard let object = json.objectValue else { throw DecodeError(path: "phone.delivery", reason: "expected an object") }
        var entries: [Entry] = []
        for member in object.members {
            let path = "phone.delivery.\(member.key)"
            guard let type = ObjectType(name: member.key), let fields = member.value.objectValue else {
                throw DecodeError(path: path, reason: "not a type's delivery state")
            }
            let reader = FieldReader(fields, path: path)
            let name = try reader.string("frequency")
            guard let frequency = DeliveryFrequency(rawValue: name) else { throw DecodeError(path: path + ".frequency", reason: "unknown frequency \(name)") }
            entries.append(Entry(type: type, frequency: frequency, enabled: try reader.bool("enabled"), stopped: try reader.bool("stopped"),
                                 pending: try reader.bool("pending"), lastWakeAt: reader.has("lastWakeAt") ? try reader.instant("lastWakeAt") : nil,
                                 misses: Int(try reader.int("misses", min: 0, max: Int64(Int32.max))),
                                 wakeAt: reader.has("wakeAt") ? try reader.instant("wakeAt") : nil))
        }
        self.init(entries: entries)
    }
}
