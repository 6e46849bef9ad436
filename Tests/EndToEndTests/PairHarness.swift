#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PairSimConfig
import PairSimCore
import PairSimRuntime
import Testing

/// Spawns the real `watch-node`, `phone-node` and `topology` binaries on ipc endpoints in a
/// private temporary directory, drives them and reads their event logs.
///
/// @unchecked Sendable: one test drives it; the only other thread that touches it is one it hands
/// a blocking wait to while the test awaits (`offPool`).
final class PairHarness: @unchecked Sendable {
    let directory: String
    let topologyPath: String
    let topology: Topology
    private var processes: [String: ChildProcess] = [:]
    private var outputs: [String: String] = [:]

    /// Writes a topology named `name` (unique per test) with `extra` YAML appended.
    init(_ name: String, timeScale: Double = 60, channels: String = "", extra: String = "") throws {
        directory = NSTemporaryDirectory() + "pairsim-\(name)-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        topologyPath = directory + "/topology.yaml"
        let channelsYAML = channels.isEmpty ? """
            channels:
              healthkit: { latency: 0 }
              cloudkit: { latency: 0, exportInterval: off }
            """ : channels
        let yaml = """
            name: \(name)
            seed: 42
            timeScale: \(timeScale)
            nodes:
              watch: { publish: "ipc://\(directory)/w.pub", control: "ipc://\(directory)/w.ctl", data: "\(directory)/watch" }
              phone: { publish: "ipc://\(directory)/p.pub", control: "ipc://\(directory)/p.ctl", data: "\(directory)/phone" }
            \(channelsYAML)
            watch:
              heartRate: { restingInterval: off }
            \(extra)
            """
        try yaml.write(toFile: topologyPath, atomically: true, encoding: .utf8)
        topology = try TopologyLoader.load(path: topologyPath)
    }

    deinit {
        stopAll()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Where the package's executables were built (next to the test bundle).
    static var binDirectory: String {
        let candidates = [
            URL(fileURLWithPath: Swift.CommandLine.arguments[0]).deletingLastPathComponent().path,
            FileManager.default.currentDirectoryPath + "/.build/debug",
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0 + "/watch-node") } ?? candidates[0]
    }

    /// Starts a binary; its stdout and stderr go to a file in the directory.
    @discardableResult
    func spawn(_ label: String, _ executable: String, _ arguments: [String], stdin: Pipe? = nil) throws -> ChildProcess {
        let process = try ChildProcess(name: label, executable: Self.binDirectory + "/" + executable, arguments: arguments,
                                       output: .file(directory + "/\(label).out"), stdin: stdin)
        processes[label] = process
        return process
    }

    /// Starts one node directly (no launcher) with a shared epoch; `waiting`: until it answers.
    /// `presetConfigHome`: as the launchers do, with `XDG_CONFIG_HOME` already set for it
    /// (`NodeLaunch.dataDirectory`); false: as a node started by hand, which sets it itself.
    @discardableResult
    func startNode(_ node: NodeName, epoch: Int64, stdin: Pipe? = nil, waiting: Bool = true, executable: String? = nil, app: String? = nil,
                   presetConfigHome: Bool = true) throws -> ChildProcess {
        var launch = NodeLaunch(node: node, topologyPath: topologyPath, epochUnixMilliseconds: epoch)
        launch.color = false
        launch.readStdin = stdin != nil
        launch.app = app
        if presetConfigHome { launch.dataDirectory = topology.nodes[node]!.data }
        // The node ends when the test process does, even killed: no node outlives an interrupted run.
        launch.parentPID = getpid()
        let process = try ChildProcess(name: "\(node)-node", executable: executable.map { Self.binDirectory + "/" + $0 } ?? NodeLaunch.executable(node, binDirectory: Self.binDirectory),
                                       arguments: launch.arguments, output: .file(directory + "/\(node).out"), stdin: stdin,
                                       environment: launch.environment)
        processes[node.rawValue] = process
        if waiting { try waitUntilAnswering(node) }
        return process
    }

    func waitUntilAnswering(_ node: NodeName, seconds: Double = 20) throws {
        guard let process = processes[node.rawValue] else { throw RuntimeError("\(node)-node was not started by this harness") }
        do { try process.waitUntilAnswering(control: topology.nodes[node]!.control, seconds: seconds) } catch {
            throw RuntimeError("\(error); output:\n\(output(node.rawValue))")
        }
    }

    /// Sends a command to a node's control socket.
    func ctl(_ node: NodeName, _ command: String, timeoutMilliseconds: Int32 = 5_000) throws -> ControlClient.Reply {
        try ControlClient(endpoint: topology.nodes[node]!.control, timeoutMilliseconds: timeoutMilliseconds).send(command)
    }

    /// Sends a command that must succeed; returns the reply text.
    @discardableResult
    func must(_ node: NodeName, _ command: String) throws -> String {
        let reply = try ctl(node, command)
        guard reply.ok else { throw RuntimeError("\(node) refused '\(command)': \(reply.text)") }
        return reply.text
    }

    /// A node's `status --json` (schema in docs/COMMANDS.md).
    func status(_ node: NodeName) throws -> JSON {
        try JSONParser().parse(try must(node, "status --json"))
    }

    func events(_ node: NodeName) -> [Event] {
        EventLog.read(path: topology.nodes[node]!.data + "/events.jsonl")
    }

    func output(_ label: String) -> String {
        (try? String(contentsOfFile: directory + "/\(label).out", encoding: .utf8)) ?? ""
    }

    func process(_ label: String) -> ChildProcess? { processes[label] }

    func stopAll() {
        ChildProcess.stopAll(Array(processes.values))
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1_000) }

    /// The workout UUID from a finish-workout reply.
    static func workoutID(_ reply: String) throws -> String {
        guard let range = reply.range(of: #"workout=[0-9A-F-]{36}"#, options: .regularExpression) else {
            throw RuntimeError("no workout UUID in reply: \(reply)")
        }
        return String(reply[range].dropFirst("workout=".count))
    }
}
