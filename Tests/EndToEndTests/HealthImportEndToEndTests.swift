#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PairSimCore
import PairSimHealthExport
import Testing
import TestSupport

/// `import-health` on the real binaries (R: E1, E3): the file read by watch-node, the data synced
/// over ZeroMQ into phone-node's SQLite store, bad exports refused through the control socket.
@Suite("End to end: importing a Health export")
struct HealthImportEndToEndTests {
    /// Runs `topology make-health-export` and returns what it says it wrote, by store type name.
    static func makeExport(_ pair: PairHarness, days: Int, seed: Int) async throws -> (path: String, byType: [String: Int]) {
        let path = pair.directory + "/export-\(days)d.xml"
        let (status, output) = try await pair.runTopology(["make-health-export", "--days", String(days), "--seed", String(seed), "--output", path])
        expectEqual(status, 0, "\(output)")
        var byType: [String: Int] = [:]
        // "  Record HKQuantityTypeIdentifierHeartRate: 2143" and "  Workout: 3 (…)"
        for line in output.split(separator: "\n") {
            let words = line.split(separator: " ")
            if words.count == 3, words[0] == "Record", let name = SampleType(exportName: String(words[1].dropLast()))?.rawValue, let count = Int(words[2]) { byType[name] = count }
            if words.count >= 2, words[0] == "Workout:", let count = Int(words[1]) { byType["workout"] = count }
        }
        expectEqual(byType.count, 10, "\(output)")
        return (path, byType)
    }

    /// The phone's store by type once it holds `expected` (the last acknowledgements are still on
    /// the way when the watch reports the end), or what it holds after 60 s of asking.
    static func phoneCounts(_ pair: PairHarness, reaching expected: [String: Int]) async throws -> [String: Int] {
        var phone: [String: Int] = [:]
        _ = try await PairHarness.poll(seconds: 180) {
            phone = byType(try pair.status(.phone))
            return phone == expected
        }
        return phone
    }

    static func byType(_ status: JSON) -> [String: Int] {
        var counts: [String: Int] = [:]
        if case .object(let object)? = status["stores"]?["byType"] {
            for key in object.keys { if let value = object[key]?.intValue, value > 0 { counts[key] = Int(value) } }
        }
        return counts
    }

    @Test("a generated export imported through topology ctl reaches the phone's store with the file's count of every type", .timeLimit(.minutes(5)))  // R: E1, E2
    func importReachesPhone() async throws {
        let pair = try PairHarness("e2e-import", timeScale: 1)
        defer { pair.stopAll() }
        let (path, expected) = try await Self.makeExport(pair, days: 3, seed: 8)
        try await pair.up()
        let (status, reply) = try await pair.runTopology(["ctl", "-t", pair.topologyPath, "watch", "import-health", path])
        expect(status == 0 && reply.contains("checking"), "\(reply)")
        let finished = try await pair.waitFor(.watch, "import.finished") { $0.name == "import.finished" }
        expectEqual(finished.first?["unknown"], 0)
        try await expectEqual(Self.phoneCounts(pair, reaching: expected), expected)
        expectEqual(Self.byType(try pair.status(.watch)), expected)
        // Again: everything is found by UUID and nothing is saved twice.
        _ = try pair.must(.watch, "import-health \(path)")
        let again = try await pair.waitFor(.watch, count: 2, "the second import.finished") { $0.name == "import.finished" }
        expect(again.last?["saved"] == 0 && again.last?["ignored"]?.intValue == Int64(expected.values.reduce(0, +)))
        expectEqual(Self.byType(try pair.status(.phone)), expected)
    }

    @Test("a bad export is refused by name, line and column, and neither store changes", .timeLimit(.minutes(5)))  // R: E3
    func badExport() async throws {
        let pair = try PairHarness("e2e-import-bad")
        defer { pair.stopAll() }
        let (path, _) = try await Self.makeExport(pair, days: 2, seed: 9)
        var text = try String(contentsOfFile: path, encoding: .utf8)
        // Early in the file: the reply to the command says it. Late in the file: import.failed does.
        let early = try #require(text.range(of: "startDate=\"2024-01-01"))
        var earlyText = text
        earlyText.replaceSubrange(early, with: "startDate=\"2024-01-41")
        try earlyText.write(toFile: path + ".early.xml", atomically: true, encoding: .utf8)
        let late = try #require(text.range(of: "HKWorkoutActivityType", options: .backwards))
        text.replaceSubrange(late, with: "<HKWorkoutActivityType")
        try text.write(toFile: path + ".late.xml", atomically: true, encoding: .utf8)
        try await pair.up()
        let refused = try pair.ctl(.watch, "import-health \(path).early.xml")
        expect(!refused.ok && refused.text.contains("early.xml line ") && refused.text.contains("startDate \"2024-01-41"), "\(refused.text)")
        _ = try pair.must(.watch, "import-health \(path).late.xml")
        let failed = try await pair.waitFor(.watch, "import.failed") { $0.name == "import.failed" }
        expect((failed.first?["line"]?.intValue ?? 0) > 1000 && failed.first?["reason"]?.stringValue?.contains("late.xml line ") == true, "\(failed)")
        let missing = try pair.ctl(.watch, "import-health \(pair.directory)/nothing.zip")
        expect(!missing.ok && missing.text.contains("nothing.zip: no such file"), "\(missing.text)")
        for node in NodeName.allCases {
            let stores = try pair.status(node)["stores"]
            expect(stores?["samples"] == 0 && stores?["workouts"] == 0, "\(node): \(String(describing: stores))")
        }
    }

