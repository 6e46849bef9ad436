extension BackgroundDelivery {
    /// Per-type state for persistence.
    public var json: JSON {
        var object = JSONObject()
        for type in ObjectType.all {
            guard let state = types[type] else { continue }
            object.append(type.name, .object([
                "frequency": .string(state.frequency.rawValue), "enabled": .bool(state.enabled), "stopped": .bool(state.stopped), "pending": .bool(state.pending || state.awaitingCompletion),
                "lastWakeAt": state.lastWakeAt.map { .int($0.milliseconds) } ?? .null,
                "misses": .int(Int64(state.consecutiveMisses)),
                "wakeAt": state.wakeAt.map { .int($0.milliseconds) } ?? .null,
            ]))
        }
        return .object(object)
    }

    /// Restores from `json`; a wake awaiting completion when the node stopped is delivered again.
    public mutating func restore(json: JSON) {
        for type in ObjectType.all {
            guard let entry = json[type.name],
                  let frequency = entry["frequency"]?.stringValue.flatMap(DeliveryFrequency.init(rawValue:)) else { continue }
            var state = TypeState(frequency: frequency)
            state.enabled = entry["enabled"]?.boolValue ?? false
            state.stopped = entry["stopped"]?.boolValue ?? false
            state.pending = entry["pending"]?.boolValue ?? false
            state.lastWakeAt = entry["lastWakeAt"]?.intValue.map(EmulatedInstant.init(milliseconds:))
            state.consecutiveMisses = Int(entry["misses"]?.intValue ?? 0)
            state.wakeAt = entry["wakeAt"]?.intValue.map(EmulatedInstant.init(milliseconds:))
            // A change not yet delivered (or a wake cut off by the restart) gets its wake back.
            if state.pending, state.wakeAt == nil, state.enabled, !state.stopped {
                state.wakeAt = state.lastWakeAt.map { $0 + state.frequency.period } ?? .zero
            }
            types[type] = state
        }
    }
}
