/// A node's whole behaviour as a pure state machine. The runtime (real processes) and the
/// simulator (virtual time) drive the same conforming types.
public protocol NodeModel: Sendable {
    /// Which device this is.
    var node: NodeName { get }
    /// Earliest instant at which `advance(to:)` has work (nil: nothing scheduled).
    var nextDeadline: EmulatedInstant? { get }
    /// Called once when the node starts (after restoring persisted state, if any).
    mutating func start(now: EmulatedInstant) -> [NodeAction]
    /// Runs one command from stdin, the control socket or a scenario.
    mutating func handle(command: ParsedCommand, now: EmulatedInstant) -> CommandResult
    /// Takes one multipart message from the wire.
    mutating func receive(frames: [[UInt8]], now: EmulatedInstant) -> [NodeAction]
    /// The peer subscribed to this node's publications (it is up and reachable).
    mutating func peerConnected(now: EmulatedInstant) -> [NodeAction]
    /// Fires everything due at or before `now`.
    mutating func advance(to now: EmulatedInstant) -> [NodeAction]
    /// Called once when the node stops: final counters.
    func stop(now: EmulatedInstant) -> [NodeAction]
    /// The model's small state, typed (R: K7). After each turn the runtime persists the values that
    /// changed, in the same transaction as the turn's `persist` actions.
    func persistentValues() -> NodeValues
    /// The values that may have changed since this was last called (a superset of those that
    /// did; every key the first time): what the node loop builds and compares after each turn.
    mutating func changedValues() -> NodeValues
    /// Rebuilds the model from what was persisted, before `start`.
    mutating func restore(_ state: PersistedState, now: EmulatedInstant) throws(DecodeError)
}

extension NodeModel {
    public mutating func changedValues() -> NodeValues { persistentValues() }

    /// `model.nextDeadline`, read through an `inout` access of a generic, for a driver that holds
    /// the model in a stored property and reads it every turn. In a debug build a plain read from
    /// mutating code copied the whole model first, retaining and releasing everything in it: in
    /// the node loop the phone's cost ~3.5 µs a turn (the single-sample probe); in the simulator,
    /// CI's swarm phase took 56.5 and 60.7 s of CPU with such copies, 49.0 and 47.8 s without.
    @inlinable
    public static func nextDeadline(of model: inout Self) -> EmulatedInstant? { model.nextDeadline }

    /// Parses and runs a command given as text; a parse error becomes a failed result.
    public mutating func handle(commandText: String, now: EmulatedInstant) -> CommandResult {
        do {
            return handle(command: try ParsedCommand(parsing: commandText), now: now)
        } catch {
            return .failure(error)
        }
    }
}

extension NodeModel {
    /// Runs a command and, if it was refused, adds a `command.failed` event (what every driver logs).
    public mutating func handleLogged(commandText: String, now: EmulatedInstant) -> CommandResult {
        var result = handle(commandText: commandText, now: now)
        if !result.ok {
            result.actions.append(.emit(Event(at: now, node: node, .commandFailed, level: .warning, fields: [
                "command": .string(String(commandText.prefix(200))), "reason": .string(result.reply),
            ])))
        }
        return result
    }
}
