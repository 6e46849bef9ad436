#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import PairSimCore
import Synchronization
import ZeroMQ

/// `topology up`: starts watch-node and phone-node from the same build with one epoch and time
/// scale, relays their output with a prefix, waits until both answer, forwards SIGINT/SIGTERM,
/// stops them, and reports failure if either failed (R: P2).
public final class PairSupervisor: Sendable {
    /// How to start the pair.
    public struct Options: Sendable {
        public var topology: Topology
        public var topologyPath: String
        /// Directory holding the `watch-node` and `phone-node` binaries.
        public var binDirectory: String
        public var color: Bool
        public var readyTimeoutSeconds: Double = 20
        /// Read `watch <command>` / `phone <command>` lines from stdin.
        public var readStdin: Bool = true
        /// Pass `--fresh` to both nodes.
        public var fresh: Bool = false
        /// The phone's app (`--app`); nil: the topology's.
        public var app: String?
        /// The watch's app (`--watch-app`); nil: the topology's.
        public var watchApp: String?
        /// Another phone-node executable (a developer's own, `--phone-bin`).
        public var phoneBinary: String?

        public init(topology: Topology, topologyPath: String, binDirectory: String, color: Bool) {
            self.topology = topology
            self.topologyPath = topologyPath
            self.binDirectory = binDirectory
            self.color = color
        }
    }

    enum Wake: Sendable {
        case exited(NodeName, Int32)
        case signal(Int32)
    }

    let options: Options
    let wakes = Mutex<[Wake]>([])
    let semaphore = DispatchSemaphore(value: 0)
    let outputLock = Mutex<Void>(())

    public init(options: Options) {
        self.options = options
    }

    public static func show(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e12 ? String(Int64(value)) : String(value)
    }

    func post(_ wake: Wake) {
        wakes.withLock { $0.append(wake) }
        semaphore.signal()
    }

    /// Prints a line with a node's prefix, whole lines only, from any thread.
    func say(_ prefix: String, _ line: String) {
        outputLock.withLock { _ in
            var text = prefix + line + "\n"
            text.withUTF8 { EventSink.writeAll(STDOUT_FILENO, UnsafeRawBufferPointer($0)) }
        }
    }

    func prefix(_ name: String) -> String {
        let label = "\(name) │ "
        guard options.color else { return label }
        return name == "watch" ? ANSI.cyan(label) : name == "phone" ? ANSI.magenta(label) : ANSI.bold(label)
    }

