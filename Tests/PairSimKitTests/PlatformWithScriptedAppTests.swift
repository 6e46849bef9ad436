import Foundation
import Testing
import TestSupport
@testable import PairSimCore
@testable import PairSimKit

/// The platform under an app whose behaviour each test scripts (R: A1, A2, A5, A6).
@Suite("The platform with a scripted app")
struct PlatformWithScriptedAppTests {
    static let hrv = HKQuantityType(.heartRateVariabilitySDNN)

    @Test("observer, sample and anchored queries in closure and async forms see what changed")  // R: A2, H2, O2
    func queryForms() {
        let log = ScriptedApp.Log()
        var phone = Phone({
            ScriptedApp(log: log, onLaunch: { app, _ in app.observe([Self.hrv]) }, onUpdate: { app, type, done in
                // Closure form: the newest sample.
                let query = HKSampleQuery(sampleType: type, predicate: nil, limit: 1, sortDescriptors: [NSSortDescriptor(key: HKSampleSortIdentifierEndDate, ascending: false)]) { _, samples, error in
                    let value = (samples?.first as? HKQuantitySample)?.quantity.doubleValue(for: .secondUnit(with: .milli))
                    log.lines.append("sample \(value.map { String($0) } ?? "none") error \(error == nil ? "none" : "\(error!)")")
                }
                app.store.execute(query)
                // Async form: what changed since the stored anchor.
                AppTask {
                    let stored = AppDefaults.standard.object(forKey: "anchor") as? Int
                    let result = try? await HKAnchoredObjectQueryDescriptor(predicates: [.sample(type: type)], anchor: stored.map { HKQueryAnchor(fromValue: $0) })
                        .result(for: app.store)
                    if let result {
                        AppDefaults.standard.set(Int(result.newAnchor.value), forKey: "anchor")
                        log.lines.append("anchored +\(result.addedSamples.count) -\(result.deletedObjects.count)")
                    }
                    done()
                }
            })
        })
        expectEqual(log.lines, ["sample none error none", "anchored +0 -0"], "the execute callback")
        phone.advance(.minutes(2))
        let sample = phone.arrive(.heartRateVariabilitySDNN, 48)
        phone.advance(.seconds(10))
        phone.arrive(.heartRateVariabilitySDNN, 52)
        phone.advance(.seconds(10))
        phone.delete(sample)
        expectEqual(log.lines.suffix(6), ["sample 48.0 error none", "anchored +1 -0", "sample 52.0 error none", "anchored +1 -0",
                                        "sample 52.0 error none", "anchored +0 -1"])
        expectEqual(phone.node.platform.counters.queries, 8)
        expectEqual(phone.node.platform.counters.objectsRead, 6, "three newest samples, two added, one deleted")
    }

    @Test("async code with actors, async let and the app's clock gives the same bytes every run")  // R: A5
    func asyncDeterminism() {
        actor Tally {
            var seen: [String] = []
            func add(_ text: String) -> Int { seen.append(text); return seen.count }
        }
        func run() -> [UInt8] {
            var phone = Phone({
                let tally = Tally()
                return ScriptedApp(log: ScriptedApp.Log(), onLaunch: { app, _ in app.observe([Self.hrv]) }, onUpdate: { app, _, done in
                    AppTask {
                        async let first: [HKQuantitySample] = HKSampleQueryDescriptor(predicates: [.quantitySample(type: Self.hrv)], sortDescriptors: [SortDescriptor(\.endDate, order: .reverse)], limit: 1).result(for: app.store)
                        async let count: Int = tally.add("update")
                        let (samples, n) = (try? await first, await count)
                        for delay in [3, 1, 2] {
                            AppTask {
                                try? await AppClock().sleep(for: .seconds(delay))
                                let order = await tally.add("slept \(delay)")
                                AppLog.event("test.slept", ["delay": .int(delay), "order": .int(order), "update": .int(n)])
                            }
                        }
                        AppLog.event("test.update", ["n": .int(n), "samples": .int(samples?.count ?? -1)])
                        done()
                    }
                })
            })
            phone.advance(.minutes(1))
            for value in [40.0, 41, 42] {
                phone.arrive(.heartRateVariabilitySDNN, value)
                phone.advance(.milliseconds(1_500))
            }
            phone.advance(.minutes(1))
            let slept = phone.named("test.slept")
            expectEqual(slept.count, 12)
            expectEqual(slept.map(\.at), slept.map(\.at).sorted(), "in emulated-time order")
            expect(slept.filter { !$0.byApp }.isEmpty)
            return phone.bytes
        }
        let first = run(), second = run()
        expect(first.count > 1_000)
        expectEqual(first, second)
    }

