import Foundation
import Logging
import PairSimCore
import PairSimHealthExport
import PairSimKit
import ServiceLifecycle

/// A node process as a ServiceLifecycle `Service`: starts the node's loop thread, waits for it,
/// and asks it to stop on graceful shutdown (SIGINT/SIGTERM via the `ServiceGroup`).
public struct NodeService: Service {
    public let options: NodeOptions
    public let mailbox: Mailbox
    let makeModel: @Sendable (NodeOptions, String) -> any NodeModel

    /// Creates the service; `makeModel` builds the core model for a boot id.
    public init(options: NodeOptions, mailbox: Mailbox = Mailbox(),
                makeModel: @escaping @Sendable (NodeOptions, String) -> any NodeModel) {
        self.options = options
        self.mailbox = mailbox
        self.makeModel = makeModel
    }

    public func run() async throws {
        let options = self.options
        let mailbox = self.mailbox
        let makeModel = self.makeModel
        try await withTaskCancellationOrGracefulShutdownHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                let thread = Thread {
                    do {
                        try Self.runLoop(options: options, mailbox: mailbox, makeModel: makeModel)
                        continuation.resume()
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
                thread.name = "\(options.node)-loop"
                thread.start()
            }
        } onCancelOrGracefulShutdown: {
            mailbox.post(.stop)
        }
    }

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
        let storage = try JournaledStorage(directory: data)
        // The two models PairSim's nodes run get loops specialized for their types: unspecialized,
        // the loop copied the whole phone model each time it read its next deadline (~4 µs a turn).
        let model = makeModel(options, boot)
        if let phone = model as? PhoneNode {
            try run(model: phone, options: options, mailbox: mailbox, storage: storage)
        } else if let watch = model as? WatchModel {
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

    /// Removes a node's state database, turn journal and event log.
    static func wipe(_ data: String) throws {
        for name in ["state.sqlite", "state.sqlite-wal", "state.sqlite-shm", "turns.journal", "events.jsonl"] {
            let path = data + "/" + name
            if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
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
        case .watch: WatchModel(topology: options.topology, boot: boot, exports: HealthExportReader.opener)
        case .phone: PhoneNode(topology: options.topology, boot: boot, app: options.app!)
        }
    }

    /// Runs the node until SIGINT/SIGTERM or `shutdown`.
    public static func run(_ options: NodeOptions) async throws {
        var logger = Logger(label: "pairsim.\(options.node)")
        logger.logLevel = .warning
        let mailbox = Mailbox()
        let service = NodeService(options: options, mailbox: mailbox) { makeModel($0, boot: $1) }
        if options.readStdin { StdinReader.start(mailbox: mailbox) }
        let group = ServiceGroup(configuration: .init(
            services: [.init(service: service, successTerminationBehavior: .gracefullyShutdownGroup)],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        try await group.run()
    }
}
