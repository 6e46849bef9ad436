import Foundation
import ArgumentParser
import PairSimConfig
import PairSimCore
import PairSimRuntime
import PairSimScenario

/// Which share of a swarm's seeds one machine runs: shard `index` of `count` (1-based, as
/// `--shard 2/4` reads) takes the seeds whose index from `--from` leaves `index − 1` when divided
/// by `count`. Interleaved rather than in blocks, so every shard gets as many long and short
/// seeds as the others.
public struct SwarmShard: Hashable, Sendable, CustomStringConvertible {
    public var index: Int
    public var count: Int

    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// Reads `I/N`.
    public init(parsing text: String) throws {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1, count <= 1_000_000, (1...count).contains(index) else {
            throw ValidationError("--shard must be I/N with 1 ≤ I ≤ N ≤ 1000000, e.g. 2/8, got \"\(text)\"")
        }
        self.init(index: index, count: count)
    }

    /// The seed indices (0-based, from `--from`) of this shard, of `seeds` in all.
    public func indices(of seeds: Int) -> [Int] { Array(stride(from: index - 1, to: seeds, by: count)) }

    public var description: String { "\(index)/\(count)" }
}

/// A swarm's results: what it was asked to run, and each seed's verdicts as its worker reported
/// them. A shard saves them (`--results DIR`); `swarm merge` reads every shard's back and reports
/// them exactly as one unsharded swarm over the same seeds does.
struct SwarmResults {
    /// What a run was asked for: every shard of one swarm has the same, but for `shard.index`.
    struct Header: Equatable {
        var file: String
        var scenario: String
        var duration: EmulatedDuration
        var from: UInt64
        var seeds: Int
        /// `--nemesis` given.
        var nemesis: Bool
        /// The seeds play a nemesis (`--nemesis`, or the scenario's `nemesis:` key).
        var playsNemesis: Bool
        var app: String?
        /// `--watch-app`, when given.
        var watchApp: String? = nil
        var shard: SwarmShard
        /// The executable that ran it (`topology`, or a developer's own), for reproduce lines.
        var program: String

        var json: JSON {
            var object = JSONObject()
            object.append("pairsimSwarm", 1)
            object.append("file", .string(file))
            object.append("scenario", .string(scenario))
            object.append("durationMs", .int(duration.milliseconds))
            object.append("from", .int(Int64(bitPattern: from)))
            object.append("seeds", .int(Int64(seeds)))
            object.append("nemesis", .bool(nemesis))
            object.append("playsNemesis", .bool(playsNemesis))
            object.append("app", app.map(JSON.string) ?? .null)
            if let watchApp { object.append("watchApp", .string(watchApp)) }
            object.append("shard", .int(Int64(shard.index)))
            object.append("shards", .int(Int64(shard.count)))
            object.append("program", .string(program))
            return .object(object)
        }

        init(file: String, scenario: String, duration: EmulatedDuration, from: UInt64, seeds: Int, nemesis: Bool, playsNemesis: Bool,
             app: String?, shard: SwarmShard, program: String) {
            self.file = file
            self.scenario = scenario
            self.duration = duration
            self.from = from
            self.seeds = seeds
            self.nemesis = nemesis
            self.playsNemesis = playsNemesis
            self.app = app
            self.shard = shard
            self.program = program
        }

        init?(_ json: JSON) {
            guard json["pairsimSwarm"] == 1, let file = json["file"]?.stringValue, let scenario = json["scenario"]?.stringValue,
                  let duration = json["durationMs"]?.exactIntValue, let from = json["from"]?.exactIntValue,
                  let seeds = json["seeds"]?.exactIntValue, seeds >= 1, let nemesis = json["nemesis"]?.boolValue,
                  let playsNemesis = json["playsNemesis"]?.boolValue, let shard = json["shard"]?.exactIntValue,
                  let shards = json["shards"]?.exactIntValue, shards >= 1, (1...shards).contains(shard),
                  let program = json["program"]?.stringValue else { return nil }
            self.init(file: file, scenario: scenario, duration: EmulatedDuration(milliseconds: duration), from: UInt64(bitPattern: from),
                      seeds: Int(seeds), nemesis: nemesis, playsNemesis: playsNemesis, app: json["app"]?.stringValue,
                      shard: SwarmShard(index: Int(shard), count: Int(shards)), program: program)
            watchApp = json["watchApp"]?.stringValue
        }

