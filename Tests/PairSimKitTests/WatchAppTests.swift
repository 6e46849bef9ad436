import Foundation
import Testing
import TestSupport
@testable import PairSimCore
@testable import PairSimKit

/// A watch app written as watchOS workout apps are, that logs what WatchKit, its session and its
/// builder tell it.
final class LoggingWorkoutApp: PairSimWatchApp, HKWorkoutSessionDelegate, HKLiveWorkoutBuilderDelegate, WCSessionDelegate {
    let log: ScriptedApp.Log
    /// The broken variant: finishWorkout() without endCollection first.
    let endsCollection: Bool
    /// False: the app never completes its background tasks.
    var completesTasks = true
    let healthStore = HKHealthStore()
    var session: HKWorkoutSession?
    var builder: HKLiveWorkoutBuilder?

    init(log: ScriptedApp.Log, endsCollection: Bool = true) {
        self.log = log
        self.endsCollection = endsCollection
    }

    func applicationDidFinishLaunching() {
        log.lines.append("didFinishLaunching")
        WCSession.default.delegate = self
        WCSession.default.activate()
    }
    func applicationDidBecomeActive() { log.lines.append("didBecomeActive") }
    func applicationWillResignActive() { log.lines.append("willResignActive") }
    func applicationWillEnterForeground() { log.lines.append("willEnterForeground") }
    func applicationDidEnterBackground() { log.lines.append("didEnterBackground") }
    func handle(_ backgroundTasks: Set<WKRefreshBackgroundTask>) {
        for task in backgroundTasks {
            switch task {
            case let refresh as WKApplicationRefreshBackgroundTask:
                log.lines.append("refresh task \((refresh.userInfo as? NSString).map { String($0) } ?? "-")")
            case is WKWatchConnectivityRefreshBackgroundTask:
                log.lines.append("watchConnectivity task pending=\(WCSession.default.hasContentPending)")
            case is WKSnapshotRefreshBackgroundTask:
                log.lines.append("snapshot task")
            default:
                log.lines.append("other task")
            }
            if completesTasks { task.setTaskCompletedWithSnapshot(false) }
        }
    }
    func session(_ session: WCSession, didReceiveUserInfo userInfo: [String: Any]) { log.lines.append("userInfo \(userInfo["n"] ?? "?")") }
    func handleActiveWorkoutRecovery() {
        healthStore.recoverActiveWorkoutSession { session, _ in
            guard let session else { return self.log.lines.append("nothing to recover") }
            session.delegate = self
            self.session = session
            self.builder = session.associatedWorkoutBuilder()
            self.builder?.delegate = self
            self.log.lines.append("recovered state=\(session.state.rawValue) elapsed=\(Int(self.builder?.elapsedTime ?? -1))")
        }
    }

