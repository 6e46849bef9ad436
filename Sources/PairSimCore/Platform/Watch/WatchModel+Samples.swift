import Foundation

/// `write-sample`: one sample saved now, as if another app or the watch itself wrote it.
extension WatchModel {
    mutating func writeSample(_ args: ArgumentReader, now: EmulatedInstant) throws(CommandError) -> CommandResult {
        try args.expect(2...2, options: ["duration"])
        let (type, value, duration) = try args.sampleValue()
        let start = max(.zero, now - duration)
        let sample = HealthSample(uuid: uuids.next(at: now), type: type, start: stamp(start), end: stamp(now), value: value, source: .watchApp)
        let (saved, ops) = store.save(workouts: [], samples: [sample])
        counters.samplesWritten += saved.samples.count
        let actions = ops.map(NodeAction.persist) + [
            event(.sampleWritten, now, ["uuid": .string(sample.uuid.text), "type": .string(type.rawValue), "value": .double(value)]),
        ] + sendObjects(HealthObjectsBatch(samples: saved.samples), now: now)
        return ok("wrote \(type.rawValue) \(args.argument(1)!) uuid=\(sample.uuid.text)", actions)
    }
}
