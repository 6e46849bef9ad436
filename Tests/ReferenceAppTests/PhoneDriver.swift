import Foundation
import PairSimApps
@testable import PairSimCore
@testable import PairSimKit
@testable import ReferenceApp

/// Drives the phone — the platform with the reference app on it — in virtual time without
/// sockets: commands, arriving objects and timers, collecting every event. Time only moves when a
/// test says so.
struct PhoneDriver {
    static let topology = Topology(name: "t", nodes: [
        .watch: NodeEndpoints(publish: "ipc://w", control: "ipc://wc", data: "w"),
        .phone: NodeEndpoints(publish: "ipc://p", control: "ipc://pc", data: "p"),
    ])

    var node: PhoneNode
    var now = EmulatedInstant.zero
    var events: [Event] = []
    var uuids = UUIDGenerator(seed: 99, label: "test")

    /// The platform's state (the app's is its own).
    var phone: PhonePlatform { node.platform }

    init(app: String = "reference", _ configure: (inout PhoneConfig) -> Void = { _ in }) {
        var topology = Self.topology
        configure(&topology.phone)
        node = PhoneNode(topology: topology, boot: "test", app: try! AppCatalog.registration(named: app, topology: topology))
        events += node.start(now: now).events
    }

    /// Runs a command that must succeed.
    @discardableResult
    mutating func run(_ text: String) -> CommandResult {
        let result = node.handle(commandText: text, now: now)
        precondition(result.ok, "\(text) failed: \(result.reply)")
        events += result.actions.events
        advance(.zero) // like the node loop: timers due now fire in the same turn
        return result
    }

    /// Runs a command expected to fail; returns its reply.
    mutating func refuse(_ text: String) -> String {
        let result = node.handle(commandText: text, now: now)
        precondition(!result.ok, "\(text) unexpectedly succeeded")
        return result.reply
    }

    /// Moves time forward, firing every timer due on the way, in order.
    mutating func advance(_ duration: EmulatedDuration) {
        let target = now + duration
        while let next = node.nextDeadline, next <= target {
            now = max(now, next)
            events += node.advance(to: now).events
        }
        now = target
        events += node.advance(to: now).events
    }

    /// Objects arrive from the watch.
    mutating func arrive(_ batch: HealthObjectsBatch) {
        events += node.inject(now: now) { $0.ingest(batch, now: $1) }.events
        advance(.zero)
    }

    /// Records arrive through CloudKit.
    mutating func arrive(_ batch: RecordsBatch) {
        events += node.inject(now: now) { $0.receiveRecords(batch, now: $1) }.events
        advance(.zero)
    }

    mutating func sample(_ type: SampleType, _ value: Double, at offset: EmulatedDuration = .zero) -> HealthSample {
        HealthSample(uuid: uuids.next(at: now), type: type, start: now - offset, end: now - offset, value: value, source: .watchApp)
    }

    mutating func workout(minutes: Int64 = 30, source: ObjectSource = .watchApp, energy: Double? = 250) -> Workout {
        Workout(uuid: uuids.next(at: now), activity: "running", start: now - .minutes(minutes), end: now,
                activeDuration: .minutes(minutes), activeEnergy: energy, source: source)
    }

    /// Events named `name` (optionally with field `key` = `value`) since `from`.
    func named(_ name: EventName, from: Int = 0, _ key: String? = nil, _ value: String? = nil) -> [Event] {
        events[from...].filter { event in
            event.name == name.rawValue && (key == nil || event[key!]?.stringValue == value || Event.humanValue(event[key!] ?? .null) == value)
        }
    }

    func count(_ name: EventName, from: Int = 0, _ key: String? = nil, _ value: String? = nil) -> Int {
        named(name, from: from, key, value).count
    }

    /// Marks the current end of the log.
    var mark: Int { events.count }

    /// Time of each event named `name` since `from`, as offsets from `origin`.
    func times(_ name: EventName, from: Int = 0, since origin: EmulatedInstant) -> [EmulatedDuration] {
        named(name, from: from).map { $0.at - origin }
    }

    /// The app's counter `name`.
    func appCount(_ name: String) -> Int { phone.counters.app[name] ?? 0 }

    /// The types of the observer queries the app has registered.
    var observers: [ObjectType] { phone.observerQueries.map(\.type) }
}
