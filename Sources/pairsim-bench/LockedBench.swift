#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import PairSimCore

/// A bulk write that reaches a locked phone: every batch is held (durably) until unlock, then
/// merged into the store in one turn. Per-turn persistence must cost what changed, not what is
/// held, or this grows quadratically (R: K1).
struct LockedBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locked",
        abstract: "A bulk write to a locked phone (held durably, merged at unlock) against the same write unlocked, in one run.")

    @Option(help: "Heart-rate samples to write.")
    var samples = 1_000_000

    func run() throws {
        let port = 19_000 + Int(getpid() % 1_000) * 2
        report("== locked bulk-write benchmark (release build, \(samples) heart-rate samples, \(ProcessInfo.processInfo.activeProcessorCount) cores)")

        let unlocked = try BenchPair(name: "unlocked", yamlExtra: "", basePort: port)
        let plain = try unlocked.writeSamplesAcknowledged(samples)
        try waitForSamples(unlocked, samples)
        let plainRSS = unlocked.peakRSS()
        unlocked.stop()
        report("baseline, phone unlocked: written and acknowledged durable in \(format(plain, 2)) s = \(human(Double(samples) / plain)) samples/s; peak RSS watch \(plainRSS[.watch]!) MB, phone \(plainRSS[.phone]!) MB")

        let pair = try BenchPair(name: "locked", yamlExtra: "", basePort: port)
        defer { pair.stop() }
        _ = try pair.ctl(.phone, "lock")
        let held = try pair.writeSamplesAcknowledged(samples)
        let phone = try JSONParser().parse(try pair.ctl(.phone, "status --json"))
        guard phone["stores"]?["heldUntilUnlock"]?.intValue == Int64(samples) else {
            throw BenchError("the locked phone does not hold every sample: \(JSONWriter.string(phone["stores"] ?? .null))")
        }
        let t0 = monotonicNanoseconds()
        _ = try pair.ctl(.phone, "unlock", timeoutSeconds: 300)
        try waitForSamples(pair, samples)
        let merged = Double(monotonicNanoseconds() - t0) / 1e9
        let rss = pair.peakRSS()
        report("phone locked: written, held and acknowledged durable in \(format(held, 2)) s = \(human(Double(samples) / held)) samples/s (\(format(held / plain, 2))× the unlocked time)")
        report("  unlock: \(samples) held samples merged into the store (durable) in \(format(merged, 2)) s; peak RSS watch \(rss[.watch]!) MB, phone \(rss[.phone]!) MB")
    }

    func waitForSamples(_ pair: BenchPair, _ count: Int) throws {
        let deadline = monotonicNanoseconds() + 600_000_000_000
        while true {
            let status = try JSONParser().parse(try pair.ctl(.phone, "status --json", timeoutSeconds: 60))
            if status["stores"]?["samples"]?.intValue == Int64(count) { return }
            guard monotonicNanoseconds() < deadline else { throw BenchError("the phone's store did not reach \(count) samples within 600 s") }
            usleep(5_000)
        }
    }
}
