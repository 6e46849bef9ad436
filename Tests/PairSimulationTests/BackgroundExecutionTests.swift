import Foundation
import PairSimApps
@testable import PairSimCore
import PairSimKit
import Testing
import TestSupport
@testable import PairSimConfig
@testable import PairSimulation

/// App execution as iOS runs it (R: F2): suspension soon after the last completion, UIKit
/// background tasks and their expiration, BGTaskScheduler's refresh and processing tasks.
@Suite("Background execution as iOS runs it")
struct BackgroundExecutionTests {
    /// An app that, as its `mode` says, begins a background task when it leaves the screen and
    /// works `work` seconds before ending it; and registers and submits BGTasks.
    final class Worker: PairSimApp, @unchecked Sendable {
        struct Mode: Sendable {
            var work: Int = 0
            var endOnExpiry = false
            var refreshAfter: TimeInterval?
            var processing = false
            var completeTasks = true
            var registerLate = false
        }
        let mode: Mode
        var task = UIBackgroundTaskIdentifier.invalid
        init(_ mode: Mode) { self.mode = mode }

        func didFinishLaunching(_ options: LaunchOptions) {
            AppLog.event("worker.launched", ["reason": .string(options.reason.rawValue), "background": .bool(options.inBackground)])
            if !mode.registerLate { register() }
            if let after = mode.refreshAfter, options.reason == .user {
                let request: BGTaskRequest
                if mode.processing {
                    let processing = BGProcessingTaskRequest(identifier: "com.example.process")
                    processing.requiresExternalPower = true
                    request = processing
                } else {
                    request = BGAppRefreshTaskRequest(identifier: "com.example.refresh")
                }
                request.earliestBeginDate = Date(timeIntervalSinceNow: after)
                do { try BGTaskScheduler.shared.submit(request) } catch { AppLog.event("worker.submitFailed", ["error": .string("\(error)")]) }
            }
        }

        func register() {
            for identifier in ["com.example.refresh", "com.example.process"] {
                BGTaskScheduler.shared.register(forTaskWithIdentifier: identifier, using: nil) { [mode] task in
                    AppLog.event("worker.task", ["identifier": .string(task.identifier)])
                    task.expirationHandler = { AppLog.event("worker.taskExpiring") }
                    if mode.completeTasks { task.setTaskCompleted(success: true) }
                }
            }
        }

        func scenePhaseDidChange(to phase: AppScenePhase) {
            if mode.registerLate, phase == .active { register() }
            guard phase == .background, mode.work > 0 else { return }
            task = UIApplication.shared.beginBackgroundTask(withName: "save") { [self] in
                AppLog.event("worker.expiring")
                if mode.endOnExpiry { UIApplication.shared.endBackgroundTask(task) }
            }
            Task { [self] in
                try? await Task.sleep(for: .seconds(mode.work))
                AppLog.event("worker.done")
                UIApplication.shared.endBackgroundTask(task)
            }
        }
    }

    static func run(_ mode: Worker.Mode, seed: UInt64 = 1, overrides: String = "", _ timeline: String) throws -> Simulator {
        let scenario = try ScenarioLoader.parse(yaml: """
            name: worker
            duration: 4h
            topology: default
            \(overrides)
            timeline:
            \(timeline)
            """, file: Repository.scenarios + "/inline.yaml")
        var simulator = Simulator(scenario: scenario, app: AppRegistration(name: "worker", summary: "", actions: [], make: { Worker(mode) }), watchApp: try! AppCatalog.watchApp(for: scenario.topology), seed: seed)
        simulator.run()
        return simulator
    }

    /// When, from the start, the app was next suspended at or after `after`.
    static func suspendedAt(_ run: Simulator, after: EmulatedDuration) -> EmulatedDuration? {
        run.events.first { $0.name == "app.state" && $0["to"] == "suspended" && $0.at >= .zero + after }.map { $0.at - .zero }
    }

    @Test("a background task keeps the app running past its 5 s; ended, the app is suspended 1 s later")  // R: F2
    func taskEndsEarly() throws {
        let run = try Self.run(.init(work: 20), "  - { at: 1m, phone: background }")
        let done = try #require(run.events.first { $0.name == "worker.done" })
        expectEqual(done.at - .zero, .minutes(1) + .seconds(20))
        expectEqual(Self.suspendedAt(run, after: .minutes(1)), done.at - .zero + .seconds(1))
        expect(run.events.contains { $0.name == "app.task.began" } && run.events.contains { $0.name == "app.task.ended" })
        expect(!run.events.contains { $0.name == "app.task.expiring" || $0.name == "app.misbehaved" })
    }