    @Test("an app that never completes: backoff, then delivery stops; the platform keeps running")  // R: A6, O5
    func neverCompletes() {
        var phone = Phone({ ScriptedApp(log: ScriptedApp.Log(), onLaunch: { app, _ in app.observe([Self.hrv]) }, onUpdate: { _, _, _ in }) })
        expect(phone.command("background").ok)
        phone.advance(.minutes(1))
        phone.arrive(.heartRateVariabilitySDNN, 47)
        phone.advance(.minutes(10))
        expectEqual(phone.named("bgdelivery.missed").count, 3)
        expectEqual(phone.named("bgdelivery.stopped").count, 1)
        expect(phone.command("status").ok)
    }

    @Test("a UI action that throws is refused with the app's error; one the app does not offer is unknown")  // R: A6, P3
    func throwingAction() {
        var phone = Phone({ ScriptedApp(log: ScriptedApp.Log()) },
                          actions: [UserActionSpec("fail", "<why>", "refuse"), UserActionSpec("ok", "", "succeed")])
        let refused = phone.command("fail because")
        expect(!refused.ok && refused.reply.contains("the app refused: because"))
        expectEqual(phone.command("ok").reply, "done ok")
        expect(!phone.command("fly").ok)
        expect(phone.command("background").ok)
        expect(phone.command("ok").reply.contains("not on screen"))
    }

    @Test("Task { }, Task.detached, main-actor code and Task.sleep run on the app's executor, in order, in emulated time")  // R: A5, A14
    func tasksOnTheAppsExecutor() {
        let log = ScriptedApp.Log()
        var phone = Phone({
            ScriptedApp(log: log, onLaunch: { app, _ in app.observe([Self.hrv]) }, onUpdate: { _, _, done in
                // Written as app code is written today: no PairSim spelling.
                Task { AppLog.event("test.task") }
                Task.detached { AppLog.event("test.detached") }
                Task { @MainActor in AppLog.event("test.main", ["main": .bool(Self.onMainActor())]) }
                Task {
                    let start = Date()
                    try? await Task.sleep(for: .seconds(90))
                    await MainActor.run { AppLog.event("test.slept", ["seconds": .double(Date().timeIntervalSince(start))]) }
                }
                done()
            })
        })
        // The handler runs twice: when the query starts, as HealthKit calls it, and for the sample.
        phone.arrive(.heartRateVariabilitySDNN, 45)
        // Within each delivery, in the order they were started: no thread of Swift's was involved.
        let names = phone.events.map(\.name).filter { $0.hasPrefix("test.") }
        expectEqual(names, ["test.task", "test.detached", "test.main", "test.task", "test.detached", "test.main"], "\(names)")
        expect(phone.named("test.main").allSatisfy { $0["main"] == .bool(true) })
        expect(phone.named("test.slept").isEmpty, "90 emulated seconds have not passed")
        phone.advance(.seconds(89))
        expect(phone.named("test.slept").isEmpty)
        phone.advance(.seconds(2))
        let slept = phone.named("test.slept")
        expectEqual(slept.count, 2)
        // Date() read emulated time in the app: exactly the 90 s slept.
        expect(slept.allSatisfy { $0["seconds"] == .double(90) }, "\(slept)")
        expect(phone.named("app.misbehaved").isEmpty)
    }

    /// `MainActor.assumeIsolated` from synchronous code: it asks the main executor, which says yes
    /// for app code being delivered.
    nonisolated static func onMainActor() -> Bool { MainActor.assumeIsolated { true } }

