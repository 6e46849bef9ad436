import ArgumentParser
import Foundation
import PairSimApps
import PairSimCore
import PairSimKit
import PairSimRuntime

/// The phone's one-sample turn without sockets (`TurnCost`): the part of the single-sample
/// latency that PairSim's own code decides, steady enough to compare two builds in one run.
struct TurnBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "turn",
        abstract: "The phone's one-sample turn in one process, no sockets: decode, model, values, journal; its events held.")

    @Option(help: "Turns per block.")
    var turns = 4_000

    @Option(help: "Blocks (each on a fresh phone and data directory).")
    var blocks = 5

    @Option(help: "Bytes written over between turns, evicting the turn's code and data from the caches as the probe's other processes do (0: a hot loop).")
    var evictBytes = 4 << 20

    @Option(help: "Microseconds the thread sleeps between turns, as the phone waits for the next frame (its CPU goes idle and other work takes the caches).")
    var pauseMicroseconds = 2_000

    func run() throws {
        report("== phone one-sample turn (release build, \(blocks) blocks × \(turns) turns, no sockets; \(evictBytes) bytes written over and \(pauseMicroseconds) µs asleep between turns)")
        let topology = Topology(name: "turn-cost", nodes: [
            .watch: NodeEndpoints(publish: "ipc://unused-w", control: "ipc://unused-wc", data: "unused-w"),
            .phone: NodeEndpoints(publish: "ipc://unused-p", control: "ipc://unused-pc", data: "unused-p"),
        ])
        var toAck: [Double] = [], whole: [Double] = []
        for block in 0..<blocks {
            let directory = NSTemporaryDirectory() + "pairsim-turn-\(getpid())-\(block)"
            defer { try? FileManager.default.removeItem(atPath: directory) }
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let phone = PhoneNode(topology: topology, boot: "turn-cost", app: try AppCatalog.registration(named: "reference", topology: topology))
            let samples = try TurnCost.phoneOneSample(model: phone, turns: turns, directory: directory, evictBytes: evictBytes, pauseMicroseconds: pauseMicroseconds)
            // The first turns warm caches and the journal's file: left out.
            toAck += samples.dropFirst(100).map(\.toAck)
            whole += samples.dropFirst(100).map(\.whole)
        }
        report("frame taken → ack handed to ZeroMQ: p50 \(format(percentile(toAck, 0.5), 1)) µs, p90 \(format(percentile(toAck, 0.9), 1)) µs")
        report("whole turn (its events held, to be written when the node idles): p50 \(format(percentile(whole, 0.5), 1)) µs, p90 \(format(percentile(whole, 0.9), 1)) µs")
    }
}
