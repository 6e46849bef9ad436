/// The part of a driver that both drivers share — the node loop on real sockets and SQLite, and the
/// simulator on in-memory channels and a durable image (R: V1): how a node comes up from what it
/// committed, and what a turn's actions become, in the one order every driver keeps: persist (one
/// commit of the operations and the changed small values), then publish, then emit.
public struct NodeTurns: Sendable {
    /// The small values as last committed: a turn commits only those that changed.
    public private(set) var committed = NodeValues()

    public init() {}

    /// Restores `model` from what was committed and starts it: a first start and a restart after a
    /// kill run this same code. Returns the start's actions.
    public mutating func boot<Model: NodeModel>(_ model: inout Model, from state: PersistedState,
                                                now: EmulatedInstant) throws(DecodeError) -> [NodeAction] {
        committed = state.values
        try model.restore(state, now: now)
        return model.start(now: now)
    }

    /// Carries one turn's actions out in the one order every driver keeps — persist (one commit
    /// of the operations and the changed small values), then publish each frame, then emit each
    /// event — so nothing of a turn leaves before it is durable, and a kill in the middle of a turn
    /// loses only what was not yet sent. `values` are the model's small values after the turn (nil:
    /// commit none now — the simulator takes them when a node is killed, see
    /// `Simulator.commitValues`). The actions are read in place, three times: splitting them into
    /// arrays of their own first was ~2 % of a simulated week (perf, `pairsim-bench simulate`).
    public mutating func carryOut(_ actions: [NodeAction], values: NodeValues?,
                                  commit: ([PersistOp], NodeValues) throws -> Void, publish: (WireFrame) throws -> Void,
                                  emit: (Event) -> Void) rethrows {
        var operations: [PersistOp] = []
        // Sized once (grown op by op, a turn with two reallocated).
        operations.reserveCapacity(actions.count { if case .persist = $0 { true } else { false } })
        for action in actions { if case .persist(let op) = action { operations.append(op) } }
        let changed = values.map { self.changed($0) } ?? NodeValues()
        if !operations.isEmpty || !changed.isEmpty { try commit(operations, changed) }
        for action in actions { if case .publish(let frame) = action { try publish(frame) } }
        for action in actions { if case .emit(let event) = action { emit(event) } }
    }

    /// The values that differ from the last commit, now counted as committed.
    public mutating func changed(_ values: NodeValues) -> NodeValues {
        var changed = NodeValues()
        for value in values where committed[value.key] != value {
            changed.insert(value)
            committed.insert(value)
        }
        return changed
    }
}
