// PhoneSessionManager.swift
// Language mode: Swift 5 (NSObject-based WCSessionDelegate, as in Apple's
// WatchConnectivity samples). Platform: iOS 17 (the iPhone side).
// The iOS-only delegate methods are written unconditionally because this
// file only targets iOS.

import Foundation
import PairSimKit

final class PhoneSessionManager: NSObject, WCSessionDelegate {
    static let shared = PhoneSessionManager()

    private(set) var lastReceivedContext: [String: Any] = [:]
    private(set) var receivedUserInfos: [[String: Any]] = []
    var onWatchStateChange: ((_ paired: Bool, _ installed: Bool, _ reachable: Bool) -> Void)?

    private override init() {
        super.init()
    }

    func activate() {
        guard WCSession.isSupported() else {
            print("WatchConnectivity is not supported on this device.")
            return
        }
        let session = WCSession.default
        session.delegate = self
        session.activate()
    }

    // MARK: - Sending

    func sendLatestSummary(steps: Int, heartRate: Double) {
        let session = WCSession.default
        guard session.activationState == .activated else { return }
        guard session.isPaired, session.isWatchAppInstalled else {
            print("No paired watch with the app installed.")
            return
        }

        let context: [String: Any] = ["steps": steps, "heartRate": heartRate, "updated": Date()]
        do {
            try session.updateApplicationContext(context)
        } catch {
            print("updateApplicationContext failed: \(error.localizedDescription)")
        }

        // Guaranteed, queued delivery for events the watch must not miss.
        let transfer = session.transferUserInfo(["event": "summary", "steps": steps])
        print("Queued user info; transferring: \(transfer.isTransferring), outstanding: \(session.outstandingUserInfoTransfers.count)")
    }

    // MARK: - WCSessionDelegate: activation

    func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: Error?) {
        if let error = error {
            print("Activation failed with error: \(error.localizedDescription)")
            return
        }
        print("Activation state: \(activationState.rawValue), paired: \(session.isPaired), installed: \(session.isWatchAppInstalled)")
        if session.isWatchAppInstalled, let watchDirectory = session.watchDirectoryURL {
            print("Watch directory: \(watchDirectory.path)")
        }
    }

    func sessionDidBecomeInactive(_ session: WCSession) {
        print("Session became inactive; finishing pending work for the previous watch.")
    }

    func sessionDidDeactivate(_ session: WCSession) {
        // Activate the new session after having switched to a new watch.
        session.activate()
    }

    // MARK: - WCSessionDelegate: state

    func sessionWatchStateDidChange(_ session: WCSession) {
        onWatchStateChange?(session.isPaired, session.isWatchAppInstalled, session.isReachable)
    }

    func sessionReachabilityDidChange(_ session: WCSession) {
        print("Watch reachable: \(session.isReachable)")
    }

    // MARK: - WCSessionDelegate: receiving

    func session(_ session: WCSession, didReceiveMessage message: [String: Any], replyHandler: @escaping ([String: Any]) -> Void) {
        switch message["request"] as? String {
        case "ping":
            replyHandler(["response": "pong", "date": Date()])
        case "summary":
            replyHandler(["steps": 4_200, "heartRate": 61.0])
        default:
            replyHandler(["error": "unknown request"])
        }
    }

    func session(_ session: WCSession, didReceiveMessage message: [String: Any]) {
        print("Message without reply: \(message)")
    }

    func session(_ session: WCSession, didReceiveUserInfo userInfo: [String: Any] = [:]) {
        DispatchQueue.main.async {
            self.receivedUserInfos.append(userInfo)
        }
    }

    func session(_ session: WCSession, didReceiveApplicationContext applicationContext: [String: Any]) {
        DispatchQueue.main.async {
            self.lastReceivedContext = applicationContext
        }
    }
}
