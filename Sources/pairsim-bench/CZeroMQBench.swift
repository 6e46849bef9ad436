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
    @Option var peer: String?

    func run() throws {
        switch role {
        case "sub":
            let nanoseconds = pairsim_c_zmq_sub(endpoint, Int64(count), size)
            guard nanoseconds > 0 else { throw BenchError("c-zmq sub on \(endpoint) failed (\(nanoseconds))") }
            print("nanoseconds \(nanoseconds)")
        case "pub":
            let status = pairsim_c_zmq_pub(endpoint, Int64(count), size, 300)
            guard status == 0 else { throw BenchError("c-zmq pub to \(endpoint) failed (\(status))") }
        case "echo-watch":
            guard pairsim_c_zmq_echo_watch(endpoint, peer ?? "", Int64(count), 500, 3_000) == 0 else { throw BenchError("echo watch on \(endpoint) failed") }
        case "echo-phone":
            guard pairsim_c_zmq_echo_phone(endpoint, peer ?? "", Int64(count)) == 0 else { throw BenchError("echo phone on \(endpoint) failed") }
        default:
            throw ValidationError("--role must be sub, pub, echo-watch or echo-phone, got \(role)")
        }
    }

    /// The latency probe's topology in C with no work at either end (`zmq_echo.c`): a "watch"
    /// process, a "phone" process acknowledging each frame at once, and this process timing each
    /// ack from its frame's arrival, as `SyncBench.singleSampleLatency` does; microseconds.
    static func echoFloor(watch: String, phone: String, count: Int) throws -> [Double] {
        let bench = Bundle.main.executablePath ?? CommandLine.arguments[0]
        let phoneSide = try ChildProcess(name: "c-zmq echo phone", executable: bench, arguments: [
            "c-zmq", "--role", "echo-phone", "--endpoint", phone, "--peer", watch, "--count", String(count)], output: .errorsOnly)
        // The watch waits 500 ms for every subscription before its first frame; the probe connects now.
        let watchSide = try ChildProcess(name: "c-zmq echo watch", executable: bench, arguments: [
            "c-zmq", "--role", "echo-watch", "--endpoint", watch, "--peer", phone, "--count", String(count)], output: .errorsOnly)
        var latencies = [Double](repeating: 0, count: count)
        let measured = latencies.withUnsafeMutableBufferPointer { pairsim_c_zmq_echo_probe(watch, phone, Int64(count), $0.baseAddress) }
        watchSide.waitUntilExit()
        phoneSide.waitUntilExit()
        guard measured > count / 2, watchSide.terminationStatus == 0, phoneSide.terminationStatus == 0 else {
            throw BenchError("the C echo floor measured \(measured) of \(count) acks (watch exited \(watchSide.terminationStatus), phone \(phoneSide.terminationStatus))")
        }
        return Array(latencies.prefix(Int(measured)))
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
