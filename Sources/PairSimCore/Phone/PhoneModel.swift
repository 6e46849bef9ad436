import Foundation

/// The iPhone: its HealthKit store and app, fed by both channels from the watch.
public struct PhoneModel: NodeModel {
    public let node = NodeName.phone
    public let topology: Topology
    public let seed: UInt64
    public internal(set) var sync: SyncEngine
    public internal(set) var store = HealthStore()
    public internal(set) var records = RecordStore()
    public internal(set) var counters = PhoneCounters()
    /// True when `restore` found earlier state.
    public internal(set) var restored = false

    public init(topology: Topology, boot: String) {
        self.topology = topology
        seed = topology.seed(for: .phone)
        sync = SyncEngine(node: .phone, boot: boot, seed: seed, channels: topology.channels,
                          reliability: topology.reliability, limits: topology.wire)
    }

    func event(_ name: EventName, _ now: EmulatedInstant, level: Event.Level = .info, _ fields: JSONObject = [:]) -> NodeAction {
        .emit(Event(at: now, node: .phone, name, level: level, fields: fields))
    }

    public var nextDeadline: EmulatedInstant? { sync.nextDeadline }

    public mutating func start(now: EmulatedInstant) -> [NodeAction] {
        [event(.nodeStarted, now, [
            "seed": .int(Int64(seed)), "topology": .string(topology.name), "boot": .string(sync.boot),
            "timeScale": .double(topology.timeScale), "restored": .bool(restored),
        ])]
    }

    public mutating func peerConnected(now: EmulatedInstant) -> [NodeAction] {
        [.publish(sync.helloFrame(now: now))] + sync.peerAppeared(now: now)
    }

    public mutating func advance(to now: EmulatedInstant) -> [NodeAction] {
        sync.advance(to: now)
    }

    public func stop(now: EmulatedInstant) -> [NodeAction] {
        [event(.nodeStopped, now, counters.json(sync: sync))]
    }
}

/// What the phone has done, for `status` and its stop event.
public struct PhoneCounters: Hashable, Sendable {
    public var workoutsSaved = 0
    public var samplesSaved = 0
    public var recordsSaved = 0

    func json(sync: SyncEngine) -> JSONObject {
        var o: JSONObject = [
            "workouts": .int(Int64(workoutsSaved)), "samples": .int(Int64(samplesSaved)), "records": .int(Int64(recordsSaved)),
        ]
        for channel in Channel.allCases {
            let c = sync.counters(channel)
            o.append("\(channel).received", .int(Int64(c.receivedMessages)))
            o.append("\(channel).duplicates", .int(Int64(c.duplicatesDropped)))
        }
        o.append("wire.rejected", .int(Int64(sync.rejected.values.reduce(0, +))))
        return o
    }
}
