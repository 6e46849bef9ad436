#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import PairSimCore
import PairSimKit
import ZeroMQ

/// A program PairSim starts — a node, the launcher, a helper — and everything done to it:
/// output routing, readiness, signals, stopping. `topology up`, `topology run`, the benchmarks and
/// the end-to-end tests all start processes through this one type.
///
/// Foundation's `Process` underneath: swift-subprocess 1.0.2 was considered, but its API is
/// async/await, and these callers are plain threads that must not park the cooperative pool while
/// they poll a child or wait for a signal.
public final class ChildProcess: @unchecked Sendable {
    /// Where a child's stdout and stderr go.
    public enum Output: Sendable {
        /// Nowhere.
        case discard
        /// Stdout nowhere, stderr (where a failing program says why) to this process's stderr.
        case errorsOnly
        /// This process's own stdout and stderr.
        case inherit
        /// Appended to a file (created if missing).
        case file(String)
        /// Line by line to a closure, from a reader thread.
        case lines(@Sendable (String) -> Void)
    }

    public let name: String
    let process: Process
    /// Signalled when a `.lines` relay has passed on the child's last line.
    let relayDone = DispatchSemaphore(value: 0)
    let relays: Bool

    /// Starts `executable` with `arguments`. `onExit` runs (on another thread) with the exit status.
    public init(name: String, executable: String, arguments: [String], output: Output = .discard, stdin: Pipe? = nil,
                environment: [String: String]? = nil, onExit: (@Sendable (Int32) -> Void)? = nil) throws {
        self.name = name
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        var relayFrom: Pipe?
        switch output {
        case .discard:
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        case .errorsOnly:
            process.standardOutput = FileHandle.nullDevice
        case .inherit:
            break
        case .file(let path):
            if !FileManager.default.fileExists(atPath: path), !FileManager.default.createFile(atPath: path, contents: nil) {
                throw RuntimeError("cannot create \(path) for the output of \(name)")
            }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            handle.seekToEndOfFile()
            process.standardOutput = handle
            process.standardError = handle
        case .lines:
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            relayFrom = pipe
        }
        process.standardInput = stdin ?? FileHandle.nullDevice
        if let onExit { process.terminationHandler = { onExit($0.terminationStatus) } }
        self.process = process
        relays = relayFrom != nil
        do {
            try process.run()
        } catch {
            throw RuntimeError("cannot start \(executable): \(error.localizedDescription)")
        }
        if let relayFrom, case .lines(let relay) = output {
            Self.relayLines(from: relayFrom.fileHandleForReading.fileDescriptor, to: relay, done: relayDone)
        }
    }

    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }
    /// The exit status (after the child ended); the signal's number when a signal ended it.
    public var terminationStatus: Int32 { process.terminationStatus }
    /// How it ended, for a message: "exited with status 1", "was killed by signal 9".
    public var howItEnded: String {
        process.terminationReason == .uncaughtSignal ? "was killed by signal \(process.terminationStatus)" : "exited with status \(process.terminationStatus)"
    }

    public func signal(_ signal: Int32) {
        if process.isRunning { kill(pid, signal) }
    }

    public func waitUntilExit() { process.waitUntilExit() }

    /// Waits until a node answers `ping` on its control socket; throws, naming the node, if it
    /// exits first or does not answer within `seconds`.
    public func waitUntilAnswering(control endpoint: String, seconds: Double = 20, context: Context? = nil) throws {
        var patience = Patience(seconds: seconds)
        try waitUntilAnswering(control: endpoint, patience: &patience, context: context)
    }

    /// The same, spending `patience` (several nodes can share one).
    public func waitUntilAnswering(control endpoint: String, patience: inout Patience, context: Context? = nil) throws {
        repeat {
            guard isRunning else { throw RuntimeError("\(name) exited with status \(terminationStatus) before it was ready") }
            let client = ControlClient(endpoint: endpoint, timeoutMilliseconds: 300)
            let reply = context.map { try? client.send("ping", context: $0) } ?? (try? client.send("ping"))
            if reply?.ok == true { return }
        } while patience.wait(microseconds: 50_000)
        throw RuntimeError("\(name) did not answer on \(endpoint) within \(Int(patience.seconds)) s")
    }

    /// SIGTERM (or `signal`; nil: none, they were asked already) to every child still running, up
    /// to `grace` seconds for them to end, then SIGKILL to the rest; `onKill` hears of each one
    /// killed. Returns once all have ended.
    public static func stopAll(_ children: [ChildProcess], signal: Int32? = SIGTERM, grace: Double = 10,
                               onKill: (ChildProcess) -> Void = { _ in }) {
        if let signal { for child in children { child.signal(signal) } }
        var patience = Patience(seconds: grace)
        while children.contains(where: \.isRunning), patience.wait(microseconds: 20_000) {}
        for child in children where child.isRunning {
            onKill(child)
            child.signal(SIGKILL)
        }
        for child in children {
            child.waitUntilExit()
            // Let the last lines (often the reason a node failed) through.
            if child.relays { _ = child.relayDone.wait(timeout: .now() + 2) }
        }
    }

    /// Runs a program to its end: its exit status and its stdout and stderr together.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> (status: Int32, output: String) {
        let collected = Collected()
        let child = try ChildProcess(name: (executable as NSString).lastPathComponent, executable: executable, arguments: arguments,
                                     output: .lines { collected.append($0) }, environment: environment)
        child.waitUntilExit()
        _ = child.relayDone.wait(timeout: .now() + 10)
        return (child.terminationStatus, collected.text)
    }

    final class Collected: @unchecked Sendable {
        let lock = NSLock()
        var lines: [String] = []
        func append(_ line: String) { lock.withLock { lines.append(line) } }
        var text: String { lock.withLock { lines.map { $0 + "\n" }.joined() } }
    }

    /// Reads `fd` on its own thread and hands over complete lines.
    static func relayLines(from fd: Int32, to relay: @escaping @Sendable (String) -> Void, done: DispatchSemaphore) {
        let thread = Thread {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(fd, &buffer, buffer.count)
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                pending.append(contentsOf: buffer[0..<count])
                var start = 0
                while let newline = pending[start...].firstIndex(of: 0x0A) {
                    relay(String(decoding: pending[start..<newline], as: UTF8.self))
                    start = newline + 1
                }
                pending.removeFirst(start)
            }
            if !pending.isEmpty { relay(String(decoding: pending, as: UTF8.self)) }
            done.signal()
        }
        thread.start()
    }
}

