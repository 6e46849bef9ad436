import Foundation

/// One side's `WCSession` as the OS keeps it (R: X1, X2): what the app sent and is still
/// outstanding, what arrived and waits for the app, the application context both ways, the
/// counterpart's reachability, and the `wc.…` messages on the `watchconnectivity` channel. Both
/// nodes own one; each decides when its app runs (`takeDeliverable`) and what reachability means
/// for it (`setReachability`).
public struct WCSessionCore: Sendable {
    public let node: NodeName
    public let config: WCConfig
    var random: SplitMix64
    /// This side's app activated its session (the phone's app does it in each process; the watch's always).
    public internal(set) var activated: Bool
    /// The counterpart's last `wc.link`: its app can take live messages.
    public var peerLink = false
    /// What this side last announced in `wc.link` (nil: nothing yet).
    public internal(set) var announced: Bool?
    /// `isReachable` as this side's app last heard it.
    public internal(set) var reachable = false
    /// Outstanding `transferUserInfo` and `transferFile`, FIFO; only the head travels.
    public internal(set) var outgoing: [WCTransfer] = []
    /// The newest application context not yet handed to the channel (latest only).
    public internal(set) var contextPending: JSONObject?
    var contextSeq: UInt64?
    /// `applicationContext`: the last one this side's app set.
    public internal(set) var contextSent: JSONObject?
    /// `receivedApplicationContext`: the latest one that arrived, and its stream and seq.
    public internal(set) var receivedContext: JSONObject?
    var receivedContextAt: (stream: String, seq: UInt64)?
    /// Arrived and waiting for this side's app, in the sender's order.
    public internal(set) var inbox: [WCReceived] = []
    var pending: [WCPendingMessage] = []
    /// App handles of transfers cancelled since the node last told its app (process memory).
    var cancelledHandles: [Int] = []
    /// The device restarted and has not been unlocked since (the phone's `reboot`, R: X3).
    public internal(set) var awaitingFirstUnlock = false
    /// The watch app is on screen (the watch's `foreground` / `background`).
    public internal(set) var foreground = false
    public internal(set) var counters = WCCounters()

    public init(node: NodeName, config: WCConfig, seed: UInt64, activated: Bool) {
        self.node = node
        self.config = config
        self.activated = activated
        random = SplitMix64(seed: seed, label: "\(node).wc")
    }

    func event(_ name: EventName, _ now: EmulatedInstant, level: Event.Level = .info, _ fields: JSONObject) -> NodeAction {
        .emit(Event(at: now, node: node, name, level: level, fields: fields))
    }

    /// Earliest instant with work: a stall ending, a message timing out.
    public var nextDeadline: EmulatedInstant? {
        var earliest = outgoing.first.flatMap { $0.seq == nil ? $0.stalledUntil : nil }
        for request in pending { earliest = earliest.earliest(request.deadline) }
        for item in inbox where item.kind == .message { earliest = earliest.earliest(item.sentAt + config.messageTimeout) }
        return earliest
    }

    // MARK: Reachability

    /// Sets what this side announces (`own`) and recomputes `isReachable` from it and the
    /// counterpart's link; returns the `wc.link` to publish and a `wc.reachability` event on change.
    mutating func setReachability(own: Bool, isReachable: Bool, sync: SyncEngine, now: EmulatedInstant) -> (changed: Bool, actions: [NodeAction]) {
        var actions: [NodeAction] = []
        if announced != own {
            announced = own
            actions.append(.publish(sync.linkFrame(reachable: own, now: now)))
        }
        let change = noteReachable(isReachable, now: now)
        return (!change.isEmpty, actions + change)
    }

    /// Records `isReachable` as the app just heard it with its activation (an event if it changed).
    mutating func noteReachable(_ value: Bool, now: EmulatedInstant) -> [NodeAction] {
        guard reachable != value else { return [] }
        reachable = value
        return [event(.wcReachability, now, ["reachable": .bool(value)])]
    }

    /// The link announcement again (the peer just connected).
    func announceAgain(sync: SyncEngine, now: EmulatedInstant) -> [NodeAction] {
        announced.map { [.publish(sync.linkFrame(reachable: $0, now: now))] } ?? []
    }

    // MARK: Sending

