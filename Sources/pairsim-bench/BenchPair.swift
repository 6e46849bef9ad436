#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PairSimConfig
import PairSimCore
import PairSimRuntime

/// A watch-node/phone-node pair started from the binaries next to this one, for measurements.
final class BenchPair {
    let directory: String
    let topology: Topology
    var processes: [ChildProcess] = []

    init(name: String, yamlExtra: String, basePort: Int) throws {
        directory = NSTemporaryDirectory() + "pairsim-bench-\(name)-\(getpid())"
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let yaml = """
            name: bench-\(name)
            seed: 1
            timeScale: 1
            nodes:
              watch: { publish: "tcp://127.0.0.1:\(basePort)", control: "ipc://\(directory)/w.ctl", data: "\(directory)/watch" }
              phone: { publish: "tcp://127.0.0.1:\(basePort + 1)", control: "ipc://\(directory)/p.ctl", data: "\(directory)/phone" }
            channels:
              healthkit: { latency: 0 }
              cloudkit: { latency: 0 }
            watch:
              heartRate: { restingInterval: off }
            \(yamlExtra)
            """
        let path = directory + "/topology.yaml"
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        topology = try TopologyLoader.load(path: path)
        let bin = URL(fileURLWithPath: Bundle.main.executablePath ?? Swift.CommandLine.arguments[0]).deletingLastPathComponent().path
        let epoch = Int64(Date().timeIntervalSince1970 * 1_000)
        for node in NodeName.allCases {
            var launch = NodeLaunch(node: node, topologyPath: path, epochUnixMilliseconds: epoch)
            launch.quiet = true
            launch.dataDirectory = topology.nodes[node]!.data
            // As the topology launcher does: a node whose benchmark is gone stops too.
            launch.parentPID = getpid()
            processes.append(try launch.start(binDirectory: bin, output: .errorsOnly))
        }
        for (node, process) in zip(NodeName.allCases, processes) {
            try process.waitUntilAnswering(control: topology.nodes[node]!.control, seconds: 10)
        }
    }

    deinit { stop() }

    func ctl(_ node: NodeName, _ command: String, timeoutSeconds: Int32 = 10) throws -> String {
        let reply = try ControlClient(endpoint: topology.nodes[node]!.control, timeoutMilliseconds: timeoutSeconds * 1_000).send(command)
        guard reply.ok else { throw BenchError("\(node) refused \(command): \(reply.text)") }
        return reply.text
    }

    /// Writes `count` heart-rate samples on the watch and waits until the phone acknowledged all
    /// of them (durable there); seconds.
    func writeSamplesAcknowledged(_ count: Int) throws -> Double {
        let t0 = monotonicNanoseconds()
        _ = try ctl(.watch, "write-samples hr \(count)", timeoutSeconds: 300)
        let deadline = monotonicNanoseconds() + 600_000_000_000
        while true {
            let status = try JSONParser().parse(try ctl(.watch, "status --json", timeoutSeconds: 60))
            if status["channels"]?["healthkit"]?["pending"]?.intValue == 0, status["bulkWrite"] == .null { break }
            guard monotonicNanoseconds() < deadline else { throw BenchError("the phone did not acknowledge everything within 600 s") }
            usleep(5_000)
        }
        return Double(monotonicNanoseconds() - t0) / 1e9
    }

    /// Peak resident set size (VmHWM) of each node process so far, in MB.
    func peakRSS() -> [NodeName: Int] {
        var result: [NodeName: Int] = [:]
        for (node, process) in zip(NodeName.allCases, processes) {
            let status = (try? String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
            result[node] = (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1_024
        }
        return result
    }

    func stop() {
        ChildProcess.stopAll(processes)
        processes = []
        try? FileManager.default.removeItem(atPath: directory)
    }
}
