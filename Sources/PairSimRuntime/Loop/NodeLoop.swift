#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PairSimCore
import ZeroMQ

/// One node's event loop on its own thread: it owns the ZeroMQ sockets, feeds the core model with
/// frames, commands and timer firings, and performs the model's actions (persist, publish, emit).
///
/// Everything runs on this one thread, so the sockets stay on the thread that made them and the
/// cooperative pool is never blocked by `zmq_poll` or storage.
///
/// Generic over the model rather than holding `any NodeModel`: reading the existential's
/// `nextDeadline` copied the whole phone model out of its box each time (~2 % of the phone's loop
/// thread in the single-sample probe).
final class NodeLoop<Model: NodeModel> {
    let options: NodeOptions
    let mailbox: Mailbox
    var model: Model
    let storage: JournaledStorage
    let sink: EventSink
    let context: Context
    let publisher: Socket
    let subscriber: Socket
    let control: Socket
    var stopping = false
    /// A control request `at MS COMMAND` waiting for its instant; its reply waits with it (R: K9).
    var scheduled: (at: EmulatedInstant, command: String)?
    /// The latest instant the model was handed anything at (NodeLoop+Scheduled.swift).
    var lastTurnAt = EmulatedInstant.zero
    /// Boot and turn handling shared with the simulator.
    var turns = NodeTurns()
    /// Frames taken from the SUB socket per turn before acting, so storage commits are batched.
    let receiveBatch = 2_048
    /// Frames this process published and took from its peer, and whether the peer's SUB is
    /// subscribed to it now: what a stepped launcher balances to know nothing is in flight.
    var published = 0
    var received = 0
    var peerSubscribed = false

    init(options: NodeOptions, mailbox: Mailbox, model: Model, storage: JournaledStorage) throws {
        self.options = options
        self.mailbox = mailbox
        self.model = model
        self.storage = storage
        let data = options.endpoints.data
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        sink = try EventSink(path: data + "/events.jsonl", echo: options.echo, color: options.color)
        context = try Context()
        publisher = try Socket(context, .xpub)
        try publisher.setXPubVerbose(true)
        try publisher.setSendHighWaterMark(200_000)
        subscriber = try Socket(context, .sub)
        try subscriber.setReceiveHighWaterMark(200_000)
        // No ZeroMQ size limit: it would drop the connection silently; the codec refuses oversized
        // frames with a wire.rejected event instead (docs/PROTOCOL.md).
        try subscriber.setMaxMessageSize(-1)
        try subscriber.setReconnectInterval(milliseconds: 50)
        try subscriber.subscribe("")
        control = try Socket(context, .rep)
        // The reply to `shutdown` is the last thing sent: let it leave before the context ends.
        try control.setLinger(milliseconds: 500)
        try Self.bind(publisher, options.endpoints.publish, what: "publish")
        try Self.bind(control, options.endpoints.control, what: "control")
        try subscriber.connect(options.peerEndpoints.publish)
    }

