#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import PairSimCore
import PairSimRuntime
import ZeroMQ

struct SyncBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Raw ZeroMQ PUB/SUB vs PairSim's durable end-to-end sample sync, throughput and latency, in one run.")

    @Option(help: "Messages for the raw ZeroMQ throughput run.")
    var messages = 1_000_000

    @Option(help: "Heart-rate samples for the PairSim throughput run.")
    var samples = 1_000_000

    @Option(help: "Rounds of the throughput runs, each a C baseline then PairSim on a fresh pair; the goal is judged on their medians.")
    var throughputRounds = 3

    @Option(help: "Single-sample round trips for the latency runs.")
    var rounds = 300

    @Option(help: "The nodes' sync.durability: kill (the default) or power (each turn's journal entry synced).")
    var durability = "kill"

    func validate() throws {
        guard throughputRounds >= 1 else { throw ValidationError("--throughput-rounds must be at least 1, got \(throughputRounds)") }
    }

    func run() throws {
        let port = 17_000 + Int(getpid() % 1_000) * 6
        report("== sync benchmark (release build, tcp loopback, \(ProcessInfo.processInfo.activeProcessorCount) cores, sync.durability: \(durability))")
        // Throughput in interleaved rounds, each a C baseline then a fresh pair: on a shared 2-core
        // machine the C baseline alone read anywhere from 1.16 to 3.30 M msg/s within an hour, so
        // one reading of each decided the goal by the noise of the moment. The goal is judged on
        // the medians of the same run.
        var baselines: [Double] = [], rates: [Double] = []
        var pair: BenchPair!
        for round in 1...throughputRounds {
            // Gone before the next is made (its directory is removed as it goes); the last
            // round's pair stays for the latency runs.
            pair = nil
            let c = try CZeroMQSide.throughput(endpoint: "tcp://127.0.0.1:\(port + 3)", count: messages, size: 100)
            baselines.append(c)
            pair = try BenchPair(name: "sync", yamlExtra: "sync: { durability: \(durability) }", basePort: port + 2)
            let total = try pair.writeSamplesAcknowledged(samples)
            let phoneStatus = try JSONParser().parse(try pair.ctl(.phone, "status --json"))
            guard phoneStatus["stores"]?["samples"]?.intValue == Int64(samples) else {
                throw BenchError("phone did not store every sample: \(JSONWriter.string(phoneStatus))")
            }
            rates.append(Double(samples) / total)
            report("round \(round) of \(throughputRounds): raw libzmq PUB/SUB between two C processes, \(messages) × 100 B: \(human(c)) msg/s; "
                   + "PairSim end to end, \(samples) heart-rate samples, watch store → phone's durable store (acknowledged): \(format(total, 2)) s = \(human(rates.last!)) samples/s"
                   + " (ratio \(format(rates.last! / c, 3)))")
        }
        defer { pair.stop() }
        let c = percentile(baselines, 0.5), rate = percentile(rates, 0.5)
        report("raw libzmq PUB/SUB between two C processes: median \(human(c)) msg/s over \(throughputRounds) rounds (the baseline)")
        let raw = try ZeroMQBench.throughput(endpoint: "tcp://127.0.0.1:\(port)", count: messages, size: 100)
        report("raw ZeroMQ PUB/SUB through the wrapper, in one process: \(messages) × 100 B in one direction: \(human(raw)) msg/s")
        report("PairSim end to end: median \(human(rate)) samples/s over \(throughputRounds) rounds")
        // Issue 30's goal against this same-run baseline (an earlier wave's was 0.33×).
        let ratio = rate / c
        report("  ratio of the medians to the C baseline: \(format(ratio, 3)) (goal: ≥ 0.75, stretch 0.8, and ≥ 1 M samples/s durable: "
               + "\(ratio >= 0.75 && rate >= 1e6 ? "met" : "not met")); to the wrapper in one process: \(format(rate / raw, 3))")
        // The three latencies in interleaved blocks, so that a change in the machine's load between
        // them (±30 % within minutes on a shared 2-core machine) does not skew their ratios.
        let blocks = 5, share = max(1, rounds / blocks)
        var rawLatency: [Double] = [], echo: [Double] = [], latency: [Double] = []
        var overtaken = 0
        for _ in 0..<blocks {
            rawLatency += try ZeroMQBench.latency(endpoint: "tcp://127.0.0.1:\(port + 1)", count: share * 10)
            // Context for the single-sample latency: the same three processes and fan-out, no work.
            echo += try CZeroMQSide.echoFloor(watch: "tcp://127.0.0.1:\(port + 4)", phone: "tcp://127.0.0.1:\(port + 5)", count: max(share, 20))
            let (measured, left) = try singleSampleLatency(pair, rounds: share)
            latency += measured
            overtaken += left
        }
        report("raw ZeroMQ one-way latency: p50 \(format(percentile(rawLatency, 0.5), 1)) µs, p99 \(format(percentile(rawLatency, 0.99), 1)) µs")
        report("C echo in the probe's topology (watch, phone acknowledging at once, this probe; no work): p50 \(format(percentile(echo, 0.5), 1)) µs, p99 \(format(percentile(echo, 0.99), 1)) µs")
        guard !latency.isEmpty else { throw BenchError("every ack overtook its frame on the way to this process: no latency measured") }
        report("PairSim single sample, zero configured latency, watch publish → phone acknowledgement (durable): p50 \(format(percentile(latency, 0.5), 1)) µs, p99 \(format(percentile(latency, 0.99), 1)) µs, max \(format(latency.max()! / 1_000, 1)) ms over \(latency.count) round(s)"
               + (overtaken > 0 ? " (\(overtaken) left out: the ack reached this process before the frame)" : "")
               + " (raw one-way p50 \(format(percentile(rawLatency, 0.5), 1)) µs, p99 \(format(percentile(rawLatency, 0.99), 1)) µs; goal: p50 ≤ 3× raw)")
        report("  p50 ratio to raw one-way: \(format(percentile(latency, 0.5) / percentile(rawLatency, 0.5), 2)) (goal ≤ 3); to the C echo: \(format(percentile(latency, 0.5) / percentile(echo, 0.5), 2))"
               + " (\(blocks) interleaved blocks of each)")
    }

    /// The integer after the first `key` (with its quotes and colon) in an envelope's bytes: inside
    /// a JSON string every quote is escaped, so the first match is the member itself. A full JSON
    /// parse here ran while the phone worked on the frame, on one of the same two cores.
    static func integer(after key: String, in bytes: [UInt8]) -> Int64? {
        let key = Array(key.utf8)
        guard bytes.count > key.count else { return nil }
        for start in 0...(bytes.count - key.count) where bytes[start] == key[0] && bytes[start..<(start + key.count)].elementsEqual(key) {
            var value: Int64 = 0, index = start + key.count
            while index < bytes.count, (48...57).contains(bytes[index]) { value = value * 10 + Int64(bytes[index] - 48); index += 1 }
            return index > start + key.count ? value : nil
        }
        return nil
    }

    /// Times each sample from its frame on the watch's PUB to the phone's ack on the phone's PUB.
    /// The two feeds are separate connections, so the ack can reach this process before the frame
    /// it acknowledges: acks are kept (highest `upTo` and when it came) whatever the order, and a
    /// round whose ack overtook its frame is counted and left out of the latencies (its one-way
    /// time cannot be read here) rather than waited on until a timeout.
    func singleSampleLatency(_ pair: BenchPair, rounds: Int) throws -> (latencies: [Double], overtaken: Int) {
        let context = try Context()
        let watchFeed = try Socket(context, .sub)
        try watchFeed.subscribe("hk.")
        try watchFeed.connect(pair.topology.nodes[.watch]!.publish)
        let phoneFeed = try Socket(context, .sub)
        try phoneFeed.subscribe("ack.hk")
        try phoneFeed.connect(pair.topology.nodes[.phone]!.publish)
        let control = try Socket(context, .req)
        try control.connect(pair.topology.nodes[.watch]!.control)
        usleep(300_000)
        var poller = Poller()
        poller.add(watchFeed)
        poller.add(phoneFeed)
        poller.add(control)
        var latencies: [Double] = []
        var overtaken = 0
        // The highest sequence number acknowledged so far and when that ack arrived, across rounds.
        var ackedUpTo: Int64 = -1
        var ackArrived: UInt64 = 0
        for _ in 0..<rounds {
            try control.send("write-sample hr 80")
            var sentSeq: Int64?
            var sentAt: UInt64 = 0
            var replied = false
            let deadline = monotonicNanoseconds() + 30_000_000_000
            func acknowledged() -> Bool { sentSeq.map { ackedUpTo >= $0 } ?? false }
            while !(acknowledged() && replied), monotonicNanoseconds() < deadline {
                let ready = try poller.poll(timeoutMilliseconds: 100)
                while let frames = try watchFeed.receiveMultipart(dontWait: true) {
                    sentAt = monotonicNanoseconds()
                    sentSeq = Self.integer(after: #""seq":"#, in: frames[1])
                }
                while let frames = try phoneFeed.receiveMultipart(dontWait: true) {
                    // Stamped on arrival, before this probe parses it (as the frame is).
                    let arrived = monotonicNanoseconds()
                    let upTo = Self.integer(after: #""upTo":"#, in: frames[1]) ?? -1
                    if upTo > ackedUpTo { ackedUpTo = upTo; ackArrived = arrived }
                }
                if ready[2].contains(.readable), try control.receiveMultipart(dontWait: true) != nil { replied = true }
            }
            guard acknowledged(), sentAt > 0 else {
                throw BenchError("sample \(latencies.count + overtaken + 1) was not acknowledged within 30 s (seen on the watch: \(sentSeq.map(String.init) ?? "nothing"), reply: \(replied))")
            }
            if ackArrived >= sentAt { latencies.append(Double(ackArrived - sentAt) / 1_000) } else { overtaken += 1 }
            usleep(2_000)
        }
        return (latencies, overtaken)
    }
}
