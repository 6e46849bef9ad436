#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import ZeroMQ

/// Raw ZeroMQ through the project's own wrapper: PUB/SUB throughput and one-way latency.
enum ZeroMQBench {
    /// Sends `count` messages of `size` bytes PUB → SUB over `endpoint`; returns messages/s.
    static func throughput(endpoint: String, count: Int, size: Int) throws -> Double {
        let context = try Context()
        let started = Mutex<UInt64>(0)
        let sender = Thread {
            do {
                let publisher = try Socket(context, .xpub)
                try publisher.setSendHighWaterMark(0)
                try publisher.bind(endpoint)
                _ = try publisher.receiveMultipart() // the subscription: the subscriber is connected
                let message = [UInt8](repeating: 0x5A, count: size)
                started.withLock { $0 = monotonicNanoseconds() }
                for _ in 0..<count { try publisher.send(message) }
                sleep(2)
                publisher.close()
            } catch {
                FileHandle.standardError.write(Data("publisher: \(error)\n".utf8))
            }
        }
        sender.start()
        let subscriber = try Socket(context, .sub)
        try subscriber.setReceiveHighWaterMark(0)
        try subscriber.subscribe("")
        try subscriber.connect(endpoint)
        try subscriber.setReceiveTimeout(milliseconds: 10_000)
        var received = 0
        var first: UInt64 = 0
        var buffer = [UInt8](repeating: 0, count: size)
        while received < count {
            guard try subscriber.receive(into: &buffer) != nil else { break }
            if received == 0 { first = monotonicNanoseconds() }
            received += 1
        }
        let end = monotonicNanoseconds()
        subscriber.close()
        guard received == count else { throw BenchError("raw ZeroMQ: received \(received) of \(count) messages") }
        let begin = max(first, started.withLock { $0 })
        return Double(count) / (Double(end - min(begin, first)) / 1e9)
    }

    /// One-way PUB → SUB latency over `endpoint`, `count` messages a little apart; microseconds.
    static func latency(endpoint: String, count: Int) throws -> [Double] {
        let context = try Context()
        let sender = Thread {
            do {
                let publisher = try Socket(context, .xpub)
                try publisher.bind(endpoint)
                _ = try publisher.receiveMultipart()
                usleep(50_000)
                for _ in 0..<count {
                    var stamp = monotonicNanoseconds()
                    let bytes = withUnsafeBytes(of: &stamp) { Array($0) } + [UInt8](repeating: 0, count: 92)
                    try publisher.send(bytes)
                    usleep(200)
                }
                sleep(1)
                publisher.close()
            } catch {
                FileHandle.standardError.write(Data("publisher: \(error)\n".utf8))
            }
        }
        sender.start()
        let subscriber = try Socket(context, .sub)
        try subscriber.subscribe("")
        try subscriber.connect(endpoint)
        try subscriber.setReceiveTimeout(milliseconds: 10_000)
        var latencies: [Double] = []
        while latencies.count < count, let frame = try subscriber.receiveFrame() {
            let now = monotonicNanoseconds()
            let stamp = frame.bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            latencies.append(Double(now - stamp) / 1_000)
        }
        subscriber.close()
        return latencies
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