/// The command line of a node process, the same wherever a node is started.
public struct NodeLaunch: Sendable {
    public var node: NodeName
    public var topologyPath: String
    /// The pair's shared epoch (Unix milliseconds).
    public var epochUnixMilliseconds: Int64
    public var timeScale: Double?
    public var fresh = false
    public var quiet = false
    public var readStdin = false
    /// `--color always|never`; nil leaves it to the node.
    public var color: Bool?
    /// The launcher's pid: the node exits when that process is gone.
    public var parentPID: Int32?
    /// The node's app (`--app`).
    public var app: String?
    /// The launcher's stepped clock (`--stepped-clock`): then neither epoch nor time scale is passed.
    public var steppedClock: String?
    /// The launcher's epoch file (`--epoch-file`): the epoch is written there once the pair is ready.
    public var epochFile: String?
    /// The node's data directory, as the topology names it (the launcher has read the same file).
    /// Set, the node starts with `XDG_CONFIG_HOME` already where it keeps its app's UserDefaults,
    /// and does not start itself a second time to set it (`AppRuntime.keepUserDefaults`). In CI's
    /// debug build those first starts (loading, parsing the arguments, reading the topology) were
    /// 4.6 % of the CPU samples of a whole `swift test` run.
    public var dataDirectory: String?

    public init(node: NodeName, topologyPath: String, epochUnixMilliseconds: Int64) {
        self.node = node
        self.topologyPath = topologyPath
        self.epochUnixMilliseconds = epochUnixMilliseconds
    }

    public var arguments: [String] {
        var arguments = ["--topology", topologyPath]
        if let steppedClock {
            arguments += ["--stepped-clock", steppedClock]
        } else if let epochFile {
            arguments += ["--epoch-file", epochFile]
            if let timeScale { arguments += ["--time-scale", String(timeScale)] }
        } else {
            arguments += ["--epoch", String(epochUnixMilliseconds)]
            if let timeScale { arguments += ["--time-scale", String(timeScale)] }
        }
        if !readStdin { arguments.append("--no-stdin") }
        if quiet { arguments.append("--quiet") }
        if fresh { arguments.append("--fresh") }
        if let color { arguments += ["--color", color ? "always" : "never"] }
        if let parentPID { arguments += ["--parent-pid", String(parentPID)] }
        if let app { arguments += ["--app", app] }
        return arguments
    }

    /// A developer's own executable that serves as both nodes (`PairSimNodeMain`): set, every node
    /// is started as `<it> watch-node …` / `<it> phone-node …`, so the launcher never pairs the
    /// wrong binaries.
    public static let servesBothNodes = Mutex<String?>(nil)

    /// The node's executable in `binDirectory`, or `phoneBinary` for the phone when given, or the
    /// executable that serves both nodes.
    public static func executable(_ node: NodeName, binDirectory: String, phoneBinary: String? = nil) -> String {
        if let both = servesBothNodes.withLock({ $0 }) { return both }
        return node == .phone ? phoneBinary ?? "\(binDirectory)/phone-node" : "\(binDirectory)/\(node)-node"
    }

    /// Where a node whose data directory is `data` keeps its app's UserDefaults.
    public static func userDefaultsDirectory(data: String) -> String { data + "/defaults" }

    /// This process's environment with `XDG_CONFIG_HOME` set as the node will want it (nil: no
    /// `dataDirectory`, the node inherits this process's environment and sets it itself).
    public var environment: [String: String]? {
        guard let dataDirectory else { return nil }
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = AppRuntime.configHome(for: Self.userDefaultsDirectory(data: dataDirectory))
        return environment
    }

    /// Starts the node.
    public func start(binDirectory: String, phoneBinary: String? = nil, output: ChildProcess.Output, stdin: Pipe? = nil,
                      onExit: (@Sendable (Int32) -> Void)? = nil) throws -> ChildProcess {
        let subcommand = Self.servesBothNodes.withLock { $0 } == nil ? [] : ["\(node)-node"]
        return try ChildProcess(name: "\(node)-node", executable: Self.executable(node, binDirectory: binDirectory, phoneBinary: phoneBinary),
                                arguments: subcommand + arguments, output: output, stdin: stdin, environment: environment, onExit: onExit)
    }
}
