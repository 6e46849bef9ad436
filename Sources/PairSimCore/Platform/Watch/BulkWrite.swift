/// `write-samples`: many samples with plausible values, written and sent one message-sized batch
/// per loop turn, so the phone starts taking them while the watch is still writing (and a kill
/// mid-way resumes where it stopped: the job is persisted with each batch).
public struct BulkWrite: Hashable, Sendable {
    public var type: SampleType
    public var total: Int
    public var done = 0
    public var first: EmulatedInstant
    public var span: EmulatedDuration
    package var random: SplitMix64

    public var json: JSON {
        .object(["type": .string(type.rawValue), "total": .int(Int64(total)), "done": .int(Int64(done)),
                 "first": .int(first.milliseconds), "span": .int(span.milliseconds),
                 "random": .int(Int64(bitPattern: random.state))])
    }

    public init(type: SampleType, total: Int, first: EmulatedInstant, span: EmulatedDuration, seed: UInt64) {
        self.type = type
        self.total = total
        self.first = first
        self.span = span
        random = SplitMix64(seed: seed)
    }

    /// The job the turn journal spelled as `json`; a member missing or out of range is an error naming it.
    public init(json: JSON) throws(DecodeError) {
        guard let object = json.objectValue else { throw DecodeError(path: "watch.bulk", reason: "expected an object") }
        let r = FieldReader(object, path: "watch.bulk")
        let name = try r.string("type")
        guard let type = SampleType(rawValue: name) else { throw DecodeError(path: "watch.bulk.type", reason: "unknown sample type \(name)") }
        let total = try r.int("total", min: 0, max: Int64(Int32.max))
        self.init(type: type, total: Int(total), first: EmulatedInstant(milliseconds: try r.int("first")), span: .milliseconds(try r.int("span", min: 0)),
                  seed: 0)
        done = Int(try r.int("done", min: 0, max: total))
        random.state = UInt64(bitPattern: try r.int("random"))
    }

    /// The next `count` samples' times and values.
    mutating func next(_ count: Int) -> [(EmulatedInstant, Double)] {
        let range = type.validRange
        let typical = type == .heartRate ? 60.0...180.0 : type == .sleepAnalysis ? 0.0...5.0 : range
        var result: [(EmulatedInstant, Double)] = []
        result.reserveCapacity(count)
        for index in done..<min(total, done + count) {
            let at = first + .milliseconds(total > 1 ? span.milliseconds * Int64(index) / Int64(total - 1) : 0)
            var value = random.uniform(typical.lowerBound, typical.upperBound)
            value = type == .sleepAnalysis ? value.rounded(.down) : value.roundedToTenth
            result.append((at, min(value, range.upperBound)))
        }
        done += result.count
        return result
    }
}

extension WatchModel {
    /// Starts a bulk write of `count` samples ending now, one per `every` (squeezed to fit after time zero).
    mutating func writeSamples(_ args: ArgumentReader, now: EmulatedInstant) throws(CommandError) -> CommandResult {
        try args.expect(2...2, options: ["every"])
        let type = try args.sampleType(0)
        guard bulk == nil else { throw CommandError("write-samples: a bulk write is in progress (\(bulk!.done) of \(bulk!.total))") }
        let count = try args.integer(1, name: "count", in: 1...10_000_000)
        let every = try args.duration(option: "every") ?? .seconds(1)
        guard every > .zero else { throw CommandError("write-samples: --every must be above 0") }
        let (span, overflow) = every.milliseconds.multipliedReportingOverflow(by: Int64(count - 1))
        guard !overflow, span < 1 << 50 else { throw CommandError("write-samples: \(count) samples every \(every) span more time than can be written") }
        let first = max(.zero, now - .milliseconds(span))
        bulk = BulkWrite(type: type, total: count, first: first, span: now - first, seed: seed &+ UInt64(counters.samplesWritten))
        // The id set grows once to its final size rather than doubling (and rehashing) as it fills.
        store.reserveCapacity([type: count])
        let batch = messageBatch
        return ok("writing \(count) \(type.rawValue) samples from \(first) to \(now) in batches of \(batch); samples.written reports the end",
                  continueBulkWrite(now: now))
    }

    /// Writes and sends the next batch of the bulk write in progress.
    mutating func continueBulkWrite(now: EmulatedInstant) -> [NodeAction] {
        guard var job = bulk else { return [] }
        guard sync.hasRoom(.healthkit) else { return [] }
        let batch = messageBatch
        var samples: [HealthSample] = []
        samples.reserveCapacity(batch)
        for (at, value) in job.next(batch) {
            samples.append(HealthSample(uuid: uuids.next(at: at), type: job.type, start: stamp(at), end: stamp(at), value: value, source: .watchApp))
        }
        let (saved, ops) = store.save(workouts: [], samples: samples)
        counters.samplesWritten += saved.samples.count
        var actions = ops.map(NodeAction.persist) + sendObjects(HealthObjectsBatch(samples: saved.samples), now: now, savedAt: store.anchor)
        if job.done >= job.total {
            bulk = nil
            actions.append(event(.samplesWritten, now, ["type": .string(job.type.rawValue), "count": .int(Int64(job.total)),
                                                       "from": .string(job.first.description), "to": .string((job.first + job.span).description)]))
        } else {
            bulk = job
        }
        return actions
    }
}