    func perform(_ action: UserAction) async throws -> String {
        switch action.verb {
        case "start":
            let configuration = HKWorkoutConfiguration()
            configuration.activityType = .running
            let session = try HKWorkoutSession(healthStore: healthStore, configuration: configuration)
            let builder = session.associatedWorkoutBuilder()
            builder.dataSource = HKLiveWorkoutDataSource(healthStore: healthStore, workoutConfiguration: configuration)
            session.delegate = self
            builder.delegate = self
            self.session = session
            self.builder = builder
            session.startActivity(with: Date())
            try await builder.beginCollection(at: Date())
            return "started"
        case "pause":
            session?.pause()
            return "paused"
        case "resume":
            session?.resume()
            return "resumed"
        case "end":
            session?.end()
            return "ending"
        case "stats":
            guard let builder else { return "none" }
            let bpm = HKUnit.count().unitDivided(by: .minute())
            let heartRate = builder.statistics(for: HKQuantityType(.heartRate))
            let energy = builder.statistics(for: HKQuantityType(.activeEnergyBurned))
            return "elapsed=\(Int(builder.elapsedTime)) hr.last=\(heartRate?.mostRecentQuantity()?.doubleValue(for: bpm) ?? 0)"
                + " hr.min=\(heartRate?.minimumQuantity()?.doubleValue(for: bpm) ?? 0) hr.max=\(heartRate?.maximumQuantity()?.doubleValue(for: bpm) ?? 0)"
                + " energy=\(energy?.sumQuantity()?.doubleValue(for: .kilocalorie()) ?? 0) events=\(builder.workoutEvents.map(\.type.rawValue))"
        case "second":
            let other = try HKWorkoutSession(healthStore: healthStore, configuration: HKWorkoutConfiguration())
            other.delegate = self
            other.startActivity(with: Date())
            return "second"
        case "send":
            WCSession.default.sendMessage(["n": 1], replyHandler: { [log] reply in log.lines.append("reply \(reply["echo"] ?? "?")") },
                                          errorHandler: { [log] error in log.lines.append("send error \(error)") })
            return "sent"
        case "refresh":
            let minutes = Double(action.argument(0) ?? "10")!
            WKApplication.shared().scheduleBackgroundRefresh(withPreferredDate: Date().addingTimeInterval(minutes * 60),
                                                             userInfo: "after \(Int(minutes)) min" as NSString) { [log] error in
                log.lines.append("scheduled error=\(error.map { "\($0)" } ?? "none")")
            }
            return "scheduling"
        case "remember":
            AppDefaults.standard.set(action.argument(0) ?? "", forKey: "remembered")
            return "ok"
        case "setting":
            let settings = AppSettings.standard
            return "\(settings.string(forKey: "label") ?? "-") \(settings.double(forKey: "ratio")) \(settings.integer(forKey: "count")) \(settings.bool(forKey: "flag"))"
        case "recall":
            return AppDefaults.standard.string(forKey: "remembered") ?? "nothing"
        case "no-complete":
            completesTasks = false
            return "ok"
        case "count":
            AppLog.count("taps")
            AppLog.count("taps")
            return "counted"
        case "trap":
            let values: [Int] = []
            return "\(values[1])"
        default:
            throw AppError("unknown \(action.verb)")
        }
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState,
                        from fromState: HKWorkoutSessionState, date: Date) {
        log.lines.append("session \(fromState.rawValue)→\(toState.rawValue)")
        guard toState == .ended, let builder else { return }
        let finish = {
            builder.finishWorkout { workout, error in
                self.log.lines.append(workout.map { "saved \(Int($0.duration))s" } ?? "finish failed \((error as? HKError)?.code.rawValue ?? -1)")
            }
        }
        if endsCollection { builder.endCollection(withEnd: date) { _, _ in finish() } } else { finish() }
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: Error) {
        log.lines.append("session failed \((error as? HKError)?.code == .errorAnotherWorkoutSessionStarted ? "anotherWorkoutSessionStarted" : "\(error)")")
    }

    func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>) {
        log.lines.append("collected \(collectedTypes.count)")
    }

    func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder) {
        log.lines.append("event \(workoutBuilder.workoutEvents.last?.type.rawValue ?? 0)")
    }
}

/// A hosted watch app and the phone (with `SessionApp`) joined in memory.
struct HostedPair {
    var watch: WatchNode
    var phone: PhoneNode
    var now = EmulatedInstant.zero
    var events: [Event] = []
    let watchLog = ScriptedApp.Log()
    let phoneLog = ScriptedApp.Log()

