#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PairSimCore
import PairSimRuntime

/// The harness's waits, for async tests: each long wait (a process to start, answer, or end) runs
/// on a thread of its own, and polls sleep with `Task.sleep`, so a waiting test holds none of the
/// cooperative pool's threads — two on this machine — and the end-to-end suites run side by side
/// instead of two at a time.
///
/// Same names as the blocking forms: in an async test the compiler picks these.
extension PairHarness {
    /// Runs `body` on a thread of its own and waits for it without holding a pool thread.
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
            let thread = Thread { continuation.resume(with: Result { try body() }) }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    @discardableResult
    func startNode(_ node: NodeName, epoch: Int64, stdin: Pipe? = nil, executable: String? = nil, app: String? = nil,
                   presetConfigHome: Bool = true) async throws -> ChildProcess {
        let process: ChildProcess = try startNode(node, epoch: epoch, stdin: stdin, waiting: false, executable: executable, app: app,
                                                  presetConfigHome: presetConfigHome)
        try await waitUntilAnswering(node)
        return process
    }

    @discardableResult
    func up() async throws -> ChildProcess {
        let process = try spawn("launcher", "topology", ["up", topologyPath, "--no-stdin", "--color", "never"])
        let ready = await Self.poll(seconds: 60) { self.output("launcher").contains("topology │ pair \(self.topology.name) ready") || !process.isRunning }
        guard ready, process.isRunning else {
            throw RuntimeError("the launcher did not report the pair ready; output:\n\(output("launcher"))")
        }
        return process
    }

    func waitUntilAnswering(_ node: NodeName, seconds: Double = 120) async throws {
        try await Self.offPool { try self.waitUntilAnswering(node, seconds: seconds) }
    }

    /// Polls `node`'s event log until `count` events match, or fails after `seconds`: a hang guard,
    /// generous because a loaded machine runs these tests several times slower.
    @discardableResult
    func waitFor(_ node: NodeName, seconds: Double = 180, count: Int = 1, _ what: String,
                 _ predicate: (Event) -> Bool) async throws -> [Event] {
        var matches: [Event] = []
        guard await Self.poll(seconds: seconds, until: { matches = events(node).filter(predicate); return matches.count >= count }) else {
            throw RuntimeError("\(node): waited \(seconds) s for \(what); log:\n" + events(node).suffix(30).map(\.humanLine).joined(separator: "\n"))
        }
        return matches
    }

    /// Asks `done` every 50 ms until it says yes (true) or `seconds` pass (false).
    static func poll(seconds: Double, until done: () throws -> Bool) async rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if try done() { return true }
            if Date() > deadline { return false }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    func runTopology(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await Self.runTopology(arguments)
    }

    static func runTopology(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await runProgram(binDirectory + "/topology", arguments)
    }

    static func runProgram(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) async throws -> (status: Int32, output: String) {
        try await offPool { try ChildProcess.run(executable, arguments, environment: environment) }
    }

    /// SIGTERM (or `signal`) to one process and wait for it.
    func stop(_ label: String, signal: Int32 = SIGTERM) async {
        guard let process = process(label) else { return }
        process.signal(signal)
        await process.waitUntilExit()
    }
}

extension ChildProcess {
    /// Waits for the process to end without holding a pool thread.
    func waitUntilExit() async {
        while isRunning { try? await Task.sleep(for: .milliseconds(20)) }
        _ = try? await PairHarness.offPool { self.waitUntilExit() }
    }
}
