// WatchConnectivityManager.swift
// Language mode: Swift 6. Platform: watchOS 10 (the watch side). A main-actor
// WCSession wrapper: activates at launch, tells the iPhone app about a finished
// workout with sendMessage while it is reachable and falls back to
// transferUserInfo, and keeps the latest application context it received.

import Foundation
import PairSimKit

@MainActor
final class WatchConnectivityManager: NSObject {
    static let shared = WatchConnectivityManager()

    private(set) var receivedContext: [String: String] = [:]
    private(set) var lastReply: String?

    func activate() {
        guard WCSession.isSupported() else { return }
        WCSession.default.delegate = self
        WCSession.default.activate()
    }

    func sendWorkoutFinished(id: UUID, duration: TimeInterval) {
        let session = WCSession.default
        guard session.activationState == .activated else { return }
        guard session.isCompanionAppInstalled else {
            print("The iPhone app is not installed.")
            return
        }
        let message: [String: Any] = ["request": "ping", "workout": id.uuidString, "minutes": Int(duration / 60)]
        if session.isReachable {
            session.sendMessage(message, replyHandler: { reply in
                let text = reply["response"] as? String ?? "?"
                Task { @MainActor in
                    WatchConnectivityManager.shared.lastReply = text
                    print("Phone replied: \(text)")
                }
            }, errorHandler: { error in
                print("sendMessage failed: \(error.localizedDescription)")
                WCSession.default.transferUserInfo(["workout": id.uuidString])
            })
        } else {
            session.transferUserInfo(["workout": id.uuidString])
            print("Phone unreachable; queued user info (\(session.outstandingUserInfoTransfers.count) outstanding)")
        }
    }
}

extension WatchConnectivityManager: WCSessionDelegate {
    nonisolated func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: Error?) {
        if let error {
            print("Activation failed: \(error.localizedDescription)")
            return
        }
        print("Watch session activated: \(activationState == .activated), companion installed: \(session.isCompanionAppInstalled)")
    }

    nonisolated func session(_ session: WCSession, didReceiveApplicationContext applicationContext: [String: Any]) {
        let context = applicationContext.mapValues { "\($0)" }
        Task { @MainActor in
            WatchConnectivityManager.shared.receivedContext = context
            print("Context from phone: \(context.keys.sorted())")
        }
    }
}