    init(endsCollection: Bool = true, onScreen: Bool = true, configure: (inout Topology) -> Void = { _ in }) {
        var topology = Phone.topology
        configure(&topology)
        let watchLog = self.watchLog, phoneLog = self.phoneLog
        let verbs = ["start", "pause", "resume", "end", "stats", "second", "send", "trap", "count", "refresh", "no-complete", "remember", "recall", "setting"]
        watch = WatchNode(topology: topology, boot: "w1",
                          app: AppRegistration(name: "logging-workout", summary: "test", actions: verbs.map { UserActionSpec($0, "", "") },
                                               makeWatchApp: { LoggingWorkoutApp(log: watchLog, endsCollection: endsCollection) }))
        phone = PhoneNode(topology: topology, boot: "p1",
                          app: AppRegistration(name: "session", summary: "test", actions: ["send", "transfer"].map { UserActionSpec($0, "", "") },
                                               make: { SessionApp(log: phoneLog) }))
        take(watch.start(now: now), from: .watch)
        take(phone.start(now: now), from: .phone)
        take(watch.peerConnected(now: now), from: .watch)
        take(phone.peerConnected(now: now), from: .phone)
        // The user looks at the watch app: its actions are its buttons.
        if onScreen { watch("foreground") }
    }

    mutating func take(_ actions: [NodeAction], from node: NodeName) {
        events += actions.events
        for case .publish(let frame) in actions {
            let frames = [Array(frame.topic.utf8), frame.payload]
            if node == .watch { take(phone.receive(frames: frames, now: now), from: .phone) } else { take(watch.receive(frames: frames, now: now), from: .watch) }
        }
    }

    @discardableResult
    mutating func watch(_ text: String) -> CommandResult {
        let result = watch.handle(commandText: text, now: now)
        take(result.actions, from: .watch)
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

    func named(_ name: String, node: NodeName? = nil) -> [Event] { events.filter { $0.name == name && (node == nil || $0.node == node) } }
}

@Suite("A developer's watch app on the watch")
struct WatchAppTests {
    @Test("WatchKit's delegate hears launch and every move between background and foreground, in watchOS's order")  // R: A8
    func lifecycle() {
        var pair = HostedPair(onScreen: false)
        expectEqual(pair.watchLog.lines, ["didFinishLaunching"])
        expect(pair.watch("foreground").ok)
        expect(pair.watch("background").ok)
        expectEqual(pair.watchLog.lines, ["didFinishLaunching", "willEnterForeground", "didBecomeActive", "willResignActive", "didEnterBackground",
                                        "snapshot task"])
        // Launched off screen it was suspended; on screen, active; off it again, it ran for its snapshot, then was suspended.
        expectEqual(pair.named("app.state", node: .watch).map { "\($0["to"]!.stringValue!)" }, ["suspended", "foreground", "background", "suspended"])
        let started = pair.events.first { $0.node == .watch && $0.name == "node.started" }
        expectEqual(started?["appName"]?.stringValue, "logging-workout")
    }

    @Test("the live builder collects the sensor's readings as they come; the phone has them before the workout ends; finishWorkout saves it")  // R: A9
    func liveWorkout() throws {
        var pair = HostedPair()
        expectEqual(pair.watch("start").reply, "started")
        expect(pair.watchLog.lines.contains("session 1→2"))
        pair.advance(.minutes(2))
        // At the start and every 5 s of active time: heart rate and energy, handed to the builder
        // as read, saved on the watch and synced once a minute.
        let collected = pair.watchLog.lines.filter { $0.hasPrefix("collected") }.count
        expectEqual(collected, 25, "\(collected)")
        let onPhone = pair.phone.platform.store.sampleCount
        expect(onPhone >= 25, "the phone has the first minute's samples while the workout runs: \(onPhone)")
        expect(pair.named("workout.finished").isEmpty)
        expect(pair.watch("pause").ok)
        pair.advance(.minutes(1))
        expect(pair.watch("resume").ok)
        pair.advance(.minutes(1))
        let stats = pair.watch("stats").reply
        expect(stats.hasPrefix("elapsed=180 "), "pauses are not elapsed time: \(stats)")
        expect(stats.contains("events=[1, 2]"), "a pause and a resume event: \(stats)")
        let hr = try #require(Double(stats.split(separator: " ").first { $0.hasPrefix("hr.last=") }!.dropFirst(8)))
        expect((60...210).contains(hr))
        expect(pair.watchLog.lines.contains("event 1") && pair.watchLog.lines.contains("event 2"))
        expect(pair.watch("end").ok)
        expect(pair.watchLog.lines.contains("session 2→3"))
        expect(pair.watchLog.lines.contains("saved 180s"), "\(pair.watchLog.lines.suffix(4))")
        pair.advance(.minutes(1))
        let finished = try #require(pair.named("workout.finished").first)
        expectEqual(pair.phone.platform.store.workoutCount, 1)
        expectEqual(pair.watch.store.workoutCount, 1)
        expect(finished["activeEnergy"] != nil)
        // No readings once the session ended.
        let readings = pair.named("workout.collected").count
        pair.advance(.minutes(1))
        expectEqual(pair.named("workout.collected").count, readings)
    }

