import Foundation
@testable import PairSimCore
@testable import PairSimKit
import ReferenceWatchApp

/// A phone app that activates WatchConnectivity at launch and logs what its session tells it.
final class SessionApp: PairSimApp, WCSessionDelegate {
    let log: ScriptedApp.Log
    let reply: Bool
    init(log: ScriptedApp.Log, reply: Bool = true) {
        self.log = log
        self.reply = reply
    }

    func didFinishLaunching(_ options: LaunchOptions) {
        log.lines.append("launch background=\(options.inBackground)")
        WCSession.default.delegate = self
        WCSession.default.activate()
    }

    /// An error as app code reads it: a `WCError`'s code with its number, or Foundation's domain and code.
    static func name(_ error: Error) -> String {
        if let error = error as? WCError { return "WCError.\(error.code) \(error.code.rawValue)" }
        let error = error as NSError
        return "\(error.domain) \(error.code)"
    }

    func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: Error?) {
        log.lines.append("activated reachable=\(session.isReachable)")
    }
    func sessionReachabilityDidChange(_ session: WCSession) { log.lines.append("reachable=\(session.isReachable)") }
    func session(_ session: WCSession, didReceiveMessage message: [String: Any], replyHandler: @escaping ([String: Any]) -> Void) {
        log.lines.append("message \(message["n"] ?? "?")")
        if reply { replyHandler(["echo": message["n"] ?? 0]) }
    }
    func session(_ session: WCSession, didReceiveMessage message: [String: Any]) { log.lines.append("message \(message["n"] ?? "?")") }
    func session(_ session: WCSession, didReceiveUserInfo userInfo: [String: Any]) { log.lines.append("userInfo \(userInfo["n"] ?? "?")") }
    func session(_ session: WCSession, didReceiveMessageData messageData: Data, replyHandler: @escaping (Data) -> Void) {
        log.lines.append("data \(String(decoding: messageData, as: UTF8.self)) pending=\(session.hasContentPending)")
        if reply { replyHandler(Data(messageData.reversed())) }
    }
    func session(_ session: WCSession, didReceiveMessageData messageData: Data) {
        log.lines.append("data \(String(decoding: messageData, as: UTF8.self)) no reply, pending=\(session.hasContentPending)")
    }
    func session(_ session: WCSession, didReceiveApplicationContext applicationContext: [String: Any]) {
        log.lines.append("context \(applicationContext["n"] ?? "?")")
    }
    func session(_ session: WCSession, didReceive file: WCSessionFile) { log.lines.append("file \(file.fileURL.lastPathComponent) \(file.size)") }
    func session(_ session: WCSession, didFinish userInfoTransfer: WCSessionUserInfoTransfer, error: Error?) {
        log.lines.append("finished \(userInfoTransfer.userInfo["n"] ?? "?") error=\(error.map(Self.name) ?? "none")")
    }

    func perform(_ action: UserAction) async throws -> String {
        let session = WCSession.default
        switch action.verb {
        case "send":
            session.sendMessage(["n": Int(action.arguments[0])!], replyHandler: { [log] reply in log.lines.append("reply \(reply["echo"] ?? reply["ok"] ?? "?")") },
                                errorHandler: { [log] error in log.lines.append("error \(Self.name(error))") })
            return "sent"
        case "send-data":
            session.sendMessageData(Data(action.arguments[0].utf8), replyHandler: { [log] reply in log.lines.append("data reply \(String(decoding: reply, as: UTF8.self))") },
                                    errorHandler: { [log] error in log.lines.append("error \(Self.name(error))") })
            return "sent"
        case "transfer":
            session.transferUserInfo(["n": Int(action.arguments[0])!])
            return "outstanding \(session.outstandingUserInfoTransfers.count)"
        case "cancel":
            // The outstanding transfer carrying n.
            let n = Int(action.arguments[0])!
            guard let transfer = session.outstandingUserInfoTransfers.first(where: { $0.userInfo["n"] as? Int == n }) else { throw AppError("no \(n)") }
            transfer.cancel()
            return "cancelling"
        case "send-big":
            session.sendMessage(["blob": String(repeating: "x", count: 70_000)], replyHandler: { _ in },
                                errorHandler: { [log] error in log.lines.append("error \(Self.name(error))") })
            return "sent"
        default:
            throw AppError("unknown \(action.verb)")
        }
    }
}