        /// The same swarm, whatever the shard.
        func sameSwarm(as other: Header) -> Bool {
            var other = other
            other.shard.index = shard.index
            return self == other
        }
    }

    var header: Header
    /// One JSON object per seed (`seed`, `passed`, `verdicts`, `failedCommands`, `events`, `wall`), by seed.
    let results: [JSON]
    /// Seeds asked for that have no result (a worker that died, a shard not merged).
    let missing: [UInt64]
    /// Shards of the swarm that gave no results (merge only).
    var missingShards: [Int] = []

    init(header: Header, results: [JSON], expected: [UInt64]? = nil) {
        self.header = header
        self.results = results.sorted { Self.seed(of: $0) < Self.seed(of: $1) }
        let got = Set(results.map(Self.seed(of:)))
        let expected = expected ?? header.shard.indices(of: header.seeds).map { header.from + UInt64($0) }
        missing = expected.filter { !got.contains($0) }
    }

    static func seed(of result: JSON) -> UInt64 { UInt64(bitPattern: result["seed"]?.exactIntValue ?? 0) }

    /// The executable's own name, as a user types it again.
    static var programName: String { (CommandLine.arguments[0] as NSString).lastPathComponent }

    /// The command that plays `seed` again.
    func reproduce(_ seed: UInt64) -> String {
        "\(header.program) simulate \(header.file) --seed \(seed)" + (header.nemesis ? " --nemesis" : "") + (header.app.map { " --app \($0)" } ?? "") + (header.watchApp.map { " --watch-app \($0)" } ?? "")
    }

    var failing: [JSON] { results.filter { $0["passed"] != .bool(true) } }

    /// Prints every failing seed with what failed and how to play it again, then what is missing.
    /// Returns true when anything failed or is missing.
    func printFailures() -> Bool {
        for result in failing {
            let seed = Self.seed(of: result)
            print("✘ seed \(seed):")
            for verdict in result["verdicts"]?.arrayValue ?? [] where verdict["passed"] != .bool(true) {
                print("    \(verdict["label"]?.stringValue ?? "") — \(verdict["detail"]?.stringValue ?? "")")
            }
            for command in result["failedCommands"]?.arrayValue ?? [] { print("    timeline command failed: \(command.stringValue ?? "")") }
            print("  reproduce with: \(reproduce(seed))")
        }
        for shard in missingShards { print("shard \(shard)/\(header.shard.count): no results") }
        return !failing.isEmpty || !missing.isEmpty
    }

    /// `swarm NAME --nemesis: 300 seed(s) from 1<shardNote><timing>: 0 failed[, 3 not run]`.
    func summary(shardNote: String, timing: String) -> String {
        "swarm \(header.scenario)\(header.playsNemesis ? " --nemesis" : ""): \(results.count) seed(s) from \(header.from)\(shardNote)\(timing): "
            + "\(failing.count) failed" + (missing.isEmpty ? "" : ", \(missing.count) not run") + realStorageNote
    }

    /// ` (12 on the real storage, 70 storage faults)` when seeds ran the real journal and SQLite.
    var realStorageNote: String {
        let real = results.compactMap { $0["storageFaults"]?.intValue }
        return real.isEmpty ? "" : " (\(real.count) on the real storage, \(real.reduce(0, +)) storage fault(s))"
    }

