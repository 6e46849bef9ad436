import Foundation

/// A watch app of the developer's on the watch (R: A8, A9): the boundary with it, as the phone
/// has one (`PhonePlatform+App`). The app's process is launched when the node starts and runs
/// until the node stops or the app traps; its workout session and live builder are the watch's
/// (`HostedWorkout`); its WatchConnectivity requests are handled as the phone's are (`WCAppHost`).
extension WatchModel: WCAppHost {
    /// The hosted app runs with its session activated, and is reachable (on screen or in a workout).
    var appHearsWatchConnectivity: Bool {
        appRunning && wc.activated && (watchAppRuns || (appState == .background && openTasks.values.contains { $0.kind == .watchConnectivity }))
    }

    mutating func withSession<T>(_ body: (inout WCSessionCore, inout SyncEngine) -> T) -> T { body(&wc, &sync) }

    /// The watch's own side of a link: its app runs and the phone is in range.
    func ownReachable(now: EmulatedInstant) -> Bool { ownLink(now: now) }

    /// Queues a call for the hosted app: held while it is suspended, dropped when it does not run.
    mutating func call(_ call: AppCall) {
        switch appState {
        case .foreground, .background: appCalls.append(call)
        case .suspended: heldCalls.append(call)
        case .notRunning: break
        }
    }

    /// A fresh token for a reply handler, a query or a timer.
    mutating func token() -> Int {
        nextToken += 1
        return nextToken
    }

    /// The calls for the app since the last take, in order (the driver delivers them).
    public mutating func takeAppCalls() -> [AppCall] {
        defer { appCalls = [] }
        return appCalls
    }

    /// The app's answer to user action `id`, once it gave one.
    public mutating func takeReply(_ id: Int) -> (ok: Bool, text: String)? {
        replies.removeValue(forKey: id)
    }

    /// A user action for the hosted app: the driver delivers it; the reply comes as a request.
    public mutating func userAction(_ command: ParsedCommand) -> Int {
        let id = token()
        call(.userAction(id: id, command: command))
        return id
    }

    /// The app's process starts (`applicationDidFinishLaunching()`), active when on screen; with a
    /// workout session under way, the system asks it to recover the session
    /// (`handleActiveWorkoutRecovery()`), whose handle belonged to the process before.
    mutating func launchApp(now: EmulatedInstant, reason: AppLaunchReason? = nil) {
        appState = wc.foreground ? .foreground : .background
        call(.launch(background: !wc.foreground, reason: reason ?? (wc.foreground ? .user : .system), defaults: appDefaults, records: []))
        if wc.foreground { call(.scenePhase(.active)) }
        if var current = workout, current.isRecoverable {
            current.session = 0
            current.crashed = false // relaunched (`recover`, a node restart): the session comes back
            // The sensor reads on while the session runs: from the restart, if the watch was down.
            if current.state == .running, current.collecting != nil, current.collectionEnd == nil, current.activeSince == nil {
                current.resumeActive(at: now, interval: topology.watch.heartRateInterval)
            }
            workout = current
            call(.workoutRecoveryNeeded)
        }
    }

    /// When the hosted app next needs the driver: a timer of its clock, or its sensor's next reading.
    var hostedDeadline: EmulatedInstant? {
        var next = tasksDeadline.earliest(workout?.nextSampleAt).earliest(workout?.saveAt)
        // A suspended app's timers wait until it runs again.
        if appState != .suspended { for at in appTimers.values { next = next.earliest(at) } }
        return next
    }

    /// Time passes for the hosted app: its timers fire, its workout's sensor reads.
    mutating func advanceHostedApp(now: EmulatedInstant) -> [NodeAction] {
        let actions = collectLive(now: now) + advanceTasks(now: now)
        if !appTimers.isEmpty, appState != .suspended {
            for (id, at) in appTimers.sorted(by: { ($0.value, $0.key) < ($1.value, $1.key) }) where at <= now {
                appTimers[id] = nil
                call(.timer(id: id))
            }
        }
        return actions
    }