    /// `sendMessage`: refused at once when not activated or not reachable (or by the X3 fault);
    /// otherwise sent, and pending until its reply (or acknowledgement) or its timeout.
    mutating func sendMessage(_ payload: JSONObject, wantsReply: Bool, appID: Int?, id: String, isData: Bool = false, sync: inout SyncEngine,
                              now: EmulatedInstant) -> (error: WCErrorCode?, actions: [NodeAction]) {
        if let refusal = refusal {
            counters.refused += 1
            return (refusal, [event(.wcRefused, now, level: .warning, ["kind": "message", "code": .string(refusal.rawValue)])])
        }
        if random.chance(config.messageFailure) {
            counters.failed += 1
            return (.deliveryFailed, [event(.wcFailed, now, level: .warning, [
                "id": .string(id), "code": .string(WCErrorCode.deliveryFailed.rawValue), "reason": "fault: messageFailure",
            ])])
        }
        let seq = sync.nextSeq(.watchconnectivity)
        pending.append(WCPendingMessage(id: id, seq: seq, deadline: now + config.messageTimeout, wantsReply: wantsReply, appID: appID))
        counters.messagesSent += 1
        return (nil, Self.send(.message, WCBody.message(id: id, payload: payload, wantsReply: wantsReply, isData: isData), id: id, sync: &sync, now: now))
    }

    /// Why a live message is refused now, or nil.
    var refusal: WCErrorCode? {
        if !activated { return .sessionNotActivated }
        if !reachable { return .notReachable }
        return nil
    }

    /// `transferUserInfo` / `transferFile`: queued (FIFO, durable), sent when it reaches the head.
    /// `complication`: a current complication transfer within its budget, sent at high priority —
    /// ahead of every queued transfer not yet on its way.
    mutating func transfer(_ transfer: WCTransfer, complication: Bool = false, sync: inout SyncEngine, now: EmulatedInstant) -> [NodeAction] {
        nudgeStall(now: now)
        if complication {
            outgoing.insert(transfer, at: outgoing.firstIndex { $0.seq == nil } ?? outgoing.endIndex)
        } else {
            outgoing.append(transfer)
        }
        var fields: JSONObject = ["kind": .string(transfer.kind.rawValue), "id": .string(transfer.id)]
        if let file = transfer.file { fields.append("name", .string(file.name)) }
        if complication { fields.append("complication", true) }
        fields.append("outstanding", .int(Int64(outgoing.count)))
        return [event(.wcQueued, now, fields)] + pump(sync: &sync, now: now)
    }

    /// `updateApplicationContext`: only the latest is kept; it leaves when the previous one arrived.
    mutating func updateContext(_ payload: JSONObject, sync: inout SyncEngine, now: EmulatedInstant) -> [NodeAction] {
        contextSent = payload
        contextPending = payload
        return pump(sync: &sync, now: now)
    }

    /// `cancel()` of an outstanding transfer: only one still waiting in the queue can be.
    mutating func cancel(_ id: String, sync: inout SyncEngine, now: EmulatedInstant) -> (ok: Bool, reason: String, actions: [NodeAction]) {
        guard let index = outgoing.firstIndex(where: { $0.id == id }) else {
            return (false, "no outstanding transfer \(id)", [])
        }
        guard outgoing[index].seq == nil else { return (false, "transfer \(id) is already on its way to the counterpart", []) }
        let removed = outgoing.remove(at: index)
        counters.cancelled += 1
        if let appID = removed.appID { cancelledHandles.append(appID) }
        // A stalled head cancelled: the next one goes now.
        return (true, "cancelled \(removed.kind.rawValue) \(id)",
                [event(.wcCancelled, now, ["kind": .string(removed.kind.rawValue), "id": .string(id)])] + pump(sync: &sync, now: now))
    }

    /// The field's stall (`userInfoStall.for: untilNudged`) ends when the app queues another
    /// transfer or activates its session again; a timed stall keeps its time.
    mutating func nudgeStall(now: EmulatedInstant) {
        guard var head = outgoing.first, head.stalledUntil == .distantFuture else { return }
        head.stage = .stalled(until: now)
        outgoing[0] = head
    }

    /// Hands the queue's head and the pending context to the channel.
    mutating func pump(sync: inout SyncEngine, now: EmulatedInstant) -> [NodeAction] {
        var actions: [NodeAction] = []
        if var head = outgoing.first, head.seq == nil {
            if head.stage == .queued, head.kind == .userinfo, random.chance(config.stallChance) {
                let until = config.stallFor.map { now + $0 } ?? .distantFuture
                head.stage = .stalled(until: until)
                counters.stalls += 1
                actions.append(event(.wcStalled, now, level: .warning, ["id": .string(head.id),
                                                                        "until": .string(config.stallFor == nil ? "nudged" : until.description)]))
            }
            if head.stalledUntil.map({ $0 <= now }) ?? true {
                head.stage = .sending(seq: sync.nextSeq(.watchconnectivity))
                let transferTime = head.file.map { EmulatedDuration.milliseconds(Int64($0.size) * 1000 / Int64(max(config.fileRate, 1))) } ?? .zero
                actions += Self.send(head.kind, WCBody.transfer(head), id: head.id, sync: &sync, now: now, extraLatency: transferTime)
            }
            outgoing[0] = head
        }
        if let context = contextPending, contextSeq == nil {
            contextSeq = sync.nextSeq(.watchconnectivity)
            contextPending = nil
            counters.contextsSent += 1
            actions += Self.send(.context, ["payload": .object(context)], id: nil, sync: &sync, now: now)
        }
        return actions
    }

