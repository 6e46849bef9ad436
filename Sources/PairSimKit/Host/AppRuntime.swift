import CAppClock
import CAppGuard
import Foundation
package import PairSimCore
import Synchronization

/// Runs one app instance for a driver (the node loop, or the simulator): delivers each `AppCall`
/// by calling the app's code — its closures, and its async tasks on `AppExecutor` — on the
/// driver's thread until nothing is left to run, and collects the app's `AppRequest`s.
///
/// Everything the app does goes through here, so every crossing is seen: a call from another
/// thread (a `Task {}` or a queue the app started itself) is reported as nondeterminism (R: A5).
package final class AppRuntime: @unchecked Sendable {
    // @unchecked: confined to the driver's thread; the only entry from elsewhere is `send`,
    // which takes the lock (an app's stray thread), and is reported.

    package let registration: AppRegistration
    package private(set) var executor = AppExecutor()
    /// Emulated time of the call being delivered.
    package private(set) var now = EmulatedInstant.zero
    /// The device's clock (R: F5): `deviceNow` is what it reads at `now` — the app's `Date()`.
    package private(set) var clock = DeviceClock.exact
    package var deviceNow: EmulatedInstant { clock.reading(at: now) }
    /// The zone this runtime last made the process's, and the switch count then (`beginAppTime`).
    var appliedZone: (zone: String, switches: Int) = ("", -1)
    let lock = NSLock()
    var outbox: [AppRequest] = []
    /// The call `deliver` is handing the app, until `guarded` takes it.
    var delivering: AppCall?
    var nextID = 0
    var random: SplitMix64

    // The running app instance and what it registered (gone with its process).
    package private(set) var app: (any PairSimApp)?
    var observerQueries: [Int: HKObserverQuery] = [:]
    var pendingQueries: [Int: (QueryResult) -> Void] = [:]
    var pendingDone: [Int: (String?) -> Void] = [:]
    var timers: [Int: () -> Void] = [:]
    var recordObservers: [([ExerciseRecord], [UUID]) -> Void] = []
    /// The watch app's workout sessions and their builders under way, and its `finishWorkout` calls.
    var workoutSessions: [Int: HKWorkoutSession] = [:]
    var workoutBuilders: [Int: HKLiveWorkoutBuilder] = [:]
    var pendingWorkouts: [Int: (Workout?, String?) -> Void] = [:]
    var pendingRecoveries: [Int: (RecoveredWorkout?) -> Void] = [:]
    /// The `userInfo` of each background refresh the watch app scheduled, by its id.
    var refreshUserInfo: [Int: any NSSecureCoding & NSObjectProtocol] = [:]
    /// UIKit background tasks the app began and their expiration handlers (R: F2).
    var backgroundTaskHandlers: [Int: (() -> Void)?] = [:]
    /// `BGTaskScheduler` launch handlers the app registered while launching, and its running BGTasks.
    var bgLaunchHandlers: [String: (BGTask) -> Void] = [:]
    var runningBGTasks: [Int: BGTask] = [:]
    /// Inside `didFinishLaunching` (BGTaskScheduler registration must happen then).
    var launching = false
    /// Why this process was launched, and its scene's phase (`UIApplication.applicationState`).
    var launchReason: AppLaunchReason = .user
    var scenePhase: ScenePhase = .background
    /// The process's `WCSession.default`.
    package internal(set) var session = WCSession()
    /// Mirrors of what the platform keeps for the app, for synchronous reads.
    var records: [UUID: ExerciseRecord] = [:]
    var defaults = JSONObject()
    var reported: Set<String> = []
    /// Printed output (stdout, stderr) whose line has not ended yet.
    var partialOutput: [[UInt8]] = [[], []]
    /// What crashed apps left behind: never released (not even with their runtime), since their
    /// frames were abandoned mid-way.
    static let graveyard = Mutex<[Confined<[Any]>]>([])

    /// The app's own settings from the topology (`AppSettings`).
    package let settings: JSONObject

    package init(registration: AppRegistration, seed: UInt64, settings: JSONObject = JSONObject()) {
        self.registration = registration
        self.settings = settings
        self.seed = seed
        random = SplitMix64(seed: seed, label: "app.uuids")
    }

    let seed: UInt64

    /// The node starts at `now`: the UUIDs the app makes (`UUID()`, new records) draw from the
    /// seed and the instant of this start, so an app restarted with its node never makes an id it
    /// made before (found making the reference watch app the default: a restarted watch gave its
    /// new records the ids of old ones, overwriting them), and both drivers draw the same ones.
    package func nodeStarted(at now: EmulatedInstant) {
        random = SplitMix64(seed: seed, label: now == .zero ? "app.uuids" : "app.uuids@\(now.milliseconds)")
    }

    // MARK: The runtime the app's code is running in

    /// The runtime whose call is being delivered on this thread.
    package static var current: AppRuntime? {
        pairsim_current_runtime().map { Unmanaged<AppRuntime>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Makes `runtime` the current one on this thread while `body` runs (unretained: the caller
    /// holds it for that long), then puts back what was there.
    /// While it runs, the C clocks on this thread read the runtime's emulated time (CAppClock).
    static func asCurrent<T>(_ runtime: AppRuntime, _ body: () throws -> T) rethrows -> T {
        let previous = pairsim_current_runtime()
        pairsim_set_current_runtime(Unmanaged.passUnretained(runtime).toOpaque())
        runtime.beginAppTime()
        defer {
            runtime.collectOutput()
            pairsim_set_current_runtime(previous)
            if let previous {
                Unmanaged<AppRuntime>.fromOpaque(previous).takeUnretainedValue().beginAppTime()
            } else {
                pairsim_app_time_end()
            }
        }
        return try withExtendedLifetime(runtime) { try body() }
    }

    /// The C clocks on this thread read this device's time: `Date()` its clock, the monotonic
    /// clocks true emulated time; `TimeZone.current` is its zone (R: F5).
    func beginAppTime() {
        pairsim_app_time_begin_device(deviceNow.milliseconds, now.milliseconds)
        // Nothing switched since this runtime last set its zone: it is still the process's.
        if appliedZone.switches == DeviceTimeZone.switches.load(ordering: .relaxed), appliedZone.zone == clock.timeZone { return }
        appliedZone = (clock.timeZone, DeviceTimeZone.use(clock.timeZone))
    }
    /// The runtime whose delivery started the current task: a `Task {}` the app starts inherits
    /// it (task-locals are copied), so a stray task's call is attributed to the right app.
    @TaskLocal static var owner: AppRuntime?

    /// The runtime that delivered last: the best guess for a `Task.detached` or a thread of the app's own.
    private static let lastDelivered = Mutex<WeakRuntime>(WeakRuntime())

    /// The runtime for an API entry point. Called from a thread PairSim does not run (`Task {}`,
    /// `Task.detached`, the app's own queue), the call cannot be ordered with the rest: it is
    /// reported (R: A5, A6) and goes to a throwaway runtime, so it changes nothing.
    static func require(_ api: String) -> AppRuntime {
        if let runtime = current { return runtime }
        if let owner = owner ?? lastDelivered.withLock({ $0.runtime }) {
            owner.report("nondeterministic", "\(api) was called from a thread PairSim does not run (a thread of the app's own, DispatchQueue.global(), a queue of its own, asyncAfter): the call was dropped; use Task { } or the main queue")
            return AppRuntime(registration: owner.registration, seed: 0)
        }
        // No app has run in this process: nobody to tell, nothing to reach.
        return AppRuntime(registration: AppRegistration(name: "none", summary: "", actions: [], make: { preconditionFailure("no app") }), seed: 0)
    }

    /// A UUID from the run's seed (objects the app creates), or a random one outside a delivery.
    package static func newUUID() -> UUID {
        guard let runtime = current else { return UUID() }
        return runtime.random.nextUUID()
    }

    func id() -> Int {
        nextID += 1
        return nextID
    }

    /// Queues a request (a completion handler may call it from anywhere: it takes the lock).
    func send(_ request: AppRequest) {
        // What the app printed before this call comes before it in the log.
        if pairsim_app_output_pending() != 0, pairsim_current_runtime() == Unmanaged.passUnretained(self).toOpaque() { collectOutput() }
        enqueue(request)
    }

    func enqueue(_ request: AppRequest) {
        lock.lock()
        outbox.append(request)
        lock.unlock()
    }

    /// Reports a broken rule once per kind (R: A6).
    func report(_ kind: String, _ detail: String) {
        if pairsim_app_output_pending() != 0, pairsim_current_runtime() == Unmanaged.passUnretained(self).toOpaque() { collectOutput() }
        lock.lock()
        let first = reported.insert(kind + detail).inserted
        if first { outbox.append(.misbehaved(kind: kind, detail: detail)) }
        lock.unlock()
    }

    // MARK: Delivering calls

    /// Delivers one call and runs the app until it has nothing left to do now; returns its requests.
    package func deliver(_ call: AppCall, now: EmulatedInstant, clock: DeviceClock = .exact) -> [AppRequest] {
        self.now = now
        self.clock = clock
        Self.lastDelivered.withLock { $0.runtime = self }
        Self.asCurrent(self) {
            // The app's synchronous code runs with its task-local owner bound; its tasks' jobs run
            // outside that binding, so a trap in one (which abandons the job's frames, current task
            // included) never unwinds through a task-local scope.
            var trapped: Int32 = 0
            delivering = call
            Self.$owner.withValue(self) { trapped = guarded(handling: true) }
            delivering = nil
            if trapped == 0 { trapped = guarded(handling: false) }
            if trapped != 0 { crashed(signal: trapped, during: call.kind) }
        }
        if Self.synchronizesUserDefaults.load(ordering: .relaxed) { UserDefaults.standard.synchronize() }
        lock.lock()
        defer { outbox = []; lock.unlock() }
        return outbox
    }

    /// Calls the app's code for `call`.
    func handle(_ call: AppCall) {
        switch call {
        case .launch(let background, let reason, let defaults, let records):
            forgetProcess()
            self.defaults = defaults
            self.records = Dictionary(records.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
            launchReason = reason
            scenePhase = background ? .background : .inactive
            let instance = registration.make()
            app = instance
            launching = true
            instance.didFinishLaunching(LaunchOptions(inBackground: background, reason: LaunchReason(reason)))
            launching = false
        case .scenePhase(let phase):
            scenePhase = phase
            app?.scenePhaseDidChange(to: AppScenePhase(phase))
        case .observerUpdate(let query, let completion):
            if let observer = observerQueries[query] {
                observer.update(query) { [weak self] in self?.send(.complete(completion)) }
            }
        case .queryResult(let id, let result):
            pendingQueries.removeValue(forKey: id)?(result)
        case .done(let id, let error):
            pendingDone.removeValue(forKey: id)?(error)
        case .timer(let id):
            timers.removeValue(forKey: id)?()
        case .userAction(let id, let command):
            perform(command, reply: id)
        case .recordsChanged(let saved, let deleted):
            for record in saved { records[record.id] = record }
            for id in deleted { records[id] = nil }
            for observer in recordObservers { observer(saved, deleted) }
        case .wcActivated, .wcReachability, .wcReceived, .wcReply, .wcFailed, .wcTransferFinished, .wcComplication:
            session.handle(call, runtime: self)
        case .workoutSessionChanged(let id, let to, let from, let date):
            workoutSessions[id]?.changed(to: HKWorkoutSessionState(to), from: HKWorkoutSessionState(from), date: Date(date))
        case .workoutSessionFailed(let id, let error):
            workoutSessions[id]?.failed(error)
        case .workoutCollected(let id, let samples):
            workoutBuilders[id]?.collect(samples)
        case .workoutFinished(let id, let workout, let error):
            pendingWorkouts.removeValue(forKey: id)?(workout, error)
        case .workoutRecoveryNeeded:
            (app as? WatchAppHost)?.app.handleActiveWorkoutRecovery()
        case .workoutRecovered(let id, let recovered):
            pendingRecoveries.removeValue(forKey: id)?(recovered)
        case .backgroundTasks(let tasks):
            let objects = tasks.map { WKRefreshBackgroundTask.make($0, runtime: self) }
            if let host = app as? WatchAppHost { host.app.handle(Set(objects)) }
        case .backgroundTimeExpiring(let tasks):
            for task in tasks { if let handler = backgroundTaskHandlers[task] { handler?() } }
        case .bgTaskLaunch(let token, let identifier, let processing):
            let task: BGTask = processing ? BGProcessingTask(token: token, identifier: identifier, runtime: self)
                                          : BGAppRefreshTask(token: token, identifier: identifier, runtime: self)
            guard let handler = bgLaunchHandlers[identifier] else {
                // iOS ends an app handed a task it registered no launch handler for.
                report("bgtask-no-handler", "no launch handler registered for task \(identifier) (register it with BGTaskScheduler.shared.register before didFinishLaunching returns)")
                send(.bgTaskCompleted(token: token, success: false))
                return
            }
            runningBGTasks[token] = task
            handler(task)
        case .bgTaskExpiring(let token):
            runningBGTasks[token]?.expirationHandler?()
        case .timeChanged:
            // UIKit's delegate call (Apple: "a change to a new day (midnight), a carrier time
            // update, or a change to, or from, daylight savings time"). Not the notifications:
            // NotificationCenter.default is one per process, and would carry them to observers an
            // earlier emulated process of the app registered and, in `simulate`, the other device's.
            if registration.device == .phone { app?.applicationSignificantTimeChange(.shared) }
        case .terminated:
            forgetProcess()
        }
    }

    /// The app trapped: its instance and everything it registered go to the graveyard (their
    /// frames were abandoned, so nothing of theirs is released), and the platform hears of it.
    func crashed(signal: Int32, during: String) {
        let remains: [Any] = [app as Any, observerQueries, pendingQueries, pendingDone, timers, recordObservers, session, executor,
                              workoutSessions, workoutBuilders, pendingWorkouts, pendingRecoveries, self]
        Self.graveyard.withLock { $0.append(Confined(remains)) }
        forgetProcess()
        executor = AppExecutor()
        send(.crashed(signal: signal, during: during))
    }

    /// The app's `status()` lines (read inside a delivery, so the app may use the API).
    package func status(now: EmulatedInstant, clock: DeviceClock = .exact) -> [String] {
        guard let app else { return [] }
        self.now = now
        self.clock = clock
        return Self.asCurrent(self) { app.status() }
    }

    /// The process ended: the app's memory — its instance, queries, closures — is gone.
    func forgetProcess() {
        app = nil
        observerQueries = [:]
        pendingQueries = [:]
        pendingDone = [:]
        timers = [:]
        recordObservers = []
        workoutSessions = [:]
        workoutBuilders = [:]
        pendingWorkouts = [:]
        pendingRecoveries = [:]
        refreshUserInfo = [:]
        backgroundTaskHandlers = [:]
        bgLaunchHandlers = [:]
        runningBGTasks = [:]
        session = WCSession()
        // Tasks of the ended process that wait for an answer wait forever: nothing resumes them.
    }

    /// Runs a user action as an app task; its reply goes back when it finishes.
    func perform(_ command: ParsedCommand, reply id: Int) {
        guard let app else {
            send(.reply(id: id, ok: false, text: "\(command.verb): the app is not running"))
            return
        }
        let action = UserAction(command)
        let confined = Confined(app)
        AppTask {
            do {
                let text = try await confined.value.perform(action)
                AppRuntime.current?.send(.reply(id: id, ok: true, text: text))
            } catch {
                AppRuntime.current?.send(.reply(id: id, ok: false, text: "\(error)"))
            }
        }
    }
}

/// A value that only ever lives on the driver's thread, carried into an app task there.
struct Confined<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A weak reference, so the last runtime is not kept alive by being last.
struct WeakRuntime: ~Copyable {
    weak var runtime: AppRuntime?
}

extension SplitMix64 {
    /// A version-4-shaped UUID from the generator.
    mutating func nextUUID() -> UUID {
        var bytes = [UInt8](repeating: 0, count: 16)
        var a = next(), b = next()
        withUnsafeBytes(of: &a) { for i in 0..<8 { bytes[i] = $0[i] } }
        withUnsafeBytes(of: &b) { for i in 0..<8 { bytes[8 + i] = $0[i] } }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