    @Test("a task still open when its 30 s run out: the expiration handler runs 1 s before; ended there, the app is suspended")  // R: F2
    func expiryEndsTask() throws {
        let run = try Self.run(.init(work: 120, endOnExpiry: true), "  - { at: 1m, phone: background }")
        let expiring = try #require(run.events.first { $0.name == "worker.expiring" })
        expectEqual(expiring.at - .zero, .minutes(1) + .seconds(29))
        expectEqual(Self.suspendedAt(run, after: .minutes(1)), expiring.at - .zero + .seconds(1))
        expect(!run.events.contains { $0.name == "app.misbehaved" })
    }

    @Test("a task never ended: iOS ends the app at the deadline, reported as a misbehaviour")  // R: F2
    func expiryKills() throws {
        let run = try Self.run(.init(work: 120), "  - { at: 1m, phone: background }")
        let misbehaved = try #require(run.events.first { $0.name == "app.misbehaved" })
        expect(misbehaved["kind"] == "background-task-not-ended" && misbehaved.at - .zero == .minutes(1) + .seconds(30))
        expect(run.events.contains { $0.name == "app.state" && $0["to"] == "notRunning" && $0["reason"] == "background task not ended" })
        expect(!run.events.contains { $0.name == "worker.done" }, "its work never finished")
    }

    @Test("a task ended within the 5 s: suspended 1 s after its end; with suspendAfterCompletion: off the budget decides")  // R: F2
    func suspensionOff() throws {
        let soon = try Self.run(.init(work: 3), "  - { at: 1m, phone: background }")
        expectEqual(Self.suspendedAt(soon, after: .minutes(1)), .minutes(1) + .seconds(4))
        let off = try Self.run(.init(work: 3), overrides: "overrides:\n  phone: { app: { suspendAfterCompletion: off } }", "  - { at: 1m, phone: background }")
        expectEqual(Self.suspendedAt(off, after: .minutes(1)), .minutes(1) + .seconds(5))
    }

    @Test("a refresh request runs at the system's discretion after its earliest date, drawn from the seed; the app is launched for it")  // R: F2
    func refreshDiscretion() throws {
        var times: [EmulatedDuration] = []
        for seed in [UInt64(1), 2, 3, 1] {
            let run = try Self.run(.init(refreshAfter: 3600), seed: seed, """
                  - { at: 1m, phone: background }
                  - { at: 5m, phone: terminate }
                """)
            let started = try #require(run.events.first { $0.name == "bgtask.started" })
            expect(started.at - .zero >= .hours(1) && started.at - .zero <= .hours(1) + .minutes(30))
            times.append(started.at - .zero)
            let launched = try #require(run.events.last { $0.name == "worker.launched" })
            expect(launched["reason"] == "backgroundTask" && launched.at == started.at)
            expect(run.events.contains { $0.name == "worker.task" && $0["identifier"] == "com.example.refresh" })
            expect(run.events.contains { $0.name == "bgtask.completed" && $0["success"] == .bool(true) })
            expectEqual(Self.suspendedAt(run, after: started.at - .zero), started.at - .zero + .seconds(1))
        }
        expectEqual(times[0], times[3], "the same seed, the same moment")
        expect(Set(times).count >= 2, "different seeds, different moments: \(times)")
    }

    @Test("a processing task that requires power waits until the phone is locked and plugged in")  // R: F2
    func processingWaitsForIdle() throws {
        let run = try Self.run(.init(refreshAfter: 600, processing: true), """
              - { at: 1m, phone: background }
              - { at: 30m, phone: lock }
              - { at: 2h, phone: plug-in }
            """)
        let started = try #require(run.events.first { $0.name == "bgtask.started" })
        expect(started.at - .zero == .hours(2) && started["kind"] == "processing")
        expect(run.events.contains { $0.name == "worker.task" && $0["identifier"] == "com.example.process" })
    }

    @Test("a BGTask never completed: its expiration handler runs, then iOS ends the app; one registered late is refused")  // R: F2
    func bgTaskMisbehaviour() throws {
        let run = try Self.run(.init(refreshAfter: 600, completeTasks: false), "  - { at: 1m, phone: background }")
        let started = try #require(run.events.first { $0.name == "bgtask.started" })
        expect(run.events.contains { $0.name == "worker.taskExpiring" && $0.at == started.at + .seconds(29) })
        expect(run.events.contains { $0.name == "app.misbehaved" && $0["kind"] == "bgtask-not-completed" && $0.at == started.at + .seconds(30) })
        let late = try Self.run(.init(refreshAfter: 600, registerLate: true), "  - { at: 1m, phone: background }")
        expect(late.events.contains { $0.name == "app.misbehaved" && $0["kind"] == "bgtask-registered-late" })
        expect(late.events.contains { $0.name == "worker.submitFailed" }, "submit refuses an identifier with no handler (notPermitted)")
    }

