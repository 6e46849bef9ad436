import Foundation
import PairSimApps
import PairSimCore
import PairSimHealthExport
import PairSimKit
import UnixSignals

/// A node process: its loop, which runs on the process's main thread (`NodeRunner.run`) and stops
/// on `shutdown`, SIGTERM or SIGINT.
///
/// The loop has the main thread, not a thread of its own, because it delivers the app's calls:
/// app code that puts work on `DispatchQueue.main` gets it run in those deliveries, in order
/// (`AppExecutor`), and nothing else in the process drains the main queue.
public enum NodeService {
    /// Runs the node's loop to its end. Everything it opened — sockets, the ZeroMQ context, the
    /// database, the directory lock — is closed when this returns: the context's end waits for the
    /// control socket's last reply (`shutdown`'s) to leave, before the process may exit.
    static func runLoop(options: NodeOptions, mailbox: Mailbox,
                        makeModel: @Sendable (NodeOptions, String) -> any NodeModel) throws {
        let boot = newBootID()
        let data = options.endpoints.data
        let lock = try DataDirectoryLock(directory: data)
        defer { withExtendedLifetime(lock) {} }
        if options.fresh { try wipe(data) }
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let storage = try JournaledStorage(directory: data, syncsTurns: options.topology.reliability.durability == .power)
        // The two models PairSim's nodes run get loops specialized for their types: unspecialized,
        // the loop copied the whole phone model each time it read its next deadline (~4 µs a turn).
        let model = makeModel(options, boot)
        if let phone = model as? PhoneNode {
            try run(model: phone, options: options, mailbox: mailbox, storage: storage)
        } else if let watch = model as? WatchNode {
            try run(model: watch, options: options, mailbox: mailbox, storage: storage)
        } else {
            try run(model: model, options: options, mailbox: mailbox, storage: storage)
        }
    }

    /// The loop for the model's own type (the existential opened once, here).
    static func run<Model: NodeModel>(model: Model, options: NodeOptions, mailbox: Mailbox, storage: JournaledStorage) throws {
        let loop = try NodeLoop(options: options, mailbox: mailbox, model: model, storage: storage)
        defer { loop.close() }
        try loop.run()
    }

    /// Removes a node's state database, turn journal, event log and the app's `UserDefaults`.
    static func wipe(_ data: String) throws {
        for name in ["state.sqlite", "state.sqlite-wal", "state.sqlite-shm", "turns.journal", "events.jsonl"] {
            let path = data + "/" + name
            if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
        }
        let defaults = data + "/defaults"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: defaults)) ?? [] {
            try FileManager.default.removeItem(atPath: defaults + "/" + name)
        }
    }

    /// A boot id unique to this process start (streams restart when state is not restored).
    static func newBootID() -> String {
        var random = SystemRandomNumberGenerator()
        let value = random.next() & 0xFFFF_FFFF_FFFF
        return String(value, radix: 36)
    }
}

/// Builds and runs a node process: the service, stdin commands, signal handling. The
/// `watch-node` and `phone-node` executables call this; so can tests.
public enum NodeRunner {
    /// The core model for `options.node`.
    @Sendable public static func makeModel(_ options: NodeOptions, boot: String) -> any NodeModel {
        switch options.node {
        // Options made by hand rather than parsed (tests) may leave the watch's app to the topology.
        case .watch: WatchNode(topology: options.topology, boot: boot, exports: HealthExportReader.opener,
                               app: options.app ?? (try! AppCatalog.watchApp(for: options.topology)))
        case .phone: PhoneNode(topology: options.topology, boot: boot, app: options.app!)
        }
    }

    /// Runs the node on this thread — the main thread, in PairSim's executables — until SIGINT,
    /// SIGTERM or `shutdown`. A signal is a graceful stop: it asks the loop to stop as `shutdown`
    /// does (UnixSignals' dispatch sources catch it, on the platform's executors beside the loop).
    ///
    /// This was swift-service-lifecycle's `ServiceGroup` with the loop as its one service. That
    /// package's `ServiceLifecycle` module brings swift-async-algorithms and OrderedCollections into
    /// the build, 17 s of CPU in a debug build here for what these lines do; its `UnixSignals`
    /// module, which did the signal handling inside it, is used directly.
    public static func run(_ options: NodeOptions) throws {
        // Foundation's UserDefaults.standard of the app: per node, in its data directory (read at
        // the app's first use, after the loop holds the directory's lock and `--fresh` emptied it).
        try AppRuntime.keepUserDefaults(in: NodeLaunch.userDefaultsDirectory(data: options.endpoints.data))
        let mailbox = Mailbox()
        if options.readStdin { StdinReader.start(mailbox: mailbox) }
        let trapping = DispatchSemaphore(value: 0)
        let signals = Task.detached {
            let caught = await UnixSignalsSequence(trapping: .sigterm, .sigint)
            trapping.signal()
            for await _ in caught { mailbox.post(.stop) }
        }
        // Trapped before the loop starts: a SIGTERM that comes early stops the node gracefully too.
        trapping.wait()
        defer { signals.cancel() }
        try NodeService.runLoop(options: options, mailbox: mailbox, makeModel: { makeModel($0, boot: $1) })
    }
}
