import PairSimCore

/// Where a node's state goes. The loop commits each turn's operations and changed values in one
/// call, before anything of that turn is published (so nothing is acknowledged before it is durable).
protocol NodeStorage {
    /// What was persisted before (empty on a first start).
    func load() throws -> PersistedState
    /// Makes `operations` and the changed `values` durable, atomically.
    func commit(_ operations: [PersistOp], values: NodeValues) throws
}

/// Keeps nothing: for runs that need not survive a restart.
struct EphemeralStorage: NodeStorage {
    func load() throws -> PersistedState { PersistedState() }
    func commit(_ operations: [PersistOp], values: NodeValues) throws {}
}
