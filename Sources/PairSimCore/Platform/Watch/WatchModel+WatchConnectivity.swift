import Foundation

/// WatchConnectivity on the watch (R: X1, X2, X4): the watch app's `WCSession`, once the app
/// activated it. The watch app is reachable — and hears what arrives — while it is on screen
/// (`foreground`) or in a workout session, and the phone is in range; a message from the phone
/// never wakes it; user info, a context or a file does, in the background.
extension WatchModel {
    /// The watch app runs now (on screen, or in a running or paused workout session); a crashed
    /// one does not until `recover`.
    var watchAppRuns: Bool {
        appState == .foreground || (appRunning && (workout?.state == .running || workout?.state == .paused))
    }

    /// This side's link: the phone in range (neither out-of-range nor offline) and the app running.
    func ownLink(now: EmulatedInstant) -> Bool {
        watchAppRuns && !sync.isPartitioned(.watchconnectivity, at: now)
    }

    /// Recomputes reachability after anything that may change it (commands, link news, time).
    mutating func refreshReachability(now: EmulatedInstant) -> [NodeAction] {
        reachabilityCheckedAt = now
        let own = ownLink(now: now)
        let (changed, actions) = wc.setReachability(own: own, isReachable: own && wc.peerLink, sync: sync, now: now)
        if changed, wc.activated { call(.wcReachability(wc.reachable)) }
        for handle in wc.takeCancelled() { call(.wcTransferFinished(id: handle, error: WCErrorCode.transferCancelled.rawValue)) }
        return actions + deliverToWatchApp(now: now)
    }

    /// What arrived for the watch app, if it runs.
    mutating func deliverToWatchApp(now: EmulatedInstant) -> [NodeAction] { deliverToApp(now: now) }

    /// A `wc.…` data message from the phone.
    mutating func applyWatchConnectivity(_ envelope: Envelope, bytes: Int, now: EmulatedInstant) -> [NodeAction] {
        var (incoming, actions) = WCSessionCore.take(envelope, bytes: bytes, sync: &sync, now: now)
        guard case .item(let item) = incoming else {
            if case .reply(let id, let payload, let error) = incoming,
               let (appID, more) = wc.receiveReply(id: id, payload: payload, error: error, now: now) {
                actions += more
                if let appID {
                    if let error { call(.wcFailed(id: appID, code: error.rawValue)) } else { call(.wcReply(id: appID, payload: payload ?? [:])) }
                }
            }
            // It may have closed a gap in front of waiting deliveries.
            return actions + deliverToWatchApp(now: now)
        }
        // A message from the phone does not wake the watch app: one that is not running cannot take it.
        if item.kind == .message, !watchAppRuns {
            wc.counters.messagesReceived += 1
            wc.counters.refused += 1
            actions.append(event(.wcRefused, now, level: .warning, ["kind": "message", "code": .string(WCErrorCode.notReachable.rawValue),
                                                                "id": .string(item.id), "reason": "the watch app is not running"]))
            return actions + wc.sendReply(to: item.id, payload: nil, error: .notReachable, sync: &sync, now: now)
        }
        actions += wc.receive(item, now: now)
        // User info, a context or a file for a suspended app: watchOS wakes it in the background
        // with a WKWatchConnectivityRefreshBackgroundTask, and delivers what came; one that is not
        // running it launches in the background first (R: F3).
        if item.kind != .message, appState == .notRunning {
            actions += launchStoppedApp(reason: "WatchConnectivity transfer", as: .watchConnectivity, now: now)
            actions += startTask(.watchConnectivity, now: now)
        } else if item.kind != .message, appState == .suspended, wc.activated {
            actions += startTask(.watchConnectivity, now: now)
        }
        return actions + deliverToWatchApp(now: now)
    }

    /// After the phone's acknowledgements: finished transfers, the next in the queue.
    mutating func watchConnectivityAcknowledged(now: EmulatedInstant) -> [NodeAction] {
        let (finished, actions) = wc.acknowledged(sync: &sync, now: now)
        for transfer in finished { if let appID = transfer.appID { call(.wcTransferFinished(id: appID, error: nil)) } }
        return actions
    }

    /// Time passes: stalls end, messages time out.
    mutating func advanceWatchConnectivity(now: EmulatedInstant) -> [NodeAction] {
        let (failed, actions) = wc.advance(sync: &sync, now: now)
        for failure in failed {
            guard let appID = failure.appID else { continue }
            call(.wcFailed(id: appID, code: failure.code.rawValue))
        }
        return actions + refreshReachability(now: now)
    }

    /// `foreground` / `background`: the watch app comes to the screen or leaves it.
    mutating func watchApp(onScreen: Bool, now: EmulatedInstant) -> CommandResult {
        guard wc.foreground != onScreen else { return ok("the watch app is already \(onScreen ? "on screen" : "off screen")") }
        wc.foreground = onScreen
        var lifecycle: [NodeAction] = []
        if !appRunning, onScreen {
            // The user opens an app that is not running: it launches on screen.
            lifecycle = launchStoppedApp(reason: "user", as: .user, now: now)
        } else if appRunning {
            // On screen it is active; leaving it, it runs in the background for its snapshot task
            // (and its workout, if one runs), then is suspended.
            lifecycle = setAppState(onScreen ? .foreground : .background, reason: "user", now: now)
            call(.scenePhase(onScreen ? .active : .background))
            if !onScreen { lifecycle += startTask(.snapshot, now: now) }
        }
        return ok("the watch app is \(onScreen ? "on screen" : "off screen")",
                  [event(.watchApp, now, ["onScreen": .bool(onScreen)])] + lifecycle + refreshReachability(now: now))
    }
}