    @Test("one session at a time: a second fails with errorAnotherWorkoutSessionStarted")  // R: A9
    func oneSessionAtATime() {
        var pair = HostedPair()
        pair.watch("start")
        pair.watch("second")
        expectEqual(pair.watchLog.lines.last, "session failed anotherWorkoutSessionStarted")
    }

    @Test("a broken app that calls finishWorkout() before endCollection saves no workout, and the log says why")  // R: A9
    func finishBeforeEndCollection() {
        var pair = HostedPair(endsCollection: false)
        pair.watch("start")
        pair.advance(.minutes(1))
        pair.watch("end")
        expectEqual(pair.watchLog.lines.last, "finish failed \(HKError.Code.errorInvalidArgument.rawValue)")
        expectEqual(pair.watch.store.workoutCount, 0)
        expectEqual(pair.named("workout.finish.failed").first?["reason"]?.stringValue, "finishWorkout() before endCollection(withEnd:)")
    }

    @Test("the reference watch app's actions are not the platform's: a developer's app that has none of that name refuses it; its own actions and the platform's commands work")  // R: A8, A10
    func commands() {
        var pair = HostedPair()
        let refused = pair.watch("start-workout running")
        expect(!refused.ok && refused.reply.contains("unknown watch command"), "\(refused.reply)")
        expect(pair.watch("write-sample hr 70").ok)
        let help = pair.watch("help")
        expect(help.ok && help.reply.contains("logging-workout's actions") && help.reply.contains("stats"))
        expect(pair.watch("count").ok)
        expect(pair.watch("status").reply.contains("app: logging-workout (running), misbehaviours 0, taps 2"))
        let json = pair.watch("status --json").reply
        expect(json.contains("\"counters\":{\"taps\":2}"), "\(json)")
        let stopped = pair.watch.stop(now: pair.now).events.first
        expect(stopped?["app.taps"]?.intValue == 2 && stopped?["misbehaviours"]?.intValue == 0)
    }

    @Test("the watch app's WCSession: a message reaches the phone app, whose reply comes back, while its workout keeps it reachable")  // R: A9
    func watchConnectivity() {
        var pair = HostedPair()
        pair.watch("start")
        pair.advance(.seconds(10))
        pair.watch("send")
        pair.advance(.seconds(10))
        expect(pair.phoneLog.lines.contains("message 1"))
        expect(pair.watchLog.lines.contains("reply 1"), "\(pair.watchLog.lines.suffix(5))")
    }

    @Test("a trap in the watch app ends its process; the system relaunches it, and it recovers the session under way")  // R: A8, A9
    func trap() {
        // On a thread of its own, as a node's loop is: a trap abandons a task's frames, which
        // Swift's pool threads do not survive (PlatformWithScriptedAppTests.trapInTask).
        final class Outcome: @unchecked Sendable { var lines: [String] = [] }
        let outcome = Outcome(), done = DispatchSemaphore(value: 0)
        let thread = Thread {
            var pair = HostedPair()
            pair.watch("start")
            let result = pair.watch("trap")
            outcome.lines.append("trap ok=\(result.ok) crashed=\(result.reply.contains("crashed"))")
            outcome.lines.append("app.crashed \(pair.named("app.crashed", node: .watch).count)")
            // The system relaunched the app, which took its session back and carries on with it (the
            // sensor's first reading, due at the start, comes after).
            outcome.lines.append(pair.watchLog.lines.last { $0.hasPrefix("recovered") } ?? "?")
            pair.advance(.minutes(1))
            outcome.lines.append(pair.watch("end").reply)
            outcome.lines.append(pair.watchLog.lines.last ?? "?")
            outcome.lines.append("write-sample ok=\(pair.watch("write-sample hr 70").ok)")
            done.signal()
        }
        thread.start()
        done.wait()
        expectEqual(outcome.lines, ["trap ok=false crashed=true", "app.crashed 1", "recovered state=2 elapsed=0", "ending", "saved 60s",
                                  "write-sample ok=true"])
    }