    /// Runs the pair until a signal, a node exit or `topology down`; returns the exit status.
    public func run() -> Int32 {
        if let existing = try? RunFile.read(name: options.topology.name), PairDown.isOurs(existing.launcher) {
            say(prefix("topology"), "error: pair \(options.topology.name) is already running (launcher pid \(existing.launcher)); 'topology down \(options.topologyPath)' stops it")
            return 1
        }
        let epoch = Int64(EmulatedClock.wallMilliseconds())
        var children: [NodeName: ChildProcess] = [:]
        let sources = installSignalHandlers()
        defer { sources.forEach { $0.cancel() } }
        for node in NodeName.allCases {
            var launch = NodeLaunch(node: node, topologyPath: options.topologyPath, epochUnixMilliseconds: epoch)
            launch.timeScale = options.topology.timeScale
            launch.dataDirectory = options.topology.nodes[node]!.data
            launch.parentPID = getpid()
            launch.color = options.color
            launch.fresh = options.fresh
            launch.app = node == .phone ? options.app : options.watchApp
            do {
                let prefix = self.prefix(node.rawValue)
                children[node] = try launch.start(binDirectory: options.binDirectory, phoneBinary: options.phoneBinary,
                                                  output: .lines { [self] in say(prefix, $0) },
                                                  onExit: { [self] in post(.exited(node, $0)) })
            } catch {
                say(prefix("topology"), "error: \(error)")
                stop(children)
                return 1
            }
        }
        let runFile = RunFile(launcher: getpid(), pids: children.mapValues(\.pid), topologyPath: options.topologyPath,
                              epochUnixMilliseconds: epoch, timeScale: options.topology.timeScale)
        do { try runFile.write(name: options.topology.name) } catch {
            say(prefix("topology"), "warning: cannot write \(RunFile.path(for: options.topology.name)): \(error)")
        }
        defer { RunFile.remove(name: options.topology.name) }

        guard waitUntilReady(children) else {
            stop(children)
            return 1
        }
        say(prefix("topology"), "pair \(options.topology.name) ready (time scale \(Self.show(options.topology.timeScale))×, seed \(options.topology.seed)); type 'watch <command>' or 'phone <command>', Ctrl-C stops")
        if options.readStdin { startCommandReader() }

        var failed = false
        var exitedEarly: NodeName?
        loop: while true {
            semaphore.wait()
            for wake in wakes.withLock({ w in defer { w.removeAll() }; return w }) {
                switch wake {
                case .signal(let number):
                    say(prefix("topology"), "received \(number == SIGINT ? "SIGINT" : "SIGTERM"); stopping the pair")
                    break loop
                case .exited(let node, let status):
                    // Status 0 is a clean stop (Ctrl-C reaches the nodes too, or 'shutdown'); anything else failed.
                    say(prefix("topology"), "\(node)-node exited with status \(status); stopping the pair")
                    failed = status != 0
                    exitedEarly = node
                    break loop
                }
            }
        }
        let statuses = stop(children)
        for (node, status) in statuses.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where node != exitedEarly && status != 0 {
            say(prefix("topology"), "\(node)-node stopped with status \(status)")
            failed = true
        }
        return failed ? 1 : 0
    }

    /// Pings both control sockets until they answer.
    func waitUntilReady(_ children: [NodeName: ChildProcess]) -> Bool {
        var patience = Patience(seconds: options.readyTimeoutSeconds)
        do {
            let context = try Context()
            for node in NodeName.allCases {
                try children[node]!.waitUntilAnswering(control: options.topology.nodes[node]!.control, patience: &patience, context: context)
            }
            return true
        } catch {
            say(prefix("topology"), "error: \(error)")
            return false
        }
    }

    /// SIGTERM to both, then SIGKILL to any still running after 10 s. Returns exit statuses.
    @discardableResult
    func stop(_ children: [NodeName: ChildProcess]) -> [NodeName: Int32] {
        ChildProcess.stopAll(Array(children.values)) { [self] child in
            say(prefix("topology"), "\(child.name) did not stop within 10 s; killing it")
        }
        return children.mapValues(\.terminationStatus)
    }

    func installSignalHandlers() -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in post(.signal(number)) }
            source.resume()
            return source
        }
    }

    /// `watch finish-workout` typed at the launcher goes to that node's control socket.
    func startCommandReader() {
        let topology = options.topology
        let thread = Thread { [self] in
            let context: Context
            do { context = try Context() } catch {
                say(prefix("topology"), "error: cannot read commands: \(error)")
                return
            }
            while let line = readLine() {
                let words = line.split(separator: " ", maxSplits: 1).map(String.init)
                guard let first = words.first else { continue }
                guard let node = NodeName(rawValue: first), words.count == 2 else {
                    say(prefix("topology"), "error: type '<watch|phone> <command>', e.g. 'watch start-workout running'")
                    continue
                }
                do {
                    let reply = try ControlClient(endpoint: topology.nodes[node]!.control).send(words[1], context: context)
                    for (index, text) in reply.text.split(separator: "\n").enumerated() {
                        say(prefix(node.rawValue), (index == 0 ? (reply.ok ? "> " : "> error: ") : "> ") + text)
                    }
                } catch {
                    say(prefix("topology"), "error: \(error)")
                }
            }
        }
        thread.start()
    }
}
