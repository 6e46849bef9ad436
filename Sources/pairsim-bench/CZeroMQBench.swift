import ArgumentParser
import CBenchKernels
import Foundation
import PairSimRuntime
import Synchronization

/// One side of the two-process C baseline (`zmq_thr.c`), run by the sync benchmark.
struct CZeroMQSide: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "c-zmq", abstract: "One side of raw libzmq PUB/SUB between two C loops (used by `sync`).", shouldDisplay: false)

    @Option var role: String
    @Option var endpoint: String
    @Option var count = 1_000_000
    @Option var size = 100

    func run() throws {
        switch role {
        case "sub":
            let nanoseconds = pairsim_c_zmq_sub(endpoint, Int64(count), size)
            guard nanoseconds > 0 else { throw BenchError("c-zmq sub on \(endpoint) failed (\(nanoseconds))") }
            print("nanoseconds \(nanoseconds)")
        case "pub":
            let status = pairsim_c_zmq_pub(endpoint, Int64(count), size, 300)
            guard status == 0 else { throw BenchError("c-zmq pub to \(endpoint) failed (\(status))") }
        default:
            throw ValidationError("--role must be sub or pub, got \(role)")
        }
    }

    /// Messages per second from a receiving C process to a sending one (tcp `endpoint`): the
    /// receiver binds, the sender connects, waits 300 ms for the subscription and sends.
    static func throughput(endpoint: String, count: Int, size: Int) throws -> Double {
        let bench = Bundle.main.executablePath ?? CommandLine.arguments[0]
        let arguments = ["--endpoint", endpoint, "--count", String(count), "--size", String(size)]
        let result = Mutex<Int64?>(nil)
        let receiver = try ChildProcess(name: "c-zmq sub", executable: bench, arguments: ["c-zmq", "--role", "sub"] + arguments,
                                        output: .lines { line in
            if line.hasPrefix("nanoseconds "), let value = Int64(line.dropFirst(12)) { result.withLock { $0 = value } }
        })
        usleep(100_000)
        let sender = try ChildProcess.run(bench, ["c-zmq", "--role", "pub"] + arguments)
        receiver.waitUntilExit()
        guard sender.status == 0, receiver.terminationStatus == 0, let nanoseconds = result.withLock({ $0 }) else {
            throw BenchError("the C baseline failed (sender \(sender.status): \(sender.output.suffix(500)); receiver \(receiver.terminationStatus))")
        }
        return Double(count - 1) / (Double(nanoseconds) / 1e9)
    }
}
