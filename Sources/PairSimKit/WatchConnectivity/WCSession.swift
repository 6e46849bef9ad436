import Foundation
internal import PairSimCore

/// `WCSessionActivationState`.
public enum WCSessionActivationState: Int, Sendable {
    case notActivated = 0, inactive = 1, activated = 2
}

/// `WCSessionDelegate`: every method optional here (Apple requires the activation and, on iOS,
/// the deactivation ones).
/// Differs: every method is optional (Apple requires the activation one and, on iOS, the two deactivation ones) and the protocol does not require NSObjectProtocol.
public protocol WCSessionDelegate: AnyObject {
    func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: Error?)
    /// iOS: the session is about to stop talking to the current watch (watch switching: not
    /// modelled, so PairSim never calls it; required on iOS, optional here for watch apps).
    /// Not modelled: PairSim pairs one watch and never switches, so it never calls this.
    func sessionDidBecomeInactive(_ session: WCSession)
    /// iOS: the session stopped talking to the previous watch; activate again (not called, as above).
    /// Not modelled: as `sessionDidBecomeInactive(_:)`.
    func sessionDidDeactivate(_ session: WCSession)
    /// iOS: `isPaired`, `isWatchAppInstalled` or `isComplicationEnabled` changed (they do not here).
    /// Not modelled: the watch stays paired with the app installed; never called.
    func sessionWatchStateDidChange(_ session: WCSession)
    func sessionReachabilityDidChange(_ session: WCSession)
    func session(_ session: WCSession, didReceiveMessage message: [String: Any])
    func session(_ session: WCSession, didReceiveMessage message: [String: Any], replyHandler: @escaping ([String: Any]) -> Void)
    func session(_ session: WCSession, didReceiveMessageData messageData: Data)
    func session(_ session: WCSession, didReceiveMessageData messageData: Data, replyHandler: @escaping (Data) -> Void)
    func session(_ session: WCSession, didReceiveUserInfo userInfo: [String: Any])
    func session(_ session: WCSession, didFinish userInfoTransfer: WCSessionUserInfoTransfer, error: Error?)
    func session(_ session: WCSession, didReceiveApplicationContext applicationContext: [String: Any])
    func session(_ session: WCSession, didReceive file: WCSessionFile)
    func session(_ session: WCSession, didFinish fileTransfer: WCSessionFileTransfer, error: Error?)
}

extension WCSessionDelegate {
    public func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: Error?) {}
    public func sessionDidBecomeInactive(_ session: WCSession) {}
    public func sessionDidDeactivate(_ session: WCSession) {}
    public func sessionWatchStateDidChange(_ session: WCSession) {}
    public func sessionReachabilityDidChange(_ session: WCSession) {}
    public func session(_ session: WCSession, didReceiveMessage message: [String: Any]) {}
    public func session(_ session: WCSession, didReceiveMessage message: [String: Any], replyHandler: @escaping ([String: Any]) -> Void) {
        self.session(session, didReceiveMessage: message)
    }
    public func session(_ session: WCSession, didReceiveMessageData messageData: Data) {}
    public func session(_ session: WCSession, didReceiveMessageData messageData: Data, replyHandler: @escaping (Data) -> Void) {
        self.session(session, didReceiveMessageData: messageData)
    }
    public func session(_ session: WCSession, didReceiveUserInfo userInfo: [String: Any]) {}
    public func session(_ session: WCSession, didFinish userInfoTransfer: WCSessionUserInfoTransfer, error: Error?) {}
    public func session(_ session: WCSession, didReceiveApplicationContext applicationContext: [String: Any]) {}
    public func session(_ session: WCSession, didReceive file: WCSessionFile) {}
    public func session(_ session: WCSession, didFinish fileTransfer: WCSessionFileTransfer, error: Error?) {}
}

/// The app's `WCSession` (R: X1): one per process, `WCSession.default`. Its state mirrors what
/// the platform told the app; calls go to the platform, answers come back in later calls.
public final class WCSession: @unchecked Sendable {
    // @unchecked: used on the driver's thread only (PairSim reports other threads).