    func writeJUnit(to path: String) throws {
        let suites = results.map { result in
            let seed = Self.seed(of: result)
            let verdicts = (result["verdicts"]?.arrayValue ?? []).map {
                Verdict(passed: $0["passed"] == .bool(true), label: $0["label"]?.stringValue ?? "", detail: $0["detail"]?.stringValue ?? "")
            }
            let outcome = ScenarioOutcome(scenario: header.scenario, mode: header.playsNemesis ? "swarm --nemesis" : "swarm", seed: seed,
                                          duration: header.duration, events: [], verdicts: verdicts,
                                          failedCommands: (result["failedCommands"]?.arrayValue ?? []).compactMap(\.stringValue), charts: [])
            return JUnitReport.Suite(outcome: outcome, file: header.file, reproduce: reproduce(seed), wallSeconds: result["wall"]?.doubleValue ?? 0)
        }
        try PairSimRuntime.save(JUnitReport.xml(suites, timestamp: JUnitReport.timestamp(Date())), to: path, what: "--junit")
    }

    /// This shard's file in `directory`.
    func fileName() -> String { "shard-\(header.shard.index)-of-\(header.shard.count).jsonl" }

    /// Writes `DIR/shard-I-of-N.jsonl`: the header, then a line per seed. Written whole under
    /// another name and renamed, so a merge never reads half a file.
    func save(in directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var text = JSONWriter.string(header.json) + "\n"
        for result in results { text += JSONWriter.string(result) + "\n" }
        let path = directory + "/" + fileName()
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw RuntimeError("--results: cannot write \(path): \(error.localizedDescription)")
        }
    }

    /// Reads every shard file in `paths` (directories, or the files themselves) and joins them.
    static func merge(_ paths: [String]) throws -> SwarmResults {
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw RuntimeError("\(path): not found") }
            if isDirectory.boolValue {
                let names = try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasPrefix("shard-") && $0.hasSuffix(".jsonl") }.sorted()
                files += names.map { path + "/" + $0 }
            } else {
                files.append(path)
            }
        }
        guard !files.isEmpty else { throw RuntimeError("no shard results (shard-I-of-N.jsonl) in \(paths.joined(separator: ", "))") }
        var first: Header?
        var byShard: [Int: String] = [:]
        var results: [JSON] = []
        var seen: [UInt64: String] = [:]
        for file in files {
            let text: String
            do { text = try String(contentsOfFile: file, encoding: .utf8) } catch { throw RuntimeError("\(file): cannot read it: \(error.localizedDescription)") }
            let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
            guard let line = lines.first, let json = try? JSONParser().parse(String(line)), let header = Header(json) else {
                throw RuntimeError("\(file):1: not a swarm results header (written by `swarm … --results DIR`)")
            }
            if let first, !first.sameSwarm(as: header) {
                throw RuntimeError("\(file): another swarm's results (\(Self.describe(header))) than \(byShard.values.sorted().first ?? "the first file")'s (\(Self.describe(first)))")
            }
            if let other = byShard[header.shard.index] { throw RuntimeError("\(file): shard \(header.shard) again (also in \(other))") }
            byShard[header.shard.index] = file
            first = first ?? header
            let wanted = Set(header.shard.indices(of: header.seeds).map { header.from + UInt64($0) })
            for (number, line) in lines.enumerated().dropFirst() {
                guard let result = try? JSONParser().parse(String(line)), result["seed"]?.exactIntValue != nil, result["passed"]?.boolValue != nil else {
                    throw RuntimeError("\(file):\(number + 1): not a seed's result")
                }
                let seed = seed(of: result)
                guard wanted.contains(seed) else { throw RuntimeError("\(file):\(number + 1): seed \(seed) is not shard \(header.shard)'s") }
                if let other = seen[seed] { throw RuntimeError("\(file):\(number + 1): seed \(seed) again (also in \(other))") }
                seen[seed] = file
                results.append(result)
            }
        }
        var header = first!
        header.shard.index = 1
        let all = (0..<header.seeds).map { header.from + UInt64($0) }
        var merged = SwarmResults(header: header, results: results, expected: all)
        merged.missingShards = (1...header.shard.count).filter { byShard[$0] == nil }
        return merged
    }

    static func describe(_ header: Header) -> String {
        "\(header.file), \(header.seeds) seed(s) from \(header.from)" + (header.nemesis ? ", --nemesis" : "") + (header.app.map { ", --app \($0)" } ?? "") + (header.watchApp.map { ", --watch-app \($0)" } ?? "")
            + ", \(header.shard.count) shard(s)"
    }
}
