import Foundation

/// The boundary with the app (R: A1, A6): what the platform hands it, and what it does with each
/// request the app makes. Every crossing is logged or counted, so the cost report sees it.
extension PhonePlatform {
    /// Queues a call for the app: delivered while its process runs, held while it is suspended,
    /// dropped when there is no process.
    mutating func call(_ call: AppCall) {
        switch app {
        case .foreground, .inactive, .background: appCalls.append(call)
        case .suspended: heldCalls.append(call)
        case .notRunning, .forceQuit: break
        }
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

    /// A user action for the app: the driver delivers it; the reply comes as a request.
    public mutating func userAction(_ command: ParsedCommand) -> Int {
        let id = token()
        call(.userAction(id: id, command: command))
        return id
    }

    /// Everything the app asked while handling `call`, in order.
    public mutating func handle(_ requests: [AppRequest], answering call: AppCall, now: EmulatedInstant) -> [NodeAction] {
        var actions: [NodeAction] = []
        var registered: [ObserverQuery] = []
        for request in requests {
            switch request {
            case .executeObserver(let query, let type):
                let observer = ObserverQuery(id: query, type: type)
                observerQueries.append(observer)
                registered.append(observer)
            case .stopQuery(let query):
                observerQueries.removeAll { $0.id == query }
            case .complete(let token):
                actions += completion(token, now: now)
            case .query(let id, let spec):
                actions += query(id, spec, now: now)
            case .enableBackgroundDelivery(let id, let type, let frequency):
                actions += enableDelivery(type, frequency, now: now)
                self.call(.done(id: id, error: nil))
            case .disableBackgroundDelivery(let id, let type):
                delivery.disable(type)
                self.call(.done(id: id, error: nil))
            case .requestAuthorization(let id):
                // HealthKit answers "done" whatever the user chose: read permission stays hidden (R: H3).
                self.call(.done(id: id, error: nil))
            case .save(let id, let batch):
                actions += appSave(id, batch, now: now)
            case .delete(let id, let objects):
                actions += appDelete(id, objects, now: now)
            case .scheduleTimer(let id, let at):
                if let old = appTimers[id] { timers.cancel(old) }
                appTimers[id] = timers.schedule(.app(id), at: max(at, now))
            case .cancelTimer(let id):
                if let old = appTimers.removeValue(forKey: id) { timers.cancel(old) }
            case .postNotification(let title, let body, let info):
                counters.notifications += 1
                var fields: JSONObject = ["title": .string(title), "body": .string(body)]
                // The app's userInfo cannot replace the title and body.
                for member in info.members where fields[member.key] == nil { fields.append(member.key, member.value) }
                actions.append(event(.notificationPosted, now, fields))
            case .setDefault(let key, let value):
                defaults[key] = value
            case .saveRecords(let made):
                // What the watch would refuse never leaves: the wire's own reader judges each record.
                let problems = made.map { $0.start < .zero || $0.duration < .zero ? "starts before the epoch or lasts less than 0 s" : $0.wireProblem }
                let valid = zip(made, problems).filter { $0.1 == nil }.map(\.0)
                if let first = problems.compactMap({ $0 }).first {
                    counters.misbehaviours += 1
                    actions.append(event(.appMisbehaved, now, level: .warning, [
                        "kind": "invalid-record", "detail": .string("\(made.count - valid.count) record(s) not saved, e.g. \(first.prefix(200))"),
                    ]))
                }
                actions += saveAppRecords(valid.map { var record = $0; record.source = .phoneApp; return record }, now: now)
            case .deleteRecords(let ids):
                actions += deleteAppRecords(ids, now: now)
            case .log(let name, let level, let fields):
                actions.append(.emit(Event(at: now, node: .phone, name: name, level: level, fields: fields, byApp: true)))
            case .count(let name, let amount):
                counters.app[name, default: 0] += amount
            case .reply(let id, let ok, let text):
                replies[id] = (ok, text)
            case .misbehaved(let kind, let detail):
                counters.misbehaviours += 1
                actions.append(event(.appMisbehaved, now, level: .warning, ["kind": .string(kind), "detail": .string(detail)]))
            case .crashed(let signal, let during):
                actions += appCrashed(signal: signal, during: during, now: now)
            case .wcActivate, .wcSendMessage, .wcReplyToMessage, .wcTransfer, .wcCancelTransfer, .wcUpdateContext:
                // The app knows its complication budget by the time its activation delegate runs.
                if case .wcActivate = request, !wc.activated { announceComplicationBudget(now: now) }
                actions += handleWatchConnectivity(request, now: now)
            case .wcTransferComplication(let id, let payload):
                actions += transferComplication(appID: id, payload, now: now)
            case .widgetReload(let kind):
                actions += reloadWidgets(kind, now: now)
            case .scheduleRefresh(let id, _):
                // watchOS's: an iPhone app schedules refreshes with BGTaskScheduler (not modelled).
                self.call(.done(id: id, error: "errorHealthDataUnavailable"))
            case .completeTask:
                break
            case .beginBackgroundTask(let token, let name):
                actions += beginUITask(token, name: name, now: now)
            case .endBackgroundTask(let token):
                actions += endUITask(token, now: now)
            case .bgSubmit(let id, let request):
                actions += bgSubmit(id, request, now: now)
            case .bgCancel(let identifier):
                actions += bgCancel(identifier, now: now)
            case .bgTaskCompleted(let token, let success):
                actions += bgTaskCompleted(token, success: success, now: now)
            case .subscribeRecords:
                recordsSubscribed = true
            case .workout(let session, let asked):
                // Workout sessions run on the watch: PairSim's iPhone has none (iOS 26's are not modelled).
                let unavailable = "errorHealthDataUnavailable"
                switch asked {
                case .prepare, .startActivity: self.call(.workoutSessionFailed(session: session, error: unavailable))
                case .beginCollection(let id, _, _), .endCollection(let id, _): self.call(.done(id: id, error: unavailable))
                case .finish(let id): self.call(.workoutFinished(id: id, workout: nil, error: unavailable))
                case .recover(let id): self.call(.workoutRecovered(id: id, nil))
                case .pause, .resume, .stopActivity, .end, .discard: break
                }
            }
        }
        actions += refreshReachability(now: now)
        if !registered.isEmpty { actions += observersExecuted(registered, answering: call, now: now) }
        return actions
    }

    /// The app trapped: its process ends as a crash does on a device (R: A6). The platform goes on;
    /// background delivery may launch the app again, the user may open it.
    mutating func appCrashed(signal: Int32, during: String, now: EmulatedInstant) -> [NodeAction] {
        counters.misbehaviours += 1
        let name = [4: "SIGILL", 5: "SIGTRAP", 7: "SIGBUS", 8: "SIGFPE", 11: "SIGSEGV"][signal] ?? "signal \(signal)"
        var actions = [event(.appCrashed, now, level: .error, [
            "signal": .string(name), "during": .string(during),
            "reason": "the app's code trapped (Swift prints why on the node's stderr); its process ended",
        ])]
        guard app != .notRunning, app != .forceQuit else { return actions }
        cancelBudget()
        observerQueries = []
        openCompletions = [:]
        if backgroundSince == nil { backgroundSince = now }
        actions += resolveMissedWakes(now: now)
        actions += setState(.notRunning, reason: "app crashed", now: now)
        processEnded()
        return actions
    }

    /// The app finished handling what it was handed: a background launch for a type whose
    /// observer the app did not register has nobody to deliver the wake to (R: O1).
    public mutating func appSettled(now: EmulatedInstant) -> [NodeAction] {
        guard let type = wakeOnLaunch else { return [] }
        wakeOnLaunch = nil
        return missingObserver(type, now: now)
    }

    /// `HKObserverQuery`s executed: HealthKit calls each handler once at once (R: O1, O2). Every
    /// type is accepted: HealthKit takes a query for a type the app may not read (R: H3).
    mutating func observersExecuted(_ queries: [ObserverQuery], answering call: AppCall, now: EmulatedInstant) -> [NodeAction] {
        let when: String
        switch call {
        case .launch: when = "launch"
        case .scenePhase(.active): when = "first appearance"
        default: when = "later"
        }
        var actions = [event(.observerRegistered, now, ["types": .array(queries.map { .string($0.type.name) }), "when": .string(when)])]
        for query in queries {
            // A wake that launched the app is delivered by that type's execute callback (one callback, not two).
            let isWake = wakeOnLaunch == query.type
            if isWake { wakeOnLaunch = nil }
            actions += observerFired(query, trigger: isWake ? .wake : .execute, now: now)
        }
        return actions
    }

    /// HealthKit calls an observer query's update handler with a completion handler.
    mutating func observerFired(_ query: ObserverQuery, trigger: ObserverTrigger, now: EmulatedInstant) -> [NodeAction] {
        counters.observerCallbacks += 1
        let completion = token()
        openCompletions[completion] = (query.type, trigger == .wake)
        if trigger != .wake, app == .foreground || app == .inactive {
            // On screen nothing forces the app to call it; PairSim still reports one never called (R: F8).
            timers.schedule(.completionDue(completion), at: now + config.app.wakeBudget)
        }
        call(.observerUpdate(query: query.id, completion: completion))
        return [event(.observerFired, now, ["type": .string(query.type.name), "trigger": .string(trigger.rawValue),
                                            "app": .string(app.rawValue)])]
    }

    /// An observer callback the app got on screen is still not completed after `app.wakeBudget`
    /// (R: F8): reported as a background miss is, but not counted by HealthKit's backoff. A
    /// suspended app cannot call it (its code is frozen) and one whose process ended never will:
    /// neither is reported here.
    mutating func completionOverdue(_ token: Int, now: EmulatedInstant) -> [NodeAction] {
        guard app.isRunning, let (type, wake) = openCompletions[token], !wake else { return [] }
        openCompletions[token] = nil
        counters.onScreenMissedCompletions += 1
        return [event(.observerCompletionMissed, now, level: .warning, [
            "type": .string(type.name), "after": .string(config.app.wakeBudget.description),
            "reason": "the app got this observer callback on screen and has not called its completion handler; in a background-delivery wake that would be a miss",
        ])]
    }

    /// The app called a completion handler. A wake's completion tells HealthKit the delivery
    /// succeeded; a second call, or one after the budget ran out, changes nothing.
    mutating func completion(_ token: Int, now: EmulatedInstant) -> [NodeAction] {
        guard let (type, wake) = openCompletions.removeValue(forKey: token) else { return [] }
        if let skips = missCompletions[type], skips > 0 {
            // `miss-completion`: as if the app never called it.
            missCompletions[type] = skips - 1 == 0 ? nil : skips - 1
            return [event(.observerCompletionSkipped, now, level: .warning, [
                "type": .string(type.name), "trigger": .string(wake ? "wake" : "other"), "remaining": .int(Int64(skips - 1)),
            ])]
        }
        counters.completions += 1
        guard wake else { return [] }
        var actions = [event(.bgdeliveryCompletion, now, ["type": .string(type.name)])]
        if let next = delivery.completed(type, now: now) {
            timers.schedule(.wake(type), at: next)
            actions.append(event(.bgdeliveryPending, now, ["type": .string(type.name), "frequency": .string(delivery.state(type)!.frequency.rawValue),
                                                           "wakeAt": .string(next.description)]))
        }
        // The wake is answered: with nothing else to wait for, iOS suspends the app soon (R: F2).
        actions += backgroundWorkDone(now: now)
        return actions
    }

    /// `enableBackgroundDelivery(for:frequency:)`: also clears a stop after missed completions.
    mutating func enableDelivery(_ type: ObjectType, _ asked: DeliveryFrequency, now: EmulatedInstant) -> [NodeAction] {
        let applied = delivery.enable(type, asked: asked)
        var fields: JSONObject = ["type": .string(type.name), "frequency": .string(applied.rawValue)]
        if asked != applied { fields.append("capped", .string("\(asked.rawValue) → \(applied.rawValue): iOS caps \(type.name)")) }
        return [event(.bgdeliveryEnabled, now, fields)]
    }

    /// A sample or anchored query, answered at once through what the app may read (R: H2, H3, H4).
    mutating func query(_ id: Int, _ spec: QuerySpec, now: EmulatedInstant) -> [NodeAction] {
        counters.queries += 1
        if locked {
            call(.queryResult(id: id, .failed("errorDatabaseInaccessible")))
            return [event(.hkQueryFailed, now, level: .warning, ["query": .string(spec.kind), "type": .string(spec.type.name),
                                                                 "reason": "databaseInaccessible (device locked)"])]
        }
        let result = reads.answer(spec)
        switch result {
        case .objects(let samples, let workouts): counters.objectsRead += samples.count + workouts.count
        case .anchored(let samples, let workouts, let deleted, _): counters.objectsRead += samples.count + workouts.count + deleted.count
        case .failed: break
        }
        call(.queryResult(id: id, result))
        return []
    }

    /// The app saves objects: they are the phone app's, synced to the watch like any HealthKit write.
    /// While the device is locked the save succeeds: HealthKit writes it to a journal that merges
    /// into the store at unlock (the app's queries see it then), as Apple documents ("Protecting
    /// user privacy": apps can save while the device is locked) (R: F7).
    mutating func appSave(_ id: Int, _ batch: HealthObjectsBatch, now: EmulatedInstant) -> [NodeAction] {
        if let problem = Self.invalid(batch) {
            call(.done(id: id, error: "errorInvalidArgument"))
            return [event(.hkSaveFailed, now, level: .warning, ["reason": .string("invalid object: \(problem)"), "remaining": .int(Int64(saveFailures))])]
        }
        if saveFailures > 0 {
            saveFailures -= 1
            call(.done(id: id, error: "errorAuthorizationDenied"))
            return [event(.hkSaveFailed, now, level: .warning, ["reason": "injected failure (fail-next-save)", "remaining": .int(Int64(saveFailures))])]
        }
        var own = batch
        for index in own.workouts.indices { own.workouts[index].source = .phoneApp }
        for index in own.samples.indices { own.samples[index].source = .phoneApp }
        let actions = writeOnPhone(own, now: now)
        call(.done(id: id, error: nil))
        return actions
    }

    /// Why HealthKit would refuse one of these objects (times before the epoch or backwards,
    /// values outside the type's range), or nil.
    static func invalid(_ batch: HealthObjectsBatch) -> String? {
        for workout in batch.workouts where workout.start < .zero || workout.end < workout.start {
            return "workout \(workout.uuid.text) ends before it starts, or starts before the epoch"
        }
        for sample in batch.samples {
            if sample.start < .zero || sample.end < sample.start { return "sample \(sample.uuid.text) ends before it starts, or starts before the epoch" }
            if !sample.type.validRange.contains(sample.value) { return "\(sample.type.rawValue) \(sample.value) outside \(sample.type.validRange)" }
        }
        // What the watch would refuse on the wire (a name over 256 bytes, energy over 50,000 kcal…).
        for workout in batch.workouts { if let problem = workout.wireProblem { return String(problem.prefix(200)) } }
        for sample in batch.samples { if let problem = sample.wireProblem { return String(problem.prefix(200)) } }
        return nil
    }

    /// The app deletes objects: only what its app group saved, and not while locked (R: H5).
    mutating func appDelete(_ id: Int, _ objects: [DeletedObject], now: EmulatedInstant) -> [NodeAction] {
        var actions: [NodeAction] = []
        var allowed: [DeletedObject] = []
        var failure: String?
        for object in objects {
            let problem: String?
            if locked { problem = "databaseInaccessible (device locked)" }
            else if let source = store.source(of: object) {
                problem = source.isOwnAppGroup ? nil : "not authorized: written by \(source.name), not this app group"
            } else {
                problem = "not found in HealthKit (already deleted?)"
            }
            if let problem {
                failure = failure ?? problem
                actions.append(event(.hkDeleteFailed, now, level: .warning, ["uuid": .string(object.uuid.text), "reason": .string(problem)]))
            } else {
                allowed.append(object)
            }
        }
        if !allowed.isEmpty { actions += deleteFromHealthKit(allowed, now: now) }
        call(.done(id: id, error: failure))
        return actions
    }
}