/// A watch (with the reference watch app) and a phone (with `SessionApp`) joined in memory: each one's frames reach the other at
/// once, in order, unless the receiver is down.
struct WCPair {
    var watch: WatchNode
    var phone: PhoneNode
    var watchImage = DurableImage()
    var now = EmulatedInstant.zero
    var events: [Event] = []
    let log = ScriptedApp.Log()
    /// While set, frames are kept here instead of delivered (`release` delivers them).
    var holding = false
    var held: [(to: NodeName, frames: [[UInt8]])] = []
    let topology: Topology

    init(configure: (inout Topology) -> Void = { _ in }) {
        var topology = Phone.topology
        configure(&topology)
        self.topology = topology
        watch = WatchNode(topology: topology, boot: "w1", app: ReferenceWatchApp.registration())
        let log = self.log
        phone = PhoneNode(topology: topology, boot: "p1",
                          app: AppRegistration(name: "session", summary: "test",
                                               actions: ["send", "send-data", "transfer", "cancel", "send-big"].map { UserActionSpec($0, "", "") },
                                               make: { SessionApp(log: log) }))
        take(watch.start(now: now), from: .watch)
        take(phone.start(now: now), from: .phone)
        take(watch.peerConnected(now: now), from: .watch)
        take(phone.peerConnected(now: now), from: .phone)
    }

    /// Keeps events, commits the watch's durable state, and delivers frames to the other side.
    mutating func take(_ actions: [NodeAction], from node: NodeName) {
        events += actions.events
        if node == .watch { watchImage.commit(actions.persistOps, values: watch.persistentValues()) }
        for case .publish(let frame) in actions {
            let frames = [Array(frame.topic.utf8), frame.payload]
            if holding {
                held.append((node.peer, frames))
                continue
            }
            if node == .watch { take(phone.receive(frames: frames, now: now), from: .phone) } else { take(watch.receive(frames: frames, now: now), from: .watch) }
        }
    }

    @discardableResult
    mutating func watch(_ text: String) -> CommandResult {
        let result = watch.handle(commandText: text, now: now)
        take(result.actions, from: .watch)
        return result
    }

    @discardableResult
    mutating func phone(_ text: String) -> CommandResult {
        let result = phone.handle(commandText: text, now: now)
        take(result.actions, from: .phone)
        return result
    }

    mutating func advance(_ duration: EmulatedDuration) {
        let target = now + duration
        while let next = [watch.nextDeadline, phone.nextDeadline].compactMap({ $0 }).min(), next <= target {
            now = max(now, next)
            take(watch.advance(to: now), from: .watch)
            take(phone.advance(to: now), from: .phone)
        }
        now = target
        take(watch.advance(to: now), from: .watch)
        take(phone.advance(to: now), from: .phone)
    }

    /// Delivers the held frames (the data ones in `order` of their index, links first).
    mutating func release(reversed: Bool = false) {
        holding = false
        let frames = reversed ? held.reversed() : held
        held = []
        for (to, frame) in frames {
            if to == .phone { take(phone.receive(frames: frame, now: now), from: .phone) } else { take(watch.receive(frames: frame, now: now), from: .watch) }
        }
    }

    /// The watch process dies and starts again from what it committed.
    mutating func restartWatch() throws {
        watch = WatchNode(topology: topology, boot: "w2", app: ReferenceWatchApp.registration())
        try watch.restore(watchImage.load(), now: now)
        take(watch.start(now: now), from: .watch)
        take(watch.peerConnected(now: now), from: .watch)
        take(phone.peerConnected(now: now), from: .phone)
    }

    var reachable: (watch: Bool, phone: Bool) { (watch.platform.wc.reachable, phone.platform.wc.reachable) }
    func named(_ name: String) -> [Event] { events.filter { $0.name == name } }
}

extension Array where Element == NodeAction {
    var persistOps: [PersistOp] { compactMap { if case .persist(let op) = $0 { op } else { nil } } }
}