    @Test("hostile exports on the real watch: a named pipe is refused at once; 1e19 is refused and a restart does not crash on it; the watch answers ping while it reads a 32 MB tag", .timeLimit(.minutes(5)))  // R: E4
    func hostileOnTheWatch() async throws {
        let pair = try PairHarness("e2e-import-hostile")
        defer { pair.stopAll() }
        let (path, _) = try await Self.makeExport(pair, days: 2, seed: 9)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let huge = try #require(text.range(of: "<Record "))
        var big = text
        big.replaceSubrange(huge, with: "<Record " + String(repeating: " ", count: 32 << 20))
        try big.write(toFile: path + ".big.xml", atomically: true, encoding: .utf8)
        let end = try #require(text.range(of: "</HealthData>"))
        var overflow = text
        overflow.replaceSubrange(end, with: #" <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Watch" unit="count/min" startDate="2024-01-02 08:00:00 +0000" endDate="2024-01-02 08:00:00 +0000" value="1e19"/>"# + "\n</HealthData>")
        try overflow.write(toFile: path + ".1e19.xml", atomically: true, encoding: .utf8)
        let fifo = pair.directory + "/pipe.xml"
        expectEqual(mkfifo(fifo, 0o600), 0)
        let epoch = PairHarness.now()
        try await pair.startNode(.watch, epoch: epoch)
        try await pair.startNode(.phone, epoch: epoch)
        let pipe = try pair.ctl(.watch, "import-health \(fifo)")
        expect(!pipe.ok && pipe.text.contains("not a regular file"), "\(pipe.text)")
        // A 32 MB tag: the watch keeps answering while it reads it (30 s is a hang guard, not a timing).
        _ = try pair.must(.watch, "import-health \(path).big.xml")
        try expect(pair.ctl(.watch, "ping", timeoutMilliseconds: 30_000).ok)
        _ = try await pair.waitFor(.watch, "import.finished") { $0.name == "import.finished" }
        // 1e19 late in the file: refused with its line, then kill -9 and restart: no crash loop.
        _ = try pair.must(.watch, "import-health \(path).1e19.xml")
        let failed = try await pair.waitFor(.watch, "import.failed") { $0.name == "import.failed" }
        expectEqual(failed.first?["reason"]?.stringValue?.contains("value 1e+19"), true, "\(failed)")
        await pair.stop("watch", signal: SIGKILL)
        try await pair.startNode(.watch, epoch: epoch)
        try expect(pair.ctl(.watch, "ping").ok)
        try expectEqual(pair.status(.watch)["healthImport"], .null, "nothing left to run again")
    }

    @Test("a watch killed with kill -9 mid-import resumes it after restart; the phone ends with the file's counts", .timeLimit(.minutes(5)))  // R: E1, S5
    func killedMidImport() async throws {
        // 50 objects per message, two messages in flight, 10 ms each way: the import takes seconds.
        let pair = try PairHarness("e2e-import-kill", timeScale: 1, channels: """
            channels:
              healthkit: { latency: 10ms }
              cloudkit: { latency: 0, exportInterval: off }
            """, extra: """
            sync: { outboxLimit: 2 }
            wire: { maxItemsPerMessage: 100 }
            """)
        defer { pair.stopAll() }
        let (path, expected) = try await Self.makeExport(pair, days: 40, seed: 10)
        let epoch = PairHarness.now()
        try await pair.startNode(.watch, epoch: epoch)
        try await pair.startNode(.phone, epoch: epoch)
        try await pair.waitUntilAnswering(.watch)
        try await pair.waitUntilAnswering(.phone)
        _ = try pair.must(.watch, "import-health \(path)")
        try await pair.waitFor(.phone, count: 20, "the first batches on the phone") { $0.name == "hk.saved" }
        // Asked of the node, not its log: a killed node's last few milliseconds of events are lost.
        let running = try pair.must(.watch, "status").contains("import-health ")
        await pair.stop("watch", signal: SIGKILL)
        expect(running, "the import ended before the kill (too fast to test)")
        try await pair.startNode(.watch, epoch: epoch)
        let finished = try await pair.waitFor(.watch, "import.finished after the restart") { $0.name == "import.finished" }
        expect(pair.events(.watch).contains { $0.name == "node.started" && $0["restored"] == .bool(true) })
        expectEqual(finished.first?["entries"]?.intValue, Int64(expected.values.reduce(0, +)))
        try await expectEqual(Self.phoneCounts(pair, reaching: expected), expected)
    }
}