    /// The process's session.
    public static var `default`: WCSession { AppRuntime.require("WCSession.default").session }
    /// Sessions exist on every iPhone PairSim emulates (it is paired).
    public static func isSupported() -> Bool { true }

    public weak var delegate: WCSessionDelegate?
    public internal(set) var activationState = WCSessionActivationState.notActivated
    public internal(set) var isReachable = false
    public var isPaired: Bool { true }
    public var isWatchAppInstalled: Bool { true }
    /// On the watch: the iPhone app is installed (PairSim's phone always runs one).
    public var isCompanionAppInstalled: Bool { true }
    /// On the watch: the iPhone waits for its first unlock after a reboot before it can be reached.
    /// Not modelled: always false (the watch sees it as `isReachable` false).
    public var iOSDeviceNeedsUnlockAfterRebootForReachability: Bool { false }
    /// iOS: one of the watch app's complications is on the active watch face
    /// (`watch.complication.onActiveFace` in the topology).
    public internal(set) var isComplicationEnabled = false
    /// iOS: `transferCurrentComplicationUserInfo` calls left today at high priority (Apple: 50 a
    /// day with a complication on the active face, 0 without); past them the data goes as user info.
    public var remainingComplicationUserInfoTransfers: Int {
        guard let runtime = AppRuntime.current else { return 0 }
        return runtime.clock.localDay(at: runtime.now) == complicationDay ? complicationRemaining : complicationPerDay
    }
    var complicationRemaining = 0, complicationPerDay = 0
    var complicationDay: Int64 = 0
    /// A directory for data about the paired watch, kept while the watch app is installed: one
    /// per app under the system's temporary directory (created on first use).
    public var watchDirectoryURL: URL? {
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("pairsim-watch-directory-\(runtime.registration.name)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
    /// True while more received content is waiting to be handed to the delegate in this delivery
    /// (the rest of what arrived while the app was not running).
    public internal(set) var hasContentPending = false
    public internal(set) var applicationContext: [String: Any] = [:]
    public internal(set) var receivedApplicationContext: [String: Any] = [:]
    var userInfoTransfers: [WCSessionUserInfoTransfer] = []
    var fileTransfers: [WCSessionFileTransfer] = []
    var replyHandlers: [Int: (reply: (([String: Any]) -> Void)?, error: ((Error) -> Void)?)] = [:]
    var dataReplyHandlers: [Int: (reply: ((Data) -> Void)?, error: ((Error) -> Void)?)] = [:]

    init() {}

    var runtime: AppRuntime { AppRuntime.require("WCSession") }

    public var outstandingUserInfoTransfers: [WCSessionUserInfoTransfer] { userInfoTransfers }
    public var outstandingFileTransfers: [WCSessionFileTransfer] { fileTransfers }

    /// Activates the session; the delegate hears `activationDidCompleteWith` next.
    public func activate() {
        guard activationState != .activated else { return }
        runtime.send(.wcActivate)
    }

    /// Sends a live message: the watch app must be reachable; the reply or error comes later.
    public func sendMessage(_ message: [String: Any], replyHandler: (([String: Any]) -> Void)?, errorHandler: ((Error) -> Void)? = nil) {
        let runtime = self.runtime
        guard let payload = WCPayload.json(message) else {
            runtime.report("unsupported", "WCSession.sendMessage: the message has a value that is not a property-list type")
            return
        }
        let id = runtime.id()
        replyHandlers[id] = (replyHandler, errorHandler)
        runtime.send(.wcSendMessage(id: id, payload: payload, wantsReply: replyHandler != nil))
    }

    /// Sends bytes as a live message (`sendMessageData`): as `sendMessage`, the watch app must be
    /// reachable; its reply is bytes too.
    public func sendMessageData(_ data: Data, replyHandler: ((Data) -> Void)?, errorHandler: ((Error) -> Void)? = nil) {
        let runtime = self.runtime
        let id = runtime.id()
        dataReplyHandlers[id] = (replyHandler, errorHandler)
        runtime.send(.wcSendMessage(id: id, payload: ["data": .string(data.base64EncodedString())], wantsReply: replyHandler != nil, isData: true))
    }

    /// Queues user info for the watch app (FIFO, kept across termination).
    @discardableResult
    public func transferUserInfo(_ userInfo: [String: Any] = [:]) -> WCSessionUserInfoTransfer {
        queueUserInfo(userInfo, api: "transferUserInfo") { transfer, payload in .wcTransfer(id: transfer.id, payload: payload, file: nil) }
    }

    /// iOS: sends the current complication's data to the watch app, ahead of queued user info,
    /// while `remainingComplicationUserInfoTransfers` lasts; then (or with no complication on the
    /// face) as ordinary user info. The watch app's delegate hears `session(_:didReceiveUserInfo:)`.
    @discardableResult
    public func transferCurrentComplicationUserInfo(_ userInfo: [String: Any] = [:]) -> WCSessionUserInfoTransfer {
        queueUserInfo(userInfo, api: "transferCurrentComplicationUserInfo") { transfer, payload in
            let remaining = remainingComplicationUserInfoTransfers
            if isComplicationEnabled, remaining > 0 {
                // The platform counts it too and confirms with the next budget it sends.
                transfer.isCurrentComplicationInfo = true
                complicationRemaining = remaining - 1
                complicationDay = runtime.clock.localDay(at: runtime.now)
            }
            return .wcTransferComplication(id: transfer.id, payload: payload)
        }
    }

    /// A user-info transfer: refused (reported) unless every value is a property-list type.
    private func queueUserInfo(_ userInfo: [String: Any], api: String,
                               request: (WCSessionUserInfoTransfer, JSONObject) -> AppRequest) -> WCSessionUserInfoTransfer {
        let transfer = WCSessionUserInfoTransfer(id: runtime.id(), userInfo: userInfo)
        guard let payload = WCPayload.json(userInfo) else {
            runtime.report("unsupported", "WCSession.\(api): the user info has a value that is not a property-list type")
            return transfer
        }
        userInfoTransfers.append(transfer)
        runtime.send(request(transfer, payload))
        return transfer
    }

    /// Replaces the application context; only the latest reaches the watch app.
    public func updateApplicationContext(_ applicationContext: [String: Any]) throws {
        guard activationState == .activated else { throw WCError(.sessionNotActivated) }
        guard let payload = WCPayload.json(applicationContext) else { throw WCError(.payloadUnsupportedTypes) }
        self.applicationContext = applicationContext
        runtime.send(.wcUpdateContext(payload))
    }

    /// Sends a file (its name, size and metadata) to the watch app.
    @discardableResult
    public func transferFile(_ file: URL, metadata: [String: Any]?) -> WCSessionFileTransfer {
        let runtime = self.runtime
        let size: Int
        do {
            size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? 0
        } catch {
            // The file's bytes never travel, but its size does: one that cannot be read goes as empty, said once.
            runtime.report("unsupported", "WCSession.transferFile: cannot read \(file.path) (\(error.localizedDescription)); sent as 0 bytes")
            size = 0
        }
        let transfer = WCSessionFileTransfer(id: runtime.id(), file: WCSessionFile(fileURL: file, size: size, metadata: nil))
        fileTransfers.append(transfer)
        runtime.send(.wcTransfer(id: transfer.id, payload: WCPayload.json(metadata ?? [:]) ?? [:],
                                 file: WCFile(name: file.lastPathComponent, size: size)))
        return transfer
    }

    /// What the platform said, delivered to the delegate (called by the runtime).
    func handle(_ call: AppCall, runtime: AppRuntime) {
        switch call {
        case .wcActivated(let reachable, let context, let outstanding):
            activationState = .activated
            isReachable = reachable
            if let context { receivedApplicationContext = WCPayload.dictionary(context) }
            // Transfers an earlier process queued are outstanding in this one too.
            for transfer in outstanding where !userInfoTransfers.contains(where: { $0.id == transfer.id })
                && !fileTransfers.contains(where: { $0.id == transfer.id }) {
                if let file = transfer.file {
                    let url = URL(fileURLWithPath: "/pairsim/outbox/" + file.name)
                    fileTransfers.append(WCSessionFileTransfer(id: transfer.id, file: WCSessionFile(fileURL: url, size: file.size,
                                                                                                  metadata: WCPayload.metadata(transfer.payload))))
                } else {
                    userInfoTransfers.append(WCSessionUserInfoTransfer(id: transfer.id, userInfo: WCPayload.dictionary(transfer.payload)))
                }
            }
            delegate?.session(self, activationDidCompleteWith: .activated, error: nil)
        case .wcReachability(let reachable):
            isReachable = reachable
            delegate?.sessionReachabilityDidChange(self)
        case .wcComplication(let enabled, let remaining, let day, let perDay):
            isComplicationEnabled = enabled
            complicationRemaining = remaining
            complicationDay = day
            complicationPerDay = perDay
        case .wcReceived(let kind, let payload, let file, let replyToken, let isData):
            let dictionary = WCPayload.dictionary(payload)
            switch kind {
            case .message where isData:
                let data = WCPayload.data(payload)
                if let replyToken {
                    delegate?.session(self, didReceiveMessageData: data) { [weak runtime] reply in
                        runtime?.send(.wcReplyToMessage(token: replyToken, payload: ["data": .string(reply.base64EncodedString())]))
                    }
                } else {
                    delegate?.session(self, didReceiveMessageData: data)
                }
            case .message:
                if let replyToken {
                    delegate?.session(self, didReceiveMessage: dictionary) { [weak runtime] reply in
                        guard let json = WCPayload.json(reply) else {
                            runtime?.report("unsupported", "WCSession reply handler: the reply has a value that is not a property-list type")
                            return
                        }
                        runtime?.send(.wcReplyToMessage(token: replyToken, payload: json))
                    }
                } else {
                    delegate?.session(self, didReceiveMessage: dictionary)
                }
            case .context:
                receivedApplicationContext = dictionary
                delegate?.session(self, didReceiveApplicationContext: dictionary)
            case .file:
                let url = URL(fileURLWithPath: "/pairsim/inbox/" + (file?.name ?? "file"))
                delegate?.session(self, didReceive: WCSessionFile(fileURL: url, size: file?.size ?? 0, metadata: WCPayload.metadata(payload)))
            default:
                delegate?.session(self, didReceiveUserInfo: dictionary)
            }
        case .wcReply(let id, let payload):
            if let handlers = dataReplyHandlers.removeValue(forKey: id) {
                handlers.reply?(WCPayload.data(payload))
            } else {
                replyHandlers.removeValue(forKey: id)?.reply?(WCPayload.dictionary(payload))
            }
        case .wcFailed(let id, let code):
            if let handlers = dataReplyHandlers.removeValue(forKey: id) {
                handlers.error?(WCError.platform(code))
            } else {
                replyHandlers.removeValue(forKey: id)?.error?(WCError.platform(code))
            }
        case .wcTransferFinished(let id, let error):
            if let index = userInfoTransfers.firstIndex(where: { $0.id == id }) {
                let transfer = userInfoTransfers.remove(at: index)
                transfer.isTransferring = false
                delegate?.session(self, didFinish: transfer, error: error.map(WCError.platform))
            } else if let index = fileTransfers.firstIndex(where: { $0.id == id }) {
                let transfer = fileTransfers.remove(at: index)
                transfer.isTransferring = false
                transfer.progress.completedUnitCount = error == nil ? transfer.progress.totalUnitCount : 0
                delegate?.session(self, didFinish: transfer, error: error.map(WCError.platform))
            }
        default:
            break
        }
    }
}
