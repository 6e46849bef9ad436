/// A topology or scenario file was refused: which file, which key, which line, and why.
public struct ConfigError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    /// 1-based line of the offending node, when known.
    public var line: Int?
    /// Dotted key path, e.g. `channels.cloudkit.latency.lognormal.median`.
    public var path: String
    public var reason: String

    public init(file: String, line: Int?, path: String, reason: String) {
        self.file = file
        self.line = line
        self.path = path
        self.reason = reason
    }

    /// `Topologies/bad.yaml:12: channels.cloudkit.loss: must be between 0 and 1, got 1.5`
    public var description: String {
        let location = line.map { "\(file):\($0)" } ?? file
        return path.isEmpty ? "\(location): \(reason)" : "\(location): \(path): \(reason)"
    }
}