    @Test("a scheduled refresh wakes the suspended app in the background at its date, with its userInfo; completed, the app is suspended again")  // R: A9
    func backgroundRefresh() {
        var pair = HostedPair()
        pair.watch("refresh 10")
        expectEqual(pair.watchLog.lines.last, "scheduled error=none")
        pair.watch("background")
        expectEqual(pair.watch.platform.appState, .suspended)
        pair.advance(.minutes(9))
        expect(!pair.watchLog.lines.contains { $0.hasPrefix("refresh task") })
        pair.advance(.minutes(2))
        expect(pair.watchLog.lines.contains("refresh task after 10 min"))
        let started = pair.named("task.started").last
        let startedAt: EmulatedInstant? = started?.at
        expectEqual(started?["task"]?.stringValue, "appRefresh")
        expectEqual(startedAt, EmulatedInstant.zero + .minutes(10))
        expectEqual(pair.named("task.completed").last?["task"]?.stringValue, "appRefresh")
        expectEqual(pair.watch.platform.appState, .suspended)
        expectEqual(pair.named("app.state", node: .watch).suffix(2).map { $0["to"]!.stringValue! }, ["background", "suspended"])
    }

    @Test("refreshes beyond the hour's budget wait until it allows them")  // R: A9
    func refreshBudget() {
        var pair = HostedPair { $0.watch.refreshPerHour = 2 }
        for _ in 0..<3 { pair.watch("refresh 1") }
        pair.watch("background")
        pair.advance(.minutes(30))
        expectEqual(pair.named("task.started").filter { $0["task"]?.stringValue == "appRefresh" }.count, 2)
        pair.advance(.minutes(40))
        let runs: [EmulatedInstant] = pair.named("task.started").filter { $0["task"]?.stringValue == "appRefresh" }.map(\.at)
        let expected: [EmulatedInstant] = [.zero + .minutes(1), .zero + .minutes(1), .zero + .minutes(61)]
        expectEqual(runs, expected, "\(runs)")
    }

    @Test("a background task never completed is reported when its time runs out, and the app is suspended all the same")  // R: A9
    func taskNotCompleted() {
        var pair = HostedPair()
        pair.watch("no-complete")
        pair.watch("background")
        expectEqual(pair.watch.platform.appState, .background, "it runs for its snapshot task")
        pair.advance(.seconds(20))
        let misbehaved = pair.named("app.misbehaved", node: .watch).first
        let misbehavedAt: EmulatedInstant? = misbehaved?.at
        expectEqual(misbehaved?["kind"]?.stringValue, "task-not-completed")
        expectEqual(misbehavedAt, EmulatedInstant.zero + .seconds(15))
        expectEqual(pair.watch.platform.appState, .suspended)
    }

    @Test("user info from the phone wakes a suspended watch app with a WatchConnectivity task and reaches its delegate")  // R: A9
    func watchConnectivityTask() {
        var pair = HostedPair()
        pair.watch("background")
        pair.advance(.seconds(1))
        expectEqual(pair.watch.platform.appState, .suspended)
        let sent = pair.phone.handle(commandText: "transfer 5", now: pair.now)
        pair.take(sent.actions, from: .phone)
        pair.advance(.seconds(5))
        let lines = pair.watchLog.lines.suffix(2)
        expect(lines.contains("watchConnectivity task pending=false") || lines.contains("watchConnectivity task pending=true"), "\(lines)")
        expect(pair.watchLog.lines.contains("userInfo 5"))
        expectEqual(pair.named("task.completed").last?["task"]?.stringValue, "watchConnectivity")
        expectEqual(pair.watch.platform.appState, .suspended)
    }

