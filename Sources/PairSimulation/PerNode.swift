import PairSimCore

/// One value for each of the two nodes, read and written in place by name. The simulator looks
/// its per-node state up several times a turn; as dictionaries keyed by `NodeName` those lookups
/// (hashing, probing, a uniqueness check on every write) were ~2 % of a simulated week
/// (perf, `pairsim-bench simulate`).
struct PerNode<Value> {
    var watch: Value
    var phone: Value

    init(_ both: Value) { (watch, phone) = (both, both) }

    subscript(node: NodeName) -> Value {
        get { node == .watch ? watch : phone }
        _modify {
            switch node {
            case .watch: yield &watch
            case .phone: yield &phone
            }
        }
    }

    /// The same values as a dictionary, for the public API and reports.
    var dictionary: [NodeName: Value] { [.watch: watch, .phone: phone] }
}

extension PerNode: Sendable where Value: Sendable {}

/// A set of nodes as two flags (see `PerNode`).
struct NodeFlags: Sendable {
    private var flags = PerNode(false)

    func contains(_ node: NodeName) -> Bool { flags[node] }
    mutating func insert(_ node: NodeName) { flags[node] = true }
    mutating func remove(_ node: NodeName) { flags[node] = false }

    var set: Set<NodeName> { Set(NodeName.allCases.filter(contains)) }
}
