import PairSimCore

/// Where a node's persist actions go. The loop commits each turn's operations in one call,
/// before anything of that turn is published.
protocol NodeStorage {
    /// Makes `operations` durable, atomically.
    func commit(_ operations: [PersistOp]) throws(RuntimeError)
}

/// Keeps nothing: for runs that do not need to survive a restart.
struct EphemeralStorage: NodeStorage {
    func commit(_ operations: [PersistOp]) throws(RuntimeError) {}
}