    @Test("the app is told why it was launched: by the user, by HealthKit, by a BGTask")  // R: F2
    func launchReasons() throws {
        let run = try Self.run(.init(refreshAfter: 7200), """
              - { at: 1m, phone: background }
              - { at: 5m, phone: terminate }
            """)
        let reasons = run.events.filter { $0.name == "worker.launched" }.compactMap { $0["reason"]?.stringValue }
        expect(reasons.first == "user" && reasons.last == "backgroundTask", "\(reasons)")
    }

    /// Saves a weight sample from a refresh task and reports how the save went.
    final class LockedSaver: PairSimApp, @unchecked Sendable {
        let store = HKHealthStore()
        func didFinishLaunching(_ options: LaunchOptions) {
            BGTaskScheduler.shared.register(forTaskWithIdentifier: "save", using: nil) { [store] task in
                let sample = HKQuantitySample(type: HKQuantityType(.bodyMass), quantity: HKQuantity(unit: .gramUnit(with: .kilo), doubleValue: 70),
                                              start: Date(), end: Date())
                store.save(sample) { success, error in
                    AppLog.event("saver.saved", ["success": .bool(success), "error": .string(error?.localizedDescription ?? "")])
                    task.setTaskCompleted(success: success)
                }
            }
            if options.reason == .user {
                let request = BGAppRefreshTaskRequest(identifier: "save")
                request.earliestBeginDate = Date(timeIntervalSinceNow: 3600)
                try? BGTaskScheduler.shared.submit(request)
            }
        }
    }

    @Test("an app may save while the phone is locked: HealthKit journals it and merges it at unlock")  // R: F7
    func savesWhileLocked() throws {
        let scenario = try ScenarioLoader.parse(yaml: """
            name: locked-save
            duration: 4h
            topology: default
            timeline:
              - { at: 1m, phone: background }
              - { at: 10m, phone: lock }
              - { at: 3h, phone: unlock }
            """, file: Repository.scenarios + "/inline.yaml")
        var run = Simulator(scenario: scenario, app: AppRegistration(name: "saver", summary: "", actions: [], make: { LockedSaver() }), watchApp: try! AppCatalog.watchApp(for: scenario.topology))
        run.run()
        let saved = try #require(run.events.first { $0.name == "saver.saved" })
        expectEqual(saved["success"], .bool(true), "\(saved.humanLine)")
        expect(saved.at < .zero + .hours(3), "the refresh ran while locked")
        expect(run.events.contains { $0.name == "hk.buffered" && $0.at == saved.at })
        expect(run.events.contains { $0.name == "hk.merged" && $0.at == .zero + .hours(3) })
        expectEqual(run.phoneStore.samples(.bodyMass).count, 1)
    }

    /// Reloads its widget's timeline on screen once, then three times in a refresh task.
    final class WidgetReloader: PairSimApp, @unchecked Sendable {
        func didFinishLaunching(_ options: LaunchOptions) {
            BGTaskScheduler.shared.register(forTaskWithIdentifier: "refresh", using: nil) { task in
                for _ in 0..<3 { WidgetCenter.shared.reloadTimelines(ofKind: "HeartRate") }
                task.setTaskCompleted(success: true)
            }
            if options.reason == .user {
                WidgetCenter.shared.reloadAllTimelines()
                let request = BGAppRefreshTaskRequest(identifier: "refresh")
                request.earliestBeginDate = Date(timeIntervalSinceNow: 3600)
                try? BGTaskScheduler.shared.submit(request)
            }
        }
    }

    @Test("widget reloads: free on screen; off screen counted against the day's budget, the rest reloaded at the next midnight")  // R: F4
    func widgetReloadBudget() throws {
        let scenario = try ScenarioLoader.parse(yaml: """
            name: widgets
            duration: 26h
            topology: default
            overrides:
              phone: { app: { widgetReloadsPerDay: 2 } }
            timeline:
              - { at: 1m, phone: background }
            """, file: Repository.scenarios + "/inline.yaml")
        var run = Simulator(scenario: scenario, app: AppRegistration(name: "widgets", summary: "", actions: [], make: { WidgetReloader() }), watchApp: try! AppCatalog.watchApp(for: scenario.topology))
        run.run()
        let reloads = run.events.filter { $0.name == "widget.reloaded" }
        expect(reloads.first?["counted"] == .bool(false) && reloads.first?["kind"] == "all", "on screen: free")
        let counted = reloads.filter { $0["counted"] == .bool(true) }
        expectEqual(counted.count, 3, "two within the budget, the third at midnight")
        expectEqual(counted.map { $0["remaining"]?.intValue }, [1, 0, 1])
        expectEqual(run.events.filter { $0.name == "widget.throttled" }.count, 1)
        expectEqual(counted.last?.at, .zero + .hours(24))
    }
}
