import Foundation

/// WatchConnectivity on the iPhone (R: X1–X3), as Apple documents it: the app's `WCSession`
/// belongs to its process and works once the app activated it; `isReachable` is true while the
/// watch app is reachable (on screen or in a workout, in range); a message from the watch
/// launches or wakes the app in the background; user info, files and the application context
/// wait for the app to run. After a `reboot` the phone cannot be reached until its first unlock.
extension PhonePlatform: WCAppHost {
    /// The app can be handed WatchConnectivity deliveries now.
    var appHearsWatchConnectivity: Bool { app.isRunning && wc.activated }

    mutating func withSession<T>(_ body: (inout WCSessionCore, inout SyncEngine) -> T) -> T { body(&wc, &sync) }

    /// The phone can be reached unless it waits for its first unlock after a reboot.
    func ownReachable(now: EmulatedInstant) -> Bool { !wc.awaitingFirstUnlock }

    /// Recomputes what this side announces and `isReachable`; tells the app of a change.
    mutating func refreshReachability(now: EmulatedInstant) -> [NodeAction] {
        let own = !wc.awaitingFirstUnlock
        let (changed, actions) = wc.setReachability(own: own, isReachable: own && wc.activated && wc.peerLink, sync: sync, now: now)
        // A suspended app hears it when it runs again (`call` holds it); an ended process took its session with it.
        if changed, wc.activated { call(.wcReachability(wc.reachable)) }
        // A cancelled transfer (by the app, or by `wc-cancel`) ends with `didFinish` and `transferCancelled`.
        for handle in wc.takeCancelled() { call(.wcTransferFinished(id: handle, error: WCErrorCode.transferCancelled.rawValue)) }
        return actions + deliverToApp(now: now)
    }

    /// A `wc.…` data message from the watch.
    mutating func applyWatchConnectivity(_ envelope: Envelope, bytes: Int, now: EmulatedInstant) -> [NodeAction] {
        var (incoming, actions) = WCSessionCore.take(envelope, bytes: bytes, sync: &sync, now: now)
        // Whatever came (a reply, a refused body) may have closed a gap in front of waiting deliveries.
        switch incoming {
        case nil:
            return actions + deliverToApp(now: now)
        case .reply(let id, let payload, let error):
            if let (appID, more) = wc.receiveReply(id: id, payload: payload, error: error, now: now) {
                actions += more
                if let appID {
                    if let error { call(.wcFailed(id: appID, code: error.rawValue)) } else { call(.wcReply(id: appID, payload: payload ?? [:])) }
                }
            }
            return actions + deliverToApp(now: now)
        case .item(let item):
            actions += wc.receive(item, now: now)
            // Only a message that is waiting for the app (not one that expired on the way) wakes it.
            if item.kind == .message, wc.inbox.contains(where: { $0.stream == item.stream && $0.seq == item.seq }) {
                actions += wakeForMessage(now: now)
            }
            return actions + deliverToApp(now: now)
        }
    }

    /// A message from the watch launches the app in the background, or wakes it if suspended. A
    /// force-quit app too, as Apple documents; with `launchesForceQuitApp: false` (the field
    /// reading) it is not launched: the message waits and expires (R: F6).
    mutating func wakeForMessage(now: EmulatedInstant) -> [NodeAction] {
        switch app {
        case .notRunning:
            return launch(now: now, reason: "WatchConnectivity message", inBackground: true)
        case .forceQuit where wc.config.launchesForceQuitApp:
            return launch(now: now, reason: "WatchConnectivity message", inBackground: true)
        case .suspended:
            var actions = setState(.background, reason: "WatchConnectivity message", now: now)
            actions += startBudget(config.app.wakeBudget, now: now)
            return actions
        case .foreground, .inactive, .background, .forceQuit:
            return []
        }
    }

    /// After the watch's acknowledgements: finished transfers are told to the app.
    mutating func watchConnectivityAcknowledged(now: EmulatedInstant) -> [NodeAction] {
        let (finished, actions) = wc.acknowledged(sync: &sync, now: now)
        for transfer in finished { if let appID = transfer.appID { call(.wcTransferFinished(id: appID, error: nil)) } }
        return actions
    }

    /// Time passes: stalls end, messages time out.
    mutating func advanceWatchConnectivity(now: EmulatedInstant) -> [NodeAction] {
        let (failed, actions) = wc.advance(sync: &sync, now: now)
        for failure in failed { if let appID = failure.appID { call(.wcFailed(id: appID, code: failure.code.rawValue)) } }
        return actions + refreshReachability(now: now)
    }

    /// `reboot`: the app's process ends, the device restarts locked, and WatchConnectivity stays
    /// unreachable from the watch until the first unlock (R: X3).
    mutating func reboot(now: EmulatedInstant) -> CommandResult {
        var actions: [NodeAction] = []
        if app != .notRunning, app != .forceQuit { actions += endProcess(forceQuit: false, now: now) }
        if !locked {
            locked = true
            actions.append(event(.deviceLocked, now))
        }
        frontmostAtLock = false
        wc.awaitingFirstUnlock = true
        actions.append(event(.deviceRebooted, now))
        return CommandResult(ok: true, reply: "rebooted: app \(app.rawValue), device locked; WatchConnectivity is unreachable until the first unlock",
                             actions: actions)
    }
}