    @Test("a thread of the app's own is reported as nondeterministic, and its call dropped", .timeLimit(.minutes(1)))  // R: A5, A6
    func offExecutor() async throws {
        let log = ScriptedApp.Log()
        var phone = Phone({
            ScriptedApp(log: log, onLaunch: { app, _ in app.observe([Self.hrv]) }, onUpdate: { _, _, done in
                Thread { AppLog.event("test.stray") }.start()
                done()
            })
        })
        // The stray thread runs whenever the OS lets it: yield ours.
        for _ in 0..<1_000 where phone.named("app.misbehaved").isEmpty {
            try await Task.sleep(for: .milliseconds(10))
            phone.arrive(.heartRateVariabilitySDNN, 45)
        }
        let report = phone.named("app.misbehaved").first
        expectEqual(report?["kind"]?.stringValue, "nondeterministic")
        expect(phone.named("test.stray").isEmpty, "the stray call was dropped")
        expect(phone.node.platform.counters.misbehaviours >= 1)
    }

    @Test("the app's defaults outlive its process; its memory does not")  // R: A2, L1
    func defaultsSurvive() {
        let log = ScriptedApp.Log()
        var phone = Phone({
            ScriptedApp(log: log, onLaunch: { app, _ in
                let launches = AppDefaults.standard.integer(forKey: "launches") + 1
                AppDefaults.standard.set(launches, forKey: "launches")
                log.lines.append("launch \(launches)")
            })
        })
        expect(phone.command("background").ok)
        phone.advance(.minutes(1))
        expect(phone.command("terminate").ok)
        expect(phone.command("foreground").ok)
        expectEqual(log.lines, ["launch 1", "launch 2"])
    }

    @Test("a denied type's data from another source never reaches the app; its own saves do")  // R: H3
    func hiddenReads() {
        let log = ScriptedApp.Log()
        var phone = Phone({
            ScriptedApp(log: log, onLaunch: { app, _ in app.observe([Self.hrv]) }, onUpdate: { app, type, done in
                AppTask {
                    let samples = (try? await HKSampleQueryDescriptor(predicates: [.sample(type: type)], sortDescriptors: []).result(for: app.store)) ?? []
                    log.lines.append("sees \(samples.count)")
                    done()
                }
            })
        }, configure: { $0.healthKit.denied = [.sample(.heartRateVariabilitySDNN)] })
        phone.advance(.minutes(2))
        phone.arrive(.heartRateVariabilitySDNN, 50)
        phone.arrive(.heartRateVariabilitySDNN, 51, source: .phoneApp)
        expectEqual(log.lines, ["sees 0", "sees 1"], "the execute callback, then only the app's own sample")
        expectEqual(phone.named("hk.hidden").count, 1)
    }

    @Test("what the watch would refuse on the wire is refused at the API: a 300-byte exercise name, 60,000 kcal")  // R: K2, K3
    func wireLimitsAtTheAPI() {
        let log = ScriptedApp.Log()
        let phone = Phone({
            ScriptedApp(log: log, onLaunch: { app, _ in
                let start = Date(timeIntervalSince1970: 0)
                let huge = HKWorkout(activityType: .running, start: start, end: start.addingTimeInterval(600),
                                     totalEnergyBurned: HKQuantity(unit: .kilocalorie(), doubleValue: 60_000))
                app.store.save(huge) { ok, error in log.lines.append("workout \(ok) \(error.map { "\($0)" } ?? "none")") }
                ExerciseRecords.shared.save([
                    ExerciseRecordValue(exercise: String(repeating: "x", count: 300), startDate: start, duration: 60, calories: nil, healthKitWorkoutID: nil),
                    ExerciseRecordValue(exercise: "Plank", startDate: start, duration: 60, calories: 90_000, healthKitWorkoutID: nil),
                    ExerciseRecordValue(exercise: "Squat", startDate: start, duration: 60, calories: 40, healthKitWorkoutID: nil),
                ])
            })
        })
        expect(log.lines.count == 1 && log.lines[0].hasPrefix("workout false"), "\(log.lines)")
        let failed = phone.named("hk.save.failed")
        expect(failed.count == 1 && failed[0]["reason"]?.stringValue?.contains("activeEnergy") == true, "\(failed.map(\.humanLine))")
        let misbehaved = phone.named("app.misbehaved")
        expect(misbehaved.count == 1 && misbehaved[0]["detail"]?.stringValue?.hasPrefix("2 record(s) not saved, e.g. record.exercise") == true,
                "\(misbehaved.map(\.humanLine))")
        expectEqual(phone.node.platform.records.records.map(\.exercise), ["Squat"])
        expectEqual(phone.node.platform.store.workoutCount, 0)
    }
}

