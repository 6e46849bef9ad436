import Foundation

/// What a device that hosts an app gives WatchConnectivity (R: X1), so that the app's `WCSession`
/// requests and deliveries are handled once for the iPhone and the watch.
protocol WCAppHost {
    var topology: Topology { get }
    var uuids: UUIDGenerator { get set }
    var wc: WCSessionCore { get set }
    var sync: SyncEngine { get set }
    /// Reply handlers handed to the app for received messages: token → message id.
    var wcReplyTokens: [Int: (id: String, isData: Bool)] { get set }
    /// The app runs with its session activated and may be handed deliveries now.
    var appHearsWatchConnectivity: Bool { get }
    /// This side can be reached at all now (the app's session aside).
    func ownReachable(now: EmulatedInstant) -> Bool
    /// Queues a call for the app.
    mutating func call(_ call: AppCall)
    /// A fresh token the platform hands the app.
    mutating func token() -> Int
    func event(_ name: EventName, _ now: EmulatedInstant, level: Event.Level, _ fields: JSONObject) -> NodeAction
    /// Runs `body` on the session and the sync engine together (stored properties, so both may be
    /// changed at once: through the protocol's accessors they could not).
    mutating func withSession<T>(_ body: (inout WCSessionCore, inout SyncEngine) -> T) -> T
}

extension WCAppHost {
    /// Hands the app what arrived for it, in the watch's order, while it runs with its session activated.
    mutating func deliverToApp(now: EmulatedInstant) -> [NodeAction] {
        // Nothing waiting (nearly every turn): not even a copy of `sync` to hand over.
        guard appHearsWatchConnectivity, !wc.inbox.isEmpty else { return [] }
        let (items, actions) = wc.takeDeliverable(sync: sync, now: now)
        for item in items {
            var replyToken: Int?
            if item.kind == .message, item.wantsReply {
                replyToken = token()
                wcReplyTokens[replyToken!] = (item.id, item.isData)
            }
            call(.wcReceived(kind: item.kind, payload: item.payload, file: item.file, replyToken: replyToken, isData: item.isData))
        }
        return actions
    }

    /// One of the app's WatchConnectivity requests.
    mutating func handleWatchConnectivity(_ request: AppRequest, now: EmulatedInstant) -> [NodeAction] {
        switch request {
        case .wcActivate:
            guard !wc.activated else { return [] }
            wc.activated = true
            wc.nudgeStall(now: now)
            let reachable = ownReachable(now: now) && wc.peerLink
            // Transfers an earlier process queued are still outstanding: this process gets handles for them.
            var outstanding: [WCOutstanding] = []
            for transfer in wc.outgoing {
                // Negative: the app's own handles (PairSimKit's ids) are positive, so the two never meet.
                let handle = transfer.appID ?? -token()
                wc.setAppID(handle, for: transfer.id)
                outstanding.append(WCOutstanding(id: handle, payload: transfer.payload, file: transfer.file))
            }
            call(.wcActivated(reachable: reachable, receivedContext: wc.receivedContext, outstanding: outstanding))
            // The app heard `isReachable` with its activation: no separate change callback.
            return [event(.wcActivated, now, level: .info, ["reachable": .bool(reachable)])] + wc.noteReachable(reachable, now: now)
        case .wcSendMessage(let id, let payload, let wantsReply, let isData):
            if let problem = WCSessionCore.payloadProblem(payload, wire: topology.wire) {
                call(.wcFailed(id: id, code: WCErrorCode.payloadTooLarge.rawValue))
                return [refusedPayload("message", problem, now: now)]
            }
            let messageID = uuids.next(at: now).text
            let (error, actions) = withSession { $0.sendMessage(payload, wantsReply: wantsReply, appID: id, id: messageID, isData: isData, sync: &$1, now: now) }
            if let error { call(.wcFailed(id: id, code: error.rawValue)) }
            return actions
        case .wcReplyToMessage(let token, let payload):
            guard let (messageID, isData) = wcReplyTokens.removeValue(forKey: token) else { return [] }
            if let problem = WCSessionCore.payloadProblem(payload, wire: topology.wire) {
                return [refusedPayload("reply", problem, now: now)]
                    + withSession { $0.sendReply(to: messageID, payload: nil, error: .payloadTooLarge, sync: &$1, now: now) }
            }
            return withSession { $0.sendReply(to: messageID, payload: payload, error: nil, isData: isData, sync: &$1, now: now) }
        case .wcTransfer(let id, let payload, let file):
            if let refused = refuseTransfer(appID: id, payload, file: file, now: now) { return refused }
            let transfer = WCTransfer(id: uuids.next(at: now).text, kind: file == nil ? .userinfo : .file, payload: payload, file: file,
                                      createdAt: now, appID: id)
            return withSession { $0.transfer(transfer, sync: &$1, now: now) }
        case .wcCancelTransfer(let id):
            // One already on its way cannot be cancelled: it finishes as usual.
            guard let transfer = wc.outgoing.first(where: { $0.appID == id }) else { return [] }
            return withSession { $0.cancel(transfer.id, sync: &$1, now: now).actions }
        case .wcUpdateContext(let payload):
            guard wc.activated else { return [event(.wcRefused, now, level: .warning, ["kind": "context", "code": "sessionNotActivated"])] }
            if let problem = WCSessionCore.payloadProblem(payload, wire: topology.wire) { return [refusedPayload("context", problem, now: now)] }
            return withSession { $0.updateContext(payload, sync: &$1, now: now) }
        default:
            preconditionFailure("Invalid state: \(request) is not a WatchConnectivity request")
        }
    }

    /// The app handed WatchConnectivity a payload that cannot travel.
    /// Why a `transferUserInfo` / `transferFile` (of the app's `appID`, or of a `wc-…` command
    /// when nil) cannot be queued — the session not activated, the payload too large — as the
    /// actions that say so (the app's delegate hears `didFinish` with the error), or nil.
    mutating func refuseTransfer(appID: Int?, _ payload: JSONObject, file: WCFile?, now: EmulatedInstant) -> [NodeAction]? {
        let kind = file == nil ? "userinfo" : "file"
        guard wc.activated else {
            if let appID { call(.wcTransferFinished(id: appID, error: WCErrorCode.sessionNotActivated.rawValue)) }
            return [event(.wcRefused, now, level: .warning, ["kind": .string(kind), "code": "sessionNotActivated"])]
        }
        if let problem = WCSessionCore.payloadProblem(payload, wire: topology.wire) {
            if let appID { call(.wcTransferFinished(id: appID, error: WCErrorCode.payloadTooLarge.rawValue)) }
            return [refusedPayload(kind, problem, now: now)]
        }
        return nil
    }

    func refusedPayload(_ kind: String, _ problem: String, now: EmulatedInstant) -> NodeAction {
        event(.wcRefused, now, level: .warning, ["kind": .string(kind), "code": .string(WCErrorCode.payloadTooLarge.rawValue), "reason": .string(problem)])
    }

}
