import Foundation
@testable import PairSimCore
@testable import PairSimKit

/// A test app whose behaviour each test scripts: what it does at launch and on each observer
/// update. It records what reached it.
final class ScriptedApp: PairSimApp {
    /// What the app saw, shared with the test.
    final class Log: @unchecked Sendable {
        var lines: [String] = []
    }

    let log: Log
    let onLaunch: (ScriptedApp, LaunchOptions) -> Void
    let onUpdate: (ScriptedApp, HKSampleType, @escaping HKObserverQueryCompletionHandler) -> Void
    /// What a user action does; nil: "fail" throws, anything else answers "done VERB".
    let onPerform: ((ScriptedApp, UserAction) async throws -> String)?
    let store = HKHealthStore()

    init(log: Log, onLaunch: @escaping (ScriptedApp, LaunchOptions) -> Void = { _, _ in },
         onUpdate: @escaping (ScriptedApp, HKSampleType, @escaping HKObserverQueryCompletionHandler) -> Void = { _, _, done in done() },
         perform: ((ScriptedApp, UserAction) async throws -> String)? = nil) {
        self.log = log
        self.onLaunch = onLaunch
        self.onUpdate = onUpdate
        self.onPerform = perform
    }

    func didFinishLaunching(_ options: LaunchOptions) { onLaunch(self, options) }

    /// Observer queries for `types`, each handled by `onUpdate`.
    func observe(_ types: [HKSampleType], frequency: HKUpdateFrequency = .immediate) {
        for type in types {
            store.enableBackgroundDelivery(for: type, frequency: frequency) { _, _ in }
            store.execute(HKObserverQuery(sampleType: type, predicate: nil) { [unowned self] _, completion, _ in
                self.onUpdate(self, type, completion)
            })
        }
    }

    func perform(_ action: UserAction) async throws -> String {
        if let onPerform { return try await onPerform(self, action) }
        if action.verb == "fail" { throw AppError("the app refused: \(action.arguments.joined(separator: " "))") }
        return "done \(action.verb)"
    }
}

/// Drives the platform with a scripted app in virtual time.
struct Phone {
    static let topology = Topology(name: "t", nodes: [
        .watch: NodeEndpoints(publish: "ipc://w", control: "ipc://wc", data: "w"),
        .phone: NodeEndpoints(publish: "ipc://p", control: "ipc://pc", data: "p"),
    ])

    var node: PhoneNode
    var now = EmulatedInstant.zero
    var events: [Event] = []
    var uuids = UUIDGenerator(seed: 7, label: "kit-test")

    init(_ make: @escaping @Sendable () -> any PairSimApp, actions: [UserActionSpec] = [], configure: (inout PhoneConfig) -> Void = { _ in }) {
        var topology = Self.topology
        configure(&topology.phone)
        node = PhoneNode(topology: topology, boot: "test", app: AppRegistration(name: "scripted", summary: "test", actions: actions, make: make))
        events += node.start(now: now).events
    }

    mutating func advance(_ duration: EmulatedDuration) {
        let target = now + duration
        while let next = node.nextDeadline, next <= target {
            now = max(now, next)
            events += node.advance(to: now).events
        }
        now = target
        events += node.advance(to: now).events
    }

    mutating func command(_ text: String) -> CommandResult {
        let result = node.handle(commandText: text, now: now)
        events += result.actions.events
        advance(.zero)
        return result
    }

    /// A sample of `type` written by `source` arrives (from the watch or another app).
    @discardableResult
    mutating func arrive(_ type: SampleType, _ value: Double, source: ObjectSource = .other("strava")) -> HealthSample {
        let sample = HealthSample(uuid: uuids.next(at: now), type: type, start: now, end: now, value: value, source: source)
        events += node.inject(now: now) { $0.ingest(HealthObjectsBatch(samples: [sample]), now: $1) }.events
        advance(.zero)
        return sample
    }

    mutating func delete(_ sample: HealthSample) {
        events += node.inject(now: now) { $0.ingest(HealthObjectsBatch(deleted: [DeletedObject(uuid: sample.uuid, type: .sample(sample.type))]), now: $1) }.events
        advance(.zero)
    }

    func named(_ name: String) -> [Event] { events.filter { $0.name == name } }

    /// The event log as bytes (what a byte-for-byte comparison compares).
    var bytes: [UInt8] { events.flatMap { $0.jsonLine + [0x0A] } }
}
