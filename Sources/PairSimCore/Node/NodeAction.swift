/// What a core model asks its driver to do. The driver performs them in this order per turn:
/// persist (one transaction), then publish, then emit — so nothing is acknowledged before it is durable.
public enum NodeAction: Hashable, Sendable {
    /// Put a frame on the wire now (the channel model has already applied latency and faults).
    case publish(WireFrame)
    /// Record an event in the log.
    case emit(Event)
    /// Make a state change durable.
    case persist(PersistOp)
}

extension Array where Element == NodeAction {
    /// The events among these actions, in order.
    public var events: [Event] {
        compactMap { if case .emit(let event) = $0 { event } else { nil } }
    }

    /// The frames among these actions, in order.
    public var frames: [WireFrame] {
        compactMap { if case .publish(let frame) = $0 { frame } else { nil } }
    }

    /// Appends `more`, as the standard `+=` does; with nothing here yet it takes `more`'s storage
    /// instead of copying it into a new one. The models build a turn as `actions += part(…)`, and
    /// most parts of most turns add nothing or are the first to add something: allocating and
    /// copying there was ~3 % of a simulated week (perf).
    @inlinable public static func += (actions: inout [NodeAction], more: [NodeAction]) {
        if actions.isEmpty { actions = more } else if !more.isEmpty { actions.append(contentsOf: more) }
    }
}