    /// Everything the hosted app asked while handling a call, in order.
    public mutating func handle(_ requests: [AppRequest], answering _: AppCall, now: EmulatedInstant) -> [NodeAction] {
        var actions: [NodeAction] = []
        for request in requests {
            switch request {
            case .executeObserver, .stopQuery, .complete:
                actions.append(unsupported("HKObserverQuery", "observer queries on the watch are not modelled yet: the handler is never called", now: now))
            case .enableBackgroundDelivery(let id, _, _), .disableBackgroundDelivery(let id, _):
                actions.append(unsupported("enableBackgroundDelivery", "background delivery on the watch is not modelled yet: it never wakes the app", now: now))
                call(.done(id: id, error: nil))
            case .requestAuthorization(let id):
                call(.done(id: id, error: nil))
            case .query(let id, let spec):
                call(.queryResult(id: id, HealthReads(store: store, denied: []).answer(spec)))
            case .save(let id, let batch):
                actions += appSave(id, batch, now: now)
            case .delete(let id, let objects):
                actions += appDelete(id, objects, now: now)
            case .scheduleTimer(let id, let at):
                appTimers[id] = max(at, now)
            case .cancelTimer(let id):
                appTimers[id] = nil
            case .postNotification(let title, let body, let info):
                var fields: JSONObject = ["title": .string(title), "body": .string(body)]
                for member in info.members where fields[member.key] == nil { fields.append(member.key, member.value) }
                actions.append(event(.notificationPosted, now, fields))
            case .setDefault(let key, let value):
                appDefaults[key] = value
            case .saveRecords(let made):
                let valid = made.filter { $0.start >= .zero && $0.duration >= .zero && $0.wireProblem == nil }
                if valid.count < made.count {
                    actions.append(misbehaved("invalid-record", "\(made.count - valid.count) record(s) not saved", now: now))
                }
                let (saved, ops) = records.save(valid.map { var record = $0; record.source = .watchApp; return record })
                counters.recordsSaved += saved.count
                actions += ops.map(NodeAction.persist) + StoreEvents.records(saved: saved, deleted: [], node: .watch, now: now)
                actions += exportLater(saved: saved, now: now)
            case .deleteRecords(let ids):
                let (removed, ops) = records.delete(ids)
                actions += ops.map(NodeAction.persist) + StoreEvents.records(saved: [], deleted: removed, node: .watch, now: now)
                actions += exportLater(deleted: removed, now: now)
            case .log(let name, let level, let fields):
                actions.append(.emit(Event(at: now, node: .watch, name: name, level: level, fields: fields, byApp: true)))
            case .count(let name, let amount):
                appCounters[name, default: 0] += amount
            case .reply(let id, let ok, let text):
                replies[id] = (ok, text)
            case .misbehaved(let kind, let detail):
                actions.append(misbehaved(kind, detail, now: now))
            case .crashed(let signal, let during):
                actions += appCrashed(signal: signal, during: during, now: now)
            case .wcActivate, .wcSendMessage, .wcReplyToMessage, .wcTransfer, .wcCancelTransfer, .wcUpdateContext:
                actions += handleWatchConnectivity(request, now: now)
            case .workout(let session, let asked):
                actions += handleWorkout(session, asked, now: now)
            case .scheduleRefresh(let id, let at):
                scheduleRefresh(id, at: time.clock.instant(reading: at), now: now) // a date on the watch's clock
            case .completeTask(let token, let snapshot):
                actions += completeTask(token, snapshot: snapshot, now: now)
            case .beginBackgroundTask, .endBackgroundTask:
                // UIKit's: watchOS has no UIApplication (ProcessInfo.performExpiringActivity is not modelled).
                actions.append(unsupported("UIApplication.beginBackgroundTask", "watchOS has no UIApplication; its background work runs in WKRefreshBackgroundTasks", now: now))
            case .bgSubmit(let id, _):
                // The BackgroundTasks framework is iOS's: a watch app schedules WKApplication refreshes.
                call(.done(id: id, error: "unavailable"))
            case .bgCancel, .bgTaskCompleted, .subscribeRecords:
                break
            case .widgetReload:
                actions.append(unsupported("WidgetCenter.reloadTimelines", "the watch's widgets and complications are not modelled", now: now))
            case .wcTransferComplication(let id, let payload):
                // iOS's: a watch app has no complication transfers to send; it goes as user info.
                actions += handleWatchConnectivity(.wcTransfer(id: id, payload: payload, file: nil), now: now)
            }
        }
        return actions + refreshReachability(now: now)
    }

    /// The app finished handling what it was handed: off screen with nothing left to do, it is suspended.
    public mutating func appSettled(now: EmulatedInstant) -> [NodeAction] {
        guard appCalls.isEmpty else { return [] }
        return suspendIfIdle(now: now)
    }

    /// A watch app takes every user action: the user raises the wrist and opens it (R: A10).
    public func userActionRefusal(_ verb: String) -> String? { nil }

    /// The user opens the app to act in it when it is not on screen (launching it if it is not
    /// running), as `foreground` does; true when it did, so that it is left again afterwards.
    public mutating func openForUserAction(now: EmulatedInstant) -> (actions: [NodeAction], opened: Bool) {
        guard !wc.foreground || appState != .foreground else { return ([], false) }
        return (watchApp(onScreen: true, now: now).actions, true)
    }

    /// The user lowers the wrist after an action that opened the app, as `background` does.
    public mutating func leaveAfterUserAction(now: EmulatedInstant) -> [NodeAction] {
        watchApp(onScreen: false, now: now).actions
    }

    func unsupported(_ api: String, _ detail: String, now: EmulatedInstant) -> NodeAction {
        event(.appUnsupported, now, level: .warning, ["api": .string(api), "detail": .string(detail)])
    }

    mutating func misbehaved(_ kind: String, _ detail: String, now: EmulatedInstant) -> NodeAction {
        appMisbehaviours += 1
        return event(.appMisbehaved, now, level: .warning, ["kind": .string(kind), "detail": .string(detail)])
    }

