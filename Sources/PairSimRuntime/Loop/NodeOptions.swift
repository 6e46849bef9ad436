import PairSimCore
import PairSimKit

/// Everything a node process needs to run, gathered by the executable from its options.
public struct NodeOptions: Sendable {
    public var node: NodeName
    public var topology: Topology
    public var clock: EmulatedClock
    /// Read commands from stdin.
    public var readStdin: Bool
    /// Exit when this process is no longer our parent (the launcher died).
    public var parentPID: Int32?
    /// Print readable events on stdout.
    public var echo: Bool
    /// Colour stdout.
    public var color: Bool
    /// Start from nothing: remove the data directory's state and event log first.
    public var fresh: Bool = false
    /// The app under test: the phone's iPhone app; the watch's watch app (nil: the built-in one).
    public var app: AppRegistration?

    public init(node: NodeName, topology: Topology, clock: EmulatedClock, readStdin: Bool = true,
                parentPID: Int32? = nil, echo: Bool = true, color: Bool = false) {
        self.node = node
        self.topology = topology
        self.clock = clock
        self.readStdin = readStdin
        self.parentPID = parentPID
        self.echo = echo
        self.color = color
    }

    /// This node's endpoints.
    public var endpoints: NodeEndpoints { topology.nodes[node]! }
    /// The peer's endpoints.
    public var peerEndpoints: NodeEndpoints { topology.nodes[node.peer]! }
}
