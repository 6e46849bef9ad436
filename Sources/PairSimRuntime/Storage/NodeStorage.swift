import PairSimCore

/// Where a node's state goes. The loop commits each turn's operations and changed values in one
/// call, before anything of that turn is published (so nothing is acknowledged before it is durable).
protocol NodeStorage {
    /// What was persisted before (empty on a first start).
    func load() throws -> PersistedState
    /// Makes `operations` and the changed `values` durable, atomically.
    func commit(_ operations: [PersistOp], values: [String: JSON]) throws
    /// Durable turns not yet in their final place (`JournaledStorage`): the loop calls `settle`
    /// when it has nothing else to do.
    var unsettledTurns: Int { get }
    /// Moves every durable turn to its final place.
    func settle() throws
}

extension NodeStorage {
    var unsettledTurns: Int { 0 }
    func settle() throws {}
}

/// Keeps nothing: for runs that need not survive a restart.
struct EphemeralStorage: NodeStorage {
    func load() throws -> PersistedState { PersistedState() }
    func commit(_ operations: [PersistOp], values: [String: JSON]) throws {}
}
