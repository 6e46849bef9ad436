/// A runtime failure worth telling the user about (cannot bind, cannot open a file…).
public struct RuntimeError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