    @Test("what the watch app keeps in AppDefaults survives the watch node's restart")  // R: A8
    func defaultsAcrossRestart() throws {
        var pair = HostedPair()
        expect(pair.watch("remember blue").ok)
        var image = DurableImage()
        image.commit([], values: pair.watch.persistentValues())
        let log = ScriptedApp.Log()
        var restarted = WatchNode(topology: Phone.topology, boot: "w2",
                                  app: AppRegistration(name: "logging-workout", summary: "test", actions: ["recall"].map { UserActionSpec($0, "", "") },
                                                       makeWatchApp: { LoggingWorkoutApp(log: log) }))
        try restarted.restore(image.load(), now: pair.now)
        _ = restarted.start(now: pair.now)
        _ = restarted.handle(commandText: "foreground", now: pair.now)
        expectEqual(restarted.handle(commandText: "recall", now: pair.now).reply, "blue")
    }

    @Test("the watch app reads its settings from the topology with AppSettings")  // R: A11
    func settings() {
        var pair = HostedPair { $0.watch.appSettings = ["label": "fast", "ratio": .double(0.75), "count": 3, "flag": true] }
        expectEqual(pair.watch("setting").reply, "fast 0.75 3 true")
    }
}

/// The live builder's statistics are summed as samples arrive (R: A9): they must be exactly what
/// computing them over every sample gives.
@Suite("Live builder statistics")
struct LiveStatisticsTests {
    @Test("running sums give the statistics the sample-by-sample computation gives", arguments: [HKQuantityTypeIdentifier.heartRate, .activeEnergyBurned])  // R: A9
    func runningEqualsWhole(identifier: HKQuantityTypeIdentifier) {
        let type = HKQuantityType(identifier)
        let unit = identifier == .heartRate ? HKUnit.count().unitDivided(by: .minute()) : HKUnit.kilocalorie()
        let start = Date(timeIntervalSince1970: 1_000)
        var random = SystemRandomNumberGenerator()
        var running = HKLiveWorkoutBuilder.Running(unit: unit)
        var samples: [HKQuantitySample] = []
        for index in 0..<200 {
            // Two readings share an end now and then: the most recent is the later UUID's text, both ways.
            let end = start.addingTimeInterval(Double(index / 2 * 5 + 5))
            let sample = HKQuantitySample(type: type, quantity: HKQuantity(unit: unit, doubleValue: Double.random(in: 60...180, using: &random)),
                                          start: end.addingTimeInterval(-5), end: end)
            samples.append(sample)
            running.add(sample)
        }
        let options: HKStatisticsOptions = [.cumulativeSum, .discreteAverage, .discreteMin, .discreteMax, .mostRecent]
        let end = samples.map(\.endDate).max()!
        let whole = HKStatistics(type: type, start: start, end: end, samples: samples, options: options)
        let summed = HKStatistics(type: type, start: start, end: end, running: running, options: options)
        for (a, b) in [(whole.sumQuantity(), summed.sumQuantity()), (whole.minimumQuantity(), summed.minimumQuantity()),
                       (whole.maximumQuantity(), summed.maximumQuantity()), (whole.mostRecentQuantity(), summed.mostRecentQuantity())] {
            expectEqual(a!.doubleValue(for: unit), b!.doubleValue(for: unit))
        }
        expect(abs(whole.averageQuantity()!.doubleValue(for: unit) - summed.averageQuantity()!.doubleValue(for: unit)) < 1e-9)
        expectEqual(whole.mostRecentQuantityDateInterval(), summed.mostRecentQuantityDateInterval())
    }
}
