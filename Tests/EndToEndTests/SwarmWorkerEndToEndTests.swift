#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PairSimCore
import PairSimRuntime
import Synchronization
import Testing
import TestSupport

// The suite "End to end: topology swarm" (ScenarioEndToEndTests.swift): its worker processes.
extension SwarmEndToEndTests {
    @Test("a swarm worker killed with kill -9 is named with the seed it ran; the other worker runs every seed left", .timeLimit(.minutes(5)))  // R: V4
    func workerKilled() async throws {
        let dir = try ResultsEndToEndTests.temporary("swarm-killed")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Every seed on the real storage, so the worker dies holding its seed's disks.
        let file = try Self.oneKill(in: dir, realStorage: true)
        let results = dir + "/results"
        // The swarm's temporary directory: empty again once it has ended, the killed worker's files included.
        let temporary = dir + "/tmp"
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = temporary
        let (status, output) = try await PairHarness.offPool { [environment] () throws -> (Int32, String) in
            let lines = Mutex<[String]>([])
            let swarm = try ChildProcess(name: "swarm", executable: PairHarness.binDirectory + "/topology",
                                         arguments: ["swarm", file, "--seeds", "30", "--jobs", "2", "--results", results],
                                         output: .lines { line in lines.withLock { $0.append(line) } }, environment: environment)
            // The first worker seen to have started on its work (its own program, some CPU spent:
            // past reading its first seed) dies, in whichever seed it holds: it holds one at a time.
            var killed = false
            while !killed, swarm.isRunning {
                if let worker = Self.children(of: swarm.pid).first(where: Self.isWorking) {
                    kill(worker, SIGKILL)
                    killed = true
                } else {
                    usleep(1_000)
                }
            }
            swarm.waitUntilExit()
            ChildProcess.stopAll([swarm], signal: nil)
            return (swarm.terminationStatus, lines.withLock { $0.joined(separator: "\n") })
        }
        expectEqual(status, 1, "\(output)")
        expectEqual(try FileManager.default.contentsOfDirectory(atPath: temporary), [], "left in the swarm's TMPDIR")
        let lines = try String(contentsOfFile: results + "/shard-1-of-1.jsonl", encoding: .utf8).split(separator: "\n").dropFirst()
        let ran: Set<Int64> = Set(lines.compactMap { line -> Int64? in (try? JSONParser().parse(String(line)))?["seed"]?.exactIntValue })
        let all: Set<Int64> = Set((1...30).map { Int64($0) })
        if let match = output.firstMatch(of: #/swarm worker [01] was killed by signal 9 while it ran seed (\d+)/#) {
            // Every seed but the one it held ran, on the other worker.
            let held: Int64 = Int64(match.1) ?? 0
            expectEqual(ran, all.subtracting([held]), "\(output)")
            expect(output.contains("swarm one-kill --nemesis: 29 seed(s) from 1 in"), "\(output)")
            expect(output.contains("2 worker(s)): 0 failed, 1 not run"), "\(output)")
        } else {
            // It died before it was given a seed (a busy machine can let it): the other ran them all.
            expect(output.range(of: #"swarm worker [01] was killed by signal 9\n"#, options: .regularExpression) != nil, "\(output)")
            expectEqual(ran, all, "\(output)")
            expect(output.contains("2 worker(s)): 0 failed"), "\(output)")
        }
    }

    /// Writes `one-kill.yaml` to `dir`: a 2-hour scenario whose nemesis kills one node per seed
    /// (its `nemesis:` key turns the nemesis on without --nemesis); returns its path.
    /// `realStorage`: every seed plays the real storage (else the nemesis's default share).
    static func oneKill(in dir: String, realStorage: Bool = false) throws -> String {
        let file = dir + "/one-kill.yaml"
        try """
            name: one-kill
            topology: \(ResultsEndToEndTests.scenarios)/../default.yaml
            duration: 2h
            nemesis: { crashes: 1, partitions: 0, maxDowntime: 5m\(realStorage ? ", realStorage: 1" : "") }
            timeline:
              - { at: 5m, watch: write-sample hrv 50 }
            """.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// A worker process that runs `topology swarm … --worker` and has spent CPU (from /proc).
    static func isWorking(_ pid: Int32) -> Bool {
        guard let command = try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8), command.contains("--worker"),
              let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return false }
        // After the command's closing parenthesis, fields 12 and 13 are its user and system ticks.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 12 && (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0) >= 5
    }

    /// The processes whose parent is `pid` (from /proc).
    static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> Int32? in
            guard let child = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            // After the command's closing parenthesis: state, then the parent's pid.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == pid ? child : nil
        }
    }
}