/// An app that traps (R: A6): the platform survives it, as iOS does.
@Suite("An app that traps")
struct TrappingAppTests {
    static let hrv = HKQuantityType(.heartRateVariabilitySDNN)

    @Test("a trap in a query callback ends the app's process, not the platform; the next wake launches it again")  // R: A6, O5
    func trapInCallback() {
        let log = ScriptedApp.Log()
        var phone = Phone({
            ScriptedApp(log: log, onLaunch: { app, options in
                log.lines.append("launch background=\(options.inBackground)")
                app.observe([Self.hrv])
            }, onUpdate: { app, type, done in
                let query = HKSampleQuery(sampleType: type, predicate: nil, limit: 1, sortDescriptors: [NSSortDescriptor(key: HKSampleSortIdentifierEndDate, ascending: false)]) { _, samples, _ in
                    let value = (samples?.first as? HKQuantitySample)?.quantity.doubleValue(for: .secondUnit(with: .milli))
                    if value == 13 { let missing: Int? = nil; _ = missing! } // the app's bug
                    done()
                }
                app.store.execute(query)
            })
        })
        phone.advance(.minutes(2))
        phone.arrive(.heartRateVariabilitySDNN, 13)
        let crash = phone.named("app.crashed").first
        expectEqual(crash?["signal"]?.stringValue, "SIGILL")
        expectEqual(crash?["during"]?.stringValue, "query results handler")
        expectEqual(phone.node.platform.app, .notRunning)
        expectEqual(phone.named("app.state").last?["reason"]?.stringValue, "app crashed")
        // The platform goes on: the next change wakes (launches) the app in the background.
        phone.advance(.minutes(1))
        phone.arrive(.heartRateVariabilitySDNN, 48)
        phone.advance(.seconds(5))
        expectEqual(log.lines, ["launch background=false", "launch background=true"])
        expectEqual(phone.named("bgdelivery.completion").count, 1)
        expect(phone.command("status").ok)
    }

    @Test("a trap in async code on the app's executor is caught the same way (on a node's own loop thread)")  // R: A6, A5
    func trapInTask() {
        // A node drives its app from its own loop thread, not from Swift's pool; so does this test:
        // a trap abandons a task's frames, which Swift's pool threads do not survive.
        final class Outcome: @unchecked Sendable { var during: String?; var state: AppState?; var relaunched: AppState? }
        let outcome = Outcome(), done = DispatchSemaphore(value: 0)
        let thread = Thread {
            var phone = Phone({
                ScriptedApp(log: ScriptedApp.Log(), onLaunch: { app, _ in app.observe([Self.hrv]) }, onUpdate: { _, _, done in
                    AppTask {
                        try? await AppClock().sleep(for: .seconds(1))
                        let values: [Int] = []
                        _ = values[1]
                        done()
                    }
                })
            })
            phone.advance(.seconds(2))
            outcome.during = phone.named("app.crashed").first?["during"]?.stringValue
            outcome.state = phone.node.platform.app
            _ = phone.command("launch")
            outcome.relaunched = phone.node.platform.app
            done.signal()
        }
        thread.start()
        done.wait()
        expectEqual(outcome.during, "its clock's timer")
        expectEqual(outcome.state, .notRunning)
        expectEqual(outcome.relaunched, .foreground)
    }
}
