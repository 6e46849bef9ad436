/// The two emulated devices.
public enum NodeName: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case watch, phone

    /// The other end of the pair.
    public var peer: NodeName { self == .watch ? .phone : .watch }
    public var description: String { rawValue }
}
