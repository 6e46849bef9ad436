import Foundation
import PairSimCore

/// What `topology up` leaves in `.pairsim/<name>.run.json` so `topology down` finds the processes.
public struct RunFile: Hashable, Sendable {
    public var launcher: Int32
    public var pids: [NodeName: Int32]
    public var topologyPath: String
    public var epochUnixMilliseconds: Int64
    public var timeScale: Double

    public init(launcher: Int32, pids: [NodeName: Int32], topologyPath: String, epochUnixMilliseconds: Int64, timeScale: Double) {
        self.launcher = launcher
        self.pids = pids
        self.topologyPath = topologyPath
        self.epochUnixMilliseconds = epochUnixMilliseconds
        self.timeScale = timeScale
    }

    /// Where the run file for topology `name` lives (relative to the working directory).
    public static func path(for name: String) -> String { ".pairsim/\(name).run.json" }

    public func write(name: String) throws {
        var object = JSONObject()
        object.append("launcher", .int(Int64(launcher)))
        for node in NodeName.allCases { object.append(node.rawValue, .int(Int64(pids[node] ?? 0))) }
        object.append("topology", .string(topologyPath))
        object.append("epoch", .int(epochUnixMilliseconds))
        object.append("timeScale", .double(timeScale))
        try FileManager.default.createDirectory(atPath: ".pairsim", withIntermediateDirectories: true)
        try Data(JSONWriter.bytes(.object(object))).write(to: URL(fileURLWithPath: Self.path(for: name)))
    }

    /// Reads the run file for `name`, or nil if there is none.
    public static func read(name: String) throws -> RunFile? {
        guard let data = FileManager.default.contents(atPath: path(for: name)) else { return nil }
        let json = try JSONParser().parse(Array(data))
        guard let launcher = json["launcher"]?.intValue, let epoch = json["epoch"]?.intValue else {
            throw RuntimeError("\(path(for: name)) is not a PairSim run file")
        }
        var pids: [NodeName: Int32] = [:]
        for node in NodeName.allCases { pids[node] = json[node.rawValue]?.intValue.flatMap { Int32(exactly: $0) } }
        guard let launcherPID = Int32(exactly: launcher) else { throw RuntimeError("\(path(for: name)): bad launcher pid \(launcher)") }
        return RunFile(launcher: launcherPID, pids: pids, topologyPath: json["topology"]?.stringValue ?? "",
                       epochUnixMilliseconds: epoch, timeScale: json["timeScale"]?.doubleValue ?? 1)
    }

    public static func remove(name: String) {
        try? FileManager.default.removeItem(atPath: path(for: name))
    }
}
