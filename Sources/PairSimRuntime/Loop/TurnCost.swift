import Foundation
import PairSimCore
import PairSimKit

/// The CPU cost of the phone's one-sample turn, in one process with no sockets: what the node
/// loop does between taking an `hk.objects` frame with one heart-rate sample and handing its ack to
/// ZeroMQ — decode, the model, the changed values, the journal append — then holding the events it
/// logs, which the node writes when it next idles (`EventSink`) and this renders after the turn.
///
/// The single-sample latency probe (`pairsim-bench sync`) measures this turn plus three processes'
/// sockets and scheduling on two cores, which swings ±30 % within minutes on a shared machine;
/// this isolates the part PairSim's own code decides, so a change to it can be compared in one run.
package enum TurnCost {
    /// Per-turn wall times in microseconds: up to the ack leaving (`toAck`) and the whole turn.
    package struct Sample: Sendable {
        package var toAck: Double
        package var whole: Double
    }

    /// Runs `turns` one-sample turns through `model` (a phone built as the node builds it) with its
    /// storage in `directory`, settling the journal after each turn as the idle loop does.
    package static func phoneOneSample(model: PhoneNode, turns: Int, directory: String, evictBytes: Int = 0, pauseMicroseconds: Int = 0) throws -> [Sample] {
        var model = model
        let storage = try JournaledStorage(directory: directory)
        var loopTurns = NodeTurns()
        var now = EmulatedInstant(milliseconds: 1_000)
        _ = try loopTurns.boot(&model, from: try storage.load(), now: now)
        var uuids = UUIDGenerator(seed: 7, label: "turn-cost")
        var log: [UInt8] = []
        var held: [Event] = []
        var evict = [UInt64](repeating: 1, count: evictBytes / 8)
        var samples: [Sample] = []
        samples.reserveCapacity(turns)
        for seq in 1...turns {
            now = now + .seconds(1)
            let sample = HealthSample(uuid: uuids.next(at: now), type: .heartRate, start: now, end: now, value: 80, source: .watchApp)
            let envelope = Envelope(from: .watch, stream: "turn-cost", seq: UInt64(seq), sentAt: now, channel: .healthkit, kind: .objects, body: [:])
            let frame = WireCodec.encode(envelope, body: HealthObjectsBatch(samples: [sample]).bodyBytes)
            let frames = [Array(frame.topic.utf8), frame.payload]
            var acks = 0
            let start = DispatchTime.now().uptimeNanoseconds
            var acked: UInt64 = 0
            let actions = model.receive(frames: frames, now: now)
            try loopTurns.carryOut(actions, values: model.changedValues(),
                commit: { try storage.commit($0, values: $1) },
                publish: { if $0.topic == "ack.hk" { acks += 1; acked = DispatchTime.now().uptimeNanoseconds } },
                emit: { held.append($0) })
            let end = DispatchTime.now().uptimeNanoseconds
            for event in held { event.writeJSONLine(into: &log) }
            held.removeAll(keepingCapacity: true)
            guard acks == 1 else { throw RuntimeError("turn \(seq) sent \(acks) acks, expected 1") }
            samples.append(Sample(toAck: Double(acked - start) / 1_000, whole: Double(end - start) / 1_000))
            try storage.settle()
            if log.count > 1 << 20 { log.removeAll(keepingCapacity: true) }
            // Between the probe's turns the other processes run: their data pushes the phone's
            // out of the caches. Writing over `evictBytes` does the same here.
            evict.withUnsafeMutableBufferPointer { buffer in
                for index in stride(from: 0, to: buffer.count, by: 8) { buffer[index] &+= 1 }
            }
            if pauseMicroseconds > 0 { usleep(UInt32(pauseMicroseconds)) }
        }
        return samples
    }
}
