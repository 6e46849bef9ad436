#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PairSimCore
import ZeroMQ

/// `topology down`: stops a pair started by `topology up` (or nodes started by hand) and makes
/// sure no process is left behind.
public enum PairDown {
    /// Stops the pair of `topology`; returns lines to print and whether everything stopped.
    public static func run(_ topology: Topology) -> (lines: [String], ok: Bool) {
        var lines: [String] = []
        var processes: [Known] = []
        do {
            if let runFile = try RunFile.read(name: topology.name) {
                // A stale run file may name pids now used by other programs: signal only ours.
                processes = ([runFile.launcher] + NodeName.allCases.compactMap { runFile.pids[$0] }).compactMap(Known.init)
                if let launcher = processes.first, launcher.pid == runFile.launcher {
                    kill(launcher.pid, SIGTERM)
                    lines.append("sent SIGTERM to the launcher (pid \(launcher.pid))")
                } else {
                    for process in processes { kill(process.pid, SIGTERM) }
                    if !processes.isEmpty { lines.append("launcher gone; sent SIGTERM to \(processes.map { String($0.pid) }.joined(separator: ", "))") }
                }
            }
        } catch {
            lines.append("warning: \(error)")
        }
        // Nodes started without the launcher: ask them over their control sockets.
        if processes.isEmpty, let context = try? Context() {
            for node in NodeName.allCases {
                let client = ControlClient(endpoint: topology.nodes[node]!.control, timeoutMilliseconds: 500)
                if let reply = try? client.send("shutdown", context: context), reply.ok {
                    lines.append("asked \(node)-node to shut down")
                }
            }
        }
        // The launcher stops its nodes within 10 s and kills what is left, so this is a hang guard.
        var patience = Patience(seconds: 30)
        while processes.contains(where: \.isAlive), patience.wait(microseconds: 50_000) {}
        var ok = true
        for process in processes where process.isAlive {
            let state = describe(process.pid)
            kill(process.pid, SIGKILL)
            lines.append("pid \(process.pid) (\(state)) did not stop in \(Int(patience.seconds)) s: killed")
            ok = false
        }
        RunFile.remove(name: topology.name)
        if lines.isEmpty { lines.append("no running pair for topology \(topology.name)") } else { lines.append("pair \(topology.name) stopped") }
        return (lines, ok)
    }

    /// One of PairSim's processes as `down` found it: its pid and when it started. A pid that the
    /// kernel has since given to another process is not taken for it, so `down` never waits for a
    /// stranger or kills one. Pids do come round: pid_max is 32768 here, and one run of the
    /// end-to-end tests starts ~2,600 programs and many more threads.
    struct Known {
        let pid: Int32
        /// Clock ticks after boot (the 22nd field of /proc/PID/stat).
        let started: UInt64

        /// A live process of PairSim's, `pid` now; nil for none.
        init?(_ pid: Int32) {
            guard PairDown.isOurs(pid), let started = PairDown.startTime(pid) else { return nil }
            self.init(pid: pid, started: started)
        }

        init(pid: Int32, started: UInt64) {
            self.pid = pid
            self.started = started
        }

        /// Still running: the same process (same start), not yet a zombie. One read of its stat.
        var isAlive: Bool {
            guard kill(pid, 0) == 0, let fields = PairDown.statFields(pid), fields.count > 19 else { return false }
            return fields[0] != "Z" && UInt64(fields[19]) == started
        }
    }

    /// The fields of a /proc/…/stat after the program's name, the state (field 3) first; nil if
    /// it cannot be read. The name is in parentheses and may hold spaces, so it is cut at the last `)`.
    static func statFields(_ pid: Int32, thread: String? = nil) -> [Substring]? {
        let path = "/proc/\(pid)" + (thread.map { "/task/\($0)" } ?? "") + "/stat"
        guard let stat = try? String(contentsOfFile: path, encoding: .utf8), let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ")
    }

    /// When `pid` started (field 22, clock ticks after boot); nil if it cannot be read.
    static func startTime(_ pid: Int32) -> UInt64? {
        guard let fields = statFields(pid), fields.count > 19 else { return nil }
        return UInt64(fields[19])
    }

    /// A live process of PairSim's (`topology`, `watch-node` or `phone-node`), never pid 0 or 1.
    public static func isOurs(_ pid: Int32) -> Bool {
        guard pid > 1, isAlive(pid),
              let command = try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8) else { return false }
        let program = command.split(separator: "\0").first.map { ($0 as NSString).lastPathComponent } ?? ""
        return ["topology", "watch-node", "phone-node"].contains(program)
    }

    /// What a process is and what it waits on, for the message when it must be killed: its
    /// program, its state letter and kernel wait channel, and its threads' states.
    static func describe(_ pid: Int32) -> String {
        func read(_ path: String) -> String {
            ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "?").trimmingCharacters(in: .whitespacesAndNewlines)
        }
        func state(_ thread: String? = nil) -> String { statFields(pid, thread: thread)?.first.map(String.init) ?? "?" }
        let name = read("/proc/\(pid)/comm")
        let threads = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []).map {
            "\(read("/proc/\(pid)/task/\($0)/comm")):\(state($0))/\(read("/proc/\(pid)/task/\($0)/wchan"))"
        }
        return "\(name), state \(state()), threads \(threads.sorted().joined(separator: " "))"
    }

    static func isAlive(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        // A zombie child of someone else still answers kill(0); check its state.
        guard let state = statFields(pid)?.first else { return true }
        return state != "Z"
    }
}
