import Foundation
@testable import PairSimCore

/// Drives a phone model in virtual time without sockets: commands, arriving objects and timers,
/// collecting every event. Time only moves when a test says so.
struct PhoneDriver {
    var phone: PhoneModel
    var now = EmulatedInstant.zero
    var events: [Event] = []
    var uuids = UUIDGenerator(seed: 99, label: "test")

    init(_ configure: (inout PhoneConfig) -> Void = { _ in }) {
        var topology = CommandGrammarTests.topology
        configure(&topology.phone)
        phone = PhoneModel(topology: topology, boot: "test")
        events += phone.start(now: now).events
    }

    /// Runs a command that must succeed.
    @discardableResult
    mutating func run(_ text: String) -> CommandResult {
        let result = phone.handle(commandText: text, now: now)
        precondition(result.ok, "\(text) failed: \(result.reply)")
        events += result.actions.events
        advance(.zero) // like the node loop: timers due now fire in the same turn
        return result
    }

    /// Runs a command expected to fail; returns its reply.
    mutating func refuse(_ text: String) -> String {
        let result = phone.handle(commandText: text, now: now)
        precondition(!result.ok, "\(text) unexpectedly succeeded")
        return result.reply
    }

    /// Moves time forward, firing every timer due on the way, in order.
    mutating func advance(_ duration: EmulatedDuration) {
        let target = now + duration
        while let next = phone.nextDeadline, next <= target {
            now = max(now, next)
            events += phone.advance(to: now).events
        }
        now = target
        events += phone.advance(to: now).events
    }

    /// Objects arrive from the watch.
    mutating func arrive(_ batch: HealthObjectsBatch) {
        events += phone.ingest(batch, now: now).events
        advance(.zero)
    }

    /// Records arrive through CloudKit.
    mutating func arrive(_ batch: RecordsBatch) {
        events += phone.receiveRecords(batch, now: now).events
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
}
