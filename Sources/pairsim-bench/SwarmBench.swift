import ArgumentParser
import Foundation
import PairSimRuntime

/// `topology swarm` with the nemesis over week-long seeds: seeds per second on this machine.
struct SwarmBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "swarm",
        abstract: "topology swarm --nemesis over week-of-normal-life: seeds per second (each seed is a nemesis run, checked against its fault-free twin where a verdict needs it).")

    @Option(help: "Seeds per run.")
    var seeds = 200

    @Option(help: "Runs (the median is reported).")
    var runs = 3

    func run() throws {
        let bin = URL(fileURLWithPath: Bundle.main.executablePath ?? CommandLine.arguments[0]).deletingLastPathComponent().path
        let scenario = "Topologies/scenarios/week-of-normal-life.yaml"
        report("== swarm benchmark (release build, \(scenario), \(seeds) seeds with the nemesis, \(ProcessInfo.processInfo.activeProcessorCount) cores)")
        // Baseline, same run: the same seeds without the nemesis — one simulated week per seed, no
        // invariants — the floor a nemesis seed sits on (its week with faults, restarts and, 1 in 16,
        // the real storage; the invariants; its fault-free twin only where a verdict needs it).
        func swarm(_ index: Int, nemesis: Bool) throws -> Double {
            let (status, output) = try ChildProcess.run(bin + "/topology", ["swarm", scenario, "--seeds", String(seeds), "--from", String(index * 100_000)]
                                                        + (nemesis ? ["--nemesis"] : []))
            guard status == 0, let line = output.split(separator: "\n").last(where: { $0.hasPrefix("swarm ") }),
                  let open = line.range(of: "s ("), let close = line.range(of: " seeds/s") else {
                throw BenchError("topology swarm failed (status \(status)):\n\(output.suffix(2_000))")
            }
            report("run \(index): \(line)")
            return Double(line[open.upperBound..<close.lowerBound]) ?? 0
        }
        var rates: [Double] = [], plain: [Double] = []
        for index in 1...runs {
            plain.append(try swarm(index, nemesis: false))
            rates.append(try swarm(index, nemesis: true))
        }
        let median = percentile(rates, 0.5), baseline = percentile(plain, 0.5)
        report("baseline: median \(format(baseline, 1)) seeds/s without the nemesis (one simulated week per seed)")
        report("median \(format(median, 1)) week-long seeds/s with the nemesis (goal ≥ 100): \(format(10_000 / median, 0)) s for 10,000 seeds; "
               + "\(format(median / baseline, 2))× the baseline")
    }
}