    /// The app saves objects: the watch app's, saved in the watch's store and synced to the phone.
    mutating func appSave(_ id: Int, _ batch: HealthObjectsBatch, now: EmulatedInstant) -> [NodeAction] {
        if let problem = PhonePlatform.invalid(batch) {
            call(.done(id: id, error: "errorInvalidArgument"))
            return [event(.hkSaveFailed, now, level: .warning, ["reason": .string("invalid object: \(problem)")])]
        }
        var own = batch
        for index in own.workouts.indices { own.workouts[index].source = .watchApp }
        for index in own.samples.indices { own.samples[index].source = .watchApp }
        let (saved, ops) = store.save(workouts: own.workouts, samples: own.samples)
        counters.samplesWritten += saved.samples.count
        call(.done(id: id, error: nil))
        return ops.map(NodeAction.persist) + StoreEvents.health(saved: saved, deleted: [], node: .watch, now: now)
            + sendObjects(HealthObjectsBatch(workouts: saved.workouts, samples: saved.samples), now: now)
    }

    /// The app deletes objects: only its app group's (R: H5), deleted on the phone too.
    mutating func appDelete(_ id: Int, _ objects: [DeletedObject], now: EmulatedInstant) -> [NodeAction] {
        var failure: String?
        var allowed: [DeletedObject] = []
        for object in objects {
            if let source = store.source(of: object) {
                if source.isOwnAppGroup { allowed.append(object) } else { failure = failure ?? "not authorized: written by \(source.name), not this app group" }
            } else {
                failure = failure ?? "not found in HealthKit (already deleted?)"
            }
        }
        var actions: [NodeAction] = []
        if !allowed.isEmpty {
            let (deleted, ops) = store.delete(allowed, now: now)
            actions += ops.map(NodeAction.persist) + StoreEvents.health(saved: HealthStore.SaveResult(), deleted: deleted, node: .watch, now: now)
            actions += sendObjects(HealthObjectsBatch(deleted: deleted), now: now)
        }
        if let failure { actions.append(event(.hkDeleteFailed, now, level: .warning, ["reason": .string(failure)])) }
        call(.done(id: id, error: failure == nil ? nil : "errorInvalidArgument"))
        return actions
    }

    /// Launches the app that is not running (on screen when the watch app is), saying why.
    mutating func launchStoppedApp(reason: String, as launchReason: AppLaunchReason, now: EmulatedInstant) -> [NodeAction] {
        launchApp(now: now, reason: launchReason)
        return [event(.appState, now, ["from": "notRunning", "to": .string(appState.rawValue), "reason": .string(reason)])]
    }

    /// The app trapped: its process ends, as a crash does on a device (R: A6), and its workout
    /// session with it (relaunch and `recoverActiveWorkoutSession` are not modelled yet).
    mutating func appCrashed(signal: Int32, during: String, now: EmulatedInstant) -> [NodeAction] {
        appMisbehaviours += 1
        let name = [4: "SIGILL", 5: "SIGTRAP", 7: "SIGBUS", 8: "SIGFPE", 11: "SIGSEGV"][signal] ?? "signal \(signal)"
        let actions = [event(.appCrashed, now, level: .error, [
            "signal": .string(name), "during": .string(during),
            "reason": "the app's code trapped (Swift prints why on the node's stderr); its process ended",
        ])]
        _ = endAppProcess(reason: nil, now: now)
        // A workout session outlives its app's process: the system relaunches the app at once to
        // recover it (once per session: a second crash ends it). Without one the app stays down.
        guard var current = workout, current.isRecoverable else { return actions }
        if current.relaunched {
            let from = current.state
            current.pauseActive(at: now)
            current.state = .ended
            workout = current
            return actions + [event(.workoutSession, now, level: .warning, ["session": .int(current.number), "from": .string(from.name),
                                                                            "to": "ended", "reason": "the app crashed again"])]
        }
        current.relaunched = true
        workout = current
        launchApp(now: now)
        return actions + [event(.workoutSession, now, level: .warning, ["session": .int(current.number), "state": .string(current.state.name),
                                                                        "reason": "the app crashed; the system relaunched it to recover the session"])]
    }
}

extension WatchModel {
    /// The app's process ends (a trap, `crash`): what it was handed and had open goes with it.
    mutating func endAppProcess(reason: String?, now: EmulatedInstant) -> [NodeAction] {
        let from = appState
        appState = .notRunning
        appCalls = []
        heldCalls = []
        openTasks = [:]
        appTimers = [:]
        wcReplyTokens = [:]
        wc.processEnded()
        guard let reason, from != .notRunning else { return [] }
        return [event(.appState, now, ["from": .string(from.rawValue), "to": "notRunning", "reason": .string(reason)])]
    }
}

/// A hosted watch app's process, as watchOS runs it.
public enum WatchAppState: String, Hashable, Sendable {
    /// Not launched, or ended by a trap outside a workout.
    case notRunning
    /// On screen.
    case foreground
    /// Running off screen: in a workout session, or handling background tasks.
    case background
    /// Off screen with nothing to do: its code does not run; what arrives for it waits.
    case suspended
}