    /// After acknowledgements: transfers the counterpart device has are finished (`didFinish`,
    /// returned for the app), the next goes; a context that arrived lets a newer one go.
    mutating func acknowledged(sync: inout SyncEngine, now: EmulatedInstant) -> (finished: [WCTransfer], actions: [NodeAction]) {
        var finished: [WCTransfer] = []
        var actions: [NodeAction] = []
        while let head = outgoing.first, let seq = head.seq, !sync.isPending(.watchconnectivity, seq) {
            outgoing.removeFirst()
            if head.kind == .file { counters.filesSent += 1 } else { counters.userInfoSent += 1 }
            finished.append(head)
            actions.append(event(.wcFinished, now, ["kind": .string(head.kind.rawValue), "id": .string(head.id),
                                                   "outstanding": .int(Int64(outgoing.count))]))
        }
        if let seq = contextSeq, !sync.isPending(.watchconnectivity, seq) { contextSeq = nil }
        return (finished, actions + pump(sync: &sync, now: now))
    }

    /// Stalls that ended and messages that timed out; returns the failed messages' app handles.
    mutating func advance(sync: inout SyncEngine, now: EmulatedInstant) -> (failed: [(appID: Int?, code: WCErrorCode)], actions: [NodeAction]) {
        var actions = pump(sync: &sync, now: now)
        var failed: [(appID: Int?, code: WCErrorCode)] = []
        // A message without a reply handler that the counterpart device has (acknowledged) and no
        // error reply came for by its deadline went through: nothing to tell.
        pending.removeAll { $0.deadline <= now && !$0.wantsReply && !sync.isPending(.watchconnectivity, $0.seq) }
        for message in pending where message.deadline <= now {
            counters.failed += 1
            failed.append((message.appID, .messageReplyTimedOut))
            actions.append(event(.wcFailed, now, level: .warning, [
                "id": .string(message.id), "code": .string(WCErrorCode.messageReplyTimedOut.rawValue),
                "reason": .string("no \(message.wantsReply ? "reply" : "acknowledgement") within \(config.messageTimeout)"),
            ]))
        }
        pending.removeAll { $0.deadline <= now }
        for item in inbox where item.kind == .message && item.sentAt + config.messageTimeout <= now {
            counters.expired += 1
            actions.append(event(.wcExpired, now, ["id": .string(item.id), "age": .string((now - item.sentAt).description)]))
        }
        inbox.removeAll { $0.kind == .message && $0.sentAt + config.messageTimeout <= now }
        return (failed, actions)
    }

    // MARK: Receiving

    /// A `wc.…` data message decoded and taken by the sync engine.
    enum Incoming {
        case reply(id: String, payload: JSONObject?, error: WCErrorCode?)
        case item(WCReceived)
    }

    /// Decodes a `wc.…` data message and records it as received (acknowledged); a malformed body
    /// is refused (`wire.rejected`) and skipped so the messages after it still go through.
    static func take(_ envelope: Envelope, bytes: Int, sync: inout SyncEngine, now: EmulatedInstant) -> (Incoming?, [NodeAction]) {
        do {
            // Everything below `settled` was acknowledged to the sender (by this node, or by the
            // state it lost): in-order delivery never waits on a gap that cannot fill.
            if let settled = try WCBody.settled(envelope) { sync.settle(.watchconnectivity, stream: envelope.stream, below: settled) }
            if envelope.kind == .reply {
                let reply = try WCBody.reply(envelope.body)
                return (.reply(id: reply.id, payload: reply.payload, error: reply.error),
                        sync.accept(envelope, bytes: bytes, summary: ["id": .string(reply.id)], now: now))
            }
            let item = try WCBody.received(envelope)
            return (.item(item), sync.accept(envelope, bytes: bytes, summary: item.id.isEmpty ? [:] : ["id": .string(item.id)], now: now))
        } catch {
            return (nil, [sync.rejectBody(envelope, error, bytes: bytes, now: now)] + sync.skip(envelope, now: now))
        }
    }