    static func bind(_ socket: Socket, _ endpoint: String, what: String) throws {
        if endpoint.hasPrefix("ipc://") {
            let path = String(endpoint.dropFirst(6))
            let directory = (path as NSString).deletingLastPathComponent
            if !directory.isEmpty { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
            if UnixSocketProbe.isListening(path) {
                throw RuntimeError("cannot bind the \(what) socket to \(endpoint): another process is listening there")
            }
            // A socket file left by a killed process would make bind fail: nobody answers on it, remove it.
            unlink(path)
        }
        do { try socket.bind(endpoint) } catch {
            throw RuntimeError("cannot bind the \(what) socket to \(endpoint): \(error.message)")
        }
    }

    /// Runs until stopped; returns normally on a graceful stop.
    func run() throws {
        let state = try storage.load()
        var actions: [NodeAction]
        do { actions = try turns.boot(&model, from: state, now: options.clock.now()) } catch {
            throw RuntimeError("cannot restore \(options.node) state from \(options.endpoints.data): \(error)")
        }
        actions.append(.emit(Event(at: options.clock.now(), node: options.node, .nodeReady, fields: [
            "publish": .string(options.endpoints.publish), "control": .string(options.endpoints.control),
            "peer": .string(options.peerEndpoints.publish),
        ])))
        try perform(actions, worked: true)
        var poller = Poller()
        let publisherIndex = poller.add(publisher)
        let subscriberIndex = poller.add(subscriber)
        let controlIndex = poller.add(control)
        let mailboxIndex = poller.add(fileDescriptor: mailbox.fileDescriptor)
        while !stopping {
            // Held events are written, and turns waiting in the journal go to SQLite, once the
            // node has had nothing to do for a millisecond. Settling at once instead (a
            // zero-timeout look) left the SQLite commit competing for the 2 cores with the
            // acknowledgement it follows: single-sample p50 280 µs against 220 µs with the
            // millisecond's wait (5 runs each, same session). Events: see `EventSink`.
            let idleWork = storage.unsettledTurns > 0 || !sink.isEmpty
            let deadline = Model.nextDeadline(of: &model).earliest(scheduled?.at)
            let timeout = pollTimeout(until: deadline)
            let ready = try poller.poll(timeoutMilliseconds: idleWork ? min(1, timeout) : timeout)
            if idleWork, !ready.contains(where: { $0.contains(.readable) }), deadline.map({ $0 > options.clock.now() }) ?? true {
                sink.flush()
                try storage.settle()
                continue
            }
            var actions: [NodeAction] = []
            var replies: [(CommandResult, @Sendable (CommandResult) -> Void)] = []
            var controlReply: CommandResult?
            if let due = scheduled, due.at <= options.clock.now() {
                // First in the pass, at its own instant: what was due before it happens first.
                scheduled = nil
                let result = runScheduled(due.command, at: due.at)
                actions += result.actions
                controlReply = result
            }
            if ready[publisherIndex].contains(.readable) { actions += try takeSubscriptions() }
            if ready[subscriberIndex].contains(.readable) { actions += try takeFrames() }
            if ready[mailboxIndex].contains(.readable) {
                for input in mailbox.drain() {
                    switch input {
                    case .command(let text, let reply):
                        let result = handle(bytes: Array(text.utf8))
                        actions += result.actions
                        replies.append((result, reply))
                    case .stop:
                        stopping = true
                    }
                }
            }
            var clockStatusAsked = false
            // One request at a time (REP): none is taken while a scheduled one waits or was just answered.
            if scheduled == nil, controlReply == nil, ready[controlIndex].contains(.readable), let request = try control.receiveMultipart(dontWait: true) {
                if request.count != 1 {
                    controlReply = CommandResult(ok: false, reply: "a control request is one frame holding the command text; got \(request.count) frames")
                } else if let at = NodeProcess.scheduledRequest(request[0]) {
                    switch at {
                    case .failure(let error):
                        controlReply = .failure(error)
                    case .success(let (instant, command)) where instant > options.clock.now():
                        scheduled = (instant, command)
                    case .success(let (instant, command)) where instant >= lastTurnAt:
                        // Arrived a little late, but nothing happened since its instant: run it there.
                        let result = runScheduled(command, at: instant)
                        actions += result.actions
                        controlReply = result
                    case .success(let (_, command)):
                        let result = handle(bytes: Array(command.utf8))
                        actions += result.actions
                        controlReply = result
                    }
                } else if Self.isClockStatus(request[0]) {
                    // Answered after this pass's turn, so the reply counts what the turn sent.
                    clockStatusAsked = true
                } else {
                    let result = handle(bytes: request[0])
                    actions += result.actions
                    controlReply = result
                }
            }
            var worked = !replies.isEmpty || controlReply != nil || !actions.isEmpty
            if let deadline = Model.nextDeadline(of: &model), deadline <= options.clock.now() {
                actions += model.advance(to: turnNow())
                worked = true
            }
            try perform(actions, worked: worked)
            // A reply typed on stdin is printed after the events its command caused.
            if !replies.isEmpty { sink.flush() }
            for (result, reply) in replies { reply(result) }
            if clockStatusAsked {
                // A stepped launcher asks at every instant the pair goes quiet: the log is written
                // up to here first, so a kill it makes next loses no event (docs/EVENTS.md).
                sink.flush()
                controlReply = CommandResult(ok: true, reply: clockStatus())
            }
            if let controlReply {
                try control.send(multipart: [Array((controlReply.ok ? "ok" : "error").utf8), Array(controlReply.reply.utf8)])
            }
            if let parent = options.parentPID, getppid() != parent {
                sink.printLine("launcher (pid \(parent)) is gone; stopping")
                stopping = true
            }
            sink.flushIfDue()
        }
        try perform(model.stop(now: options.clock.now()), worked: true)
        try storage.settle()
        sink.flush()
    }

    /// Wall milliseconds until the model's next deadline, capped so the parent check runs.
    func pollTimeout(until deadline: EmulatedInstant?) -> Int {
        guard let deadline else { return 250 }
        let wall = options.clock.wallMilliseconds(until: deadline)
        return Int(min(250, wall.rounded(.up)))
    }

    /// XPUB subscription messages: a peer SUB (re)connected, so it can hear us now.
    func takeSubscriptions() throws -> [NodeAction] {
        var actions: [NodeAction] = []
        while let frames = try publisher.receiveMultipart(dontWait: true) {
            if let first = frames.first?.first, first == 1 {
                peerSubscribed = true
                actions += model.peerConnected(now: turnNow())
            } else if frames.first?.first == 0 {
                peerSubscribed = false
            }
        }
        return actions
    }

    func takeFrames() throws -> [NodeAction] {
        var actions: [NodeAction] = []
        var taken = 0
        while taken < receiveBatch, let frames = try subscriber.receiveMultipart(dontWait: true) {
            actions += model.receive(frames: frames, now: turnNow())
            taken += 1
        }
        received += taken
        return actions
    }

    /// `clock-status`, the one command answered after the turn it arrived in.
    static func isClockStatus(_ bytes: [UInt8]) -> Bool {
        bytes.count < 64 && String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "clock-status"
    }

    /// The node's clock and traffic as JSON (docs/COMMANDS.md#clock-status): idle when nothing is
    /// due at the current instant and no frame waits unread.
    func clockStatus() -> String {
        let now = options.clock.now()
        let next = Model.nextDeadline(of: &model)
        var object = JSONObject()
        object.append("now", .int(now.milliseconds))
        object.append("next", next.map { .int($0.milliseconds) } ?? .null)
        object.append("idle", .bool((next.map { $0 > now } ?? true) && !subscriber.hasInput))
        object.append("published", .int(Int64(published)))
        object.append("received", .int(Int64(received)))
        object.append("subscribed", .bool(peerSubscribed))
        return JSONWriter.string(.object(object))
    }

    /// Commands handled by the process itself rather than the model: `ping`, `shutdown`,
    /// `clock-status`, and the lines they add to `help`.
    func handle(bytes: [UInt8]) -> CommandResult {
        guard bytes.count <= NodeProcess.maxCommandBytes else {
            return CommandResult(ok: false, reply: "command too long: \(bytes.count) bytes (the limit is \(NodeProcess.maxCommandBytes))")
        }
        let trimmed = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        // The process's own verbs take nothing: `ping extra` is refused as such, not as unknown.
        if let parsed = try? ParsedCommand(parsing: trimmed), ["ping", "shutdown", "clock-status"].contains(parsed.verb),
           !(parsed.arguments.isEmpty && parsed.options.isEmpty) {
            return CommandResult(ok: false, reply: "\(parsed.verb): takes no arguments or options (\(parsed.verb))")
        }
        if trimmed.hasPrefix("at ") {
            return CommandResult(ok: false, reply: "at: only on the control socket, whose reply can wait for the instant")
        }
        switch trimmed {
        case "ping":
            return CommandResult(ok: true, reply: "pong \(options.node) at \(options.clock.now())")
        case "shutdown":
            stopping = true
            return CommandResult(ok: true, reply: "\(options.node) stopping")
        case "clock-status":
            return CommandResult(ok: true, reply: clockStatus())
        default:
            var result = model.handleLogged(commandText: trimmed, now: turnNow())
            if trimmed == "help", result.ok {
                result.reply += "\n" + CommandGrammar.help(NodeProcess.processCommands, node: options.node).split(separator: "\n").dropFirst().joined(separator: "\n")
            }
            return result
        }
    }

    /// Performs a turn's actions: persist (one commit with the changed model values), then
    /// publish, then emit. `worked` says the model may have changed state.
    func perform(_ actions: [NodeAction], worked: Bool) throws {
        guard worked else { return }
        try turns.carryOut(actions, values: model.changedValues(),
            commit: { try storage.commit($0, values: $1) },
            // A full PUB queue drops silently; the outbox retransmits until acknowledged.
            publish: {
                _ = try publisher.send(multipart: [Array($0.topic.utf8), $0.payload], dontWait: true)
                published += 1
            },
            emit: { sink.write($0) })
    }

    func close() {
        publisher.close()
        subscriber.close()
        control.close()
    }
}

/// What every node process answers itself, whatever its model.
enum NodeProcess {
    /// The longest command a node takes (docs/COMMANDS.md): anything longer is refused at once,
    /// before it is decoded or parsed, and the reply does not echo it.
    static let maxCommandBytes = 65_536

    /// The process's own commands, listed by `help` after the model's.
    static let processCommands = [
        CommandSpec("at", "<ms> <command…>", "on the control socket: run the command when emulated time reaches <ms>, at that very instant (past it: still there if nothing happened since, else at once); the reply, and any other request, waits until then (topology run sends each timeline command so)"),
        CommandSpec("ping", "", "answer pong: the node is up (the launcher's readiness check)"),
        CommandSpec("shutdown", "", "stop gracefully; the reply comes before the node exits"),
        CommandSpec("clock-status", "", "the node's clock, next deadline and frames published and received, as JSON (a stepped launcher's question)"),
    ]
}
