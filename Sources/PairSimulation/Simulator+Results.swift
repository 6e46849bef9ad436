import PairSimCore

/// What a finished run leaves to read: the stores, what waits, the event log (for verdicts,
/// reports and the nemesis's summary).
extension Simulator {
    /// The watch's HealthKit store at the end.
    public var watchStore: HealthStore { watch.platform.store }
    /// The phone's records at the end.
    public var phoneRecords: RecordStore { phone.platform.records }
    /// `3 node kills (watch 1, phone 2), 2 partitions` of a run's nemesis.
    public static func nemesisSummary(_ sim: Simulator) -> String {
        let partitions = sim.timeline.filter { $0.byNemesis && $0.entry.command == "out-of-range" }.count
        let bursts = Channel.allCases.reduce(0) { $0 + sim.topology.channel($1).bursts.count }
        return "\(sim.kills[.watch]! + sim.kills[.phone]!) node kill(s) (watch \(sim.kills[.watch]!), phone \(sim.kills[.phone]!)), "
            + "\(partitions) partition(s), \(bursts) fault burst(s)"
            + (sim.runsRealStorage ? ", real storage with \(sim.storageFaults.count) storage fault(s)" : "")
            + (sim.refusedUnderNemesis.isEmpty ? "" : "; \(sim.refusedUnderNemesis.count) timeline command(s) refused under it (first: \(sim.refusedUnderNemesis[0]))")
    }

    /// When the oldest message a node still waits to have acknowledged was made.
    public func oldestPending(_ node: NodeName) -> EmulatedInstant? {
        Channel.allCases.compactMap { node == .watch ? watch.platform.sync.oldestPending($0) : phone.platform.sync.oldestPending($0) }.min()
    }

    /// What reached the phone but waits there: objects held while locked, records in the
    /// CloudKit container until the app runs.
    public var phoneWaiting: (held: HealthObjectsBatch, container: RecordsBatch) { (phone.platform.lockBuffer, phone.platform.container) }

    /// The phone's app state at the end.
    public var phoneAppState: String { phone.platform.app.rawValue }

    /// The phone's HealthKit store at the end (for the report's charts).
    public var phoneStore: HealthStore { phone.platform.store }

    /// The event log as JSON lines: identical bytes for the same scenario and seed.
    public var eventLog: [UInt8] {
        var bytes: [UInt8] = []
        for event in events {
            event.writeJSONLine(into: &bytes)
            bytes.append(0x0A)
        }
        return bytes
    }
}