    /// A reply to one of this side's messages: its handle and the reply, or nil when it came too late.
    mutating func receiveReply(id: String, payload: JSONObject?, error: WCErrorCode?,
                               now: EmulatedInstant) -> (appID: Int?, actions: [NodeAction])? {
        guard let index = pending.firstIndex(where: { $0.id == id }) else {
            return nil
        }
        let message = pending.remove(at: index)
        if let error {
            counters.failed += 1
            return (message.appID, [event(.wcFailed, now, level: .warning, ["id": .string(id), "code": .string(error.rawValue),
                                                                        "reason": "the counterpart could not take it"])])
        }
        counters.replies += 1
        return (message.appID, [event(.wcReplied, now, ["id": .string(id), "keys": .int(Int64(payload?.count ?? 0))])])
    }

    /// Something that arrived for this side's app: kept until the app takes it.
    mutating func receive(_ item: WCReceived, now: EmulatedInstant) -> [NodeAction] {
        switch item.kind {
        case .message:
            counters.messagesReceived += 1
            if now - item.sentAt >= config.messageTimeout {
                counters.expired += 1
                return [event(.wcExpired, now, ["id": .string(item.id), "age": .string((now - item.sentAt).description)])]
            }
        case .userinfo: counters.userInfoReceived += 1
        case .file: counters.filesReceived += 1
        case .context:
            // Latest only: an older context (overtaken on the way) is dropped, a newer one replaces
            // the one still waiting.
            if let last = receivedContextAt, last.stream == item.stream, last.seq > item.seq { return [] }
            counters.contextsReceived += 1
            receivedContext = item.payload
            receivedContextAt = (item.stream, item.seq)
            inbox.removeAll { $0.kind == .context }
        default: break
        }
        inbox.append(item)
        var fields: JSONObject = ["kind": .string(item.kind.rawValue)]
        if !item.id.isEmpty { fields.append("id", .string(item.id)) }
        fields.append("waiting", .int(Int64(inbox.count)))
        return [event(.wcReceived, now, fields)]
    }

    /// What the app can take now, in the sender's order: a later message never overtakes an
    /// earlier one still on its way (`sync`'s window says what arrived contiguously).
    mutating func takeDeliverable(sync: SyncEngine, now: EmulatedInstant) -> (items: [WCReceived], actions: [NodeAction]) {
        // Every turn of both devices asks; with nothing waiting, forming `isReady` (a closure that
        // holds a copy of `sync`) was 5 % of a simulated week (perf, `pairsim-bench simulate`).
        guard !inbox.isEmpty else { return ([], []) }
        let isReady = { (item: WCReceived) in sync.contiguous(.watchconnectivity, stream: item.stream).map { item.seq <= $0 } ?? true }
        let ready = inbox.filter(isReady).sorted { ($0.stream, $0.seq) < ($1.stream, $1.seq) }
        guard !ready.isEmpty else { return ([], []) }
        inbox.removeAll(where: isReady)
        counters.delivered += ready.count
        let actions = ready.map { item in
            var fields: JSONObject = ["kind": .string(item.kind.rawValue)]
            if !item.id.isEmpty { fields.append("id", .string(item.id)) }
            if let file = item.file { fields.append("name", .string(file.name)) }
            fields.append("keys", .int(Int64(item.payload.count)))
            return event(.wcDelivered, now, fields)
        }
        return (ready, actions)
    }

    /// The app's process ended: its handles mean nothing any more; its messages' replies are lost,
    /// and a new process must activate its session again.
    mutating func processEnded() {
        for index in outgoing.indices { outgoing[index].appID = nil }
        pending = []
        cancelledHandles = []
        activated = false
    }

    /// The app handles of transfers cancelled since the last take (by the app or by `wc-cancel`).
    mutating func takeCancelled() -> [Int] {
        defer { cancelledHandles = [] }
        return cancelledHandles
    }

    /// Gives an outstanding transfer the app's handle for it.
    mutating func setAppID(_ appID: Int, for id: String) {
        if let index = outgoing.firstIndex(where: { $0.id == id }) { outgoing[index].appID = appID }
    }


    /// Replies on the channel (a reply, or why the message could not be delivered).
    mutating func sendReply(to id: String, payload: JSONObject?, error: WCErrorCode?, isData: Bool = false, sync: inout SyncEngine,
                            now: EmulatedInstant) -> [NodeAction] {
        Self.send(.reply, WCBody.reply(id: id, payload: payload, error: error, isData: isData), id: id, sync: &sync, now: now)
    }

    /// Every `wc.…` data message leaves here, with what of the stream is settled (docs/PROTOCOL.md).
    static func send(_ kind: MessageKind, _ body: JSONObject, id: String?, sync: inout SyncEngine, now: EmulatedInstant,
                     extraLatency: EmulatedDuration = .zero) -> [NodeAction] {
        var body = body
        body.append("settled", .int(Int64(sync.lowestPending(.watchconnectivity))))
        return sync.send(.watchconnectivity, kind: kind, body: body, summary: id.map { ["id": .string($0)] } ?? [:], now: now,
                         extraLatency: extraLatency)
    }
}
