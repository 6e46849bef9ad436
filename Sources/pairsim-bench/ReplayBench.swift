#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import PairSimCore
import PairSimHealthExport

/// A five-year Health export replayed end to end on two real processes: parsed and checked on the
/// watch, saved in its store, sent over ZeroMQ, saved durably on the phone and acknowledged
/// (R: E1). The baseline, in the same run: reading the same file alone in this process (the
/// parser's speed, with nothing else to do).
struct ReplayBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "A synthetic five-year Health export imported through a real pair: records/s and peak RSS, against reading the file alone.")

    @Option(help: "Days of synthetic export.")
    var days = 1_826

    @Option(help: "Runs of the pair (the median is reported).")
    var runs = 3

    @Option(help: "Replay this export (export.xml, the zip or its folder) instead of a generated one.")
    var export: String?

    @Flag(help: "Only time reading the file (the baseline), for profiling the reader.")
    var readOnly = false

    func run() throws {
        let directory = NSTemporaryDirectory() + "pairsim-bench-export-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var path = directory + "/export.xml"
        var t0 = monotonicNanoseconds()
        let expected: Int
        if let export {
            path = (export as NSString).isAbsolutePath ? export : FileManager.default.currentDirectoryPath + "/" + export
            report("== replay benchmark (release build, \(path), \(ProcessInfo.processInfo.activeProcessorCount) cores)")
            expected = -1
        } else {
            report("== replay benchmark (release build, \(days) days of synthetic export, \(ProcessInfo.processInfo.activeProcessorCount) cores)")
            guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
                throw BenchError("cannot write \(path)")
            }
            let counts = try HealthExportGenerator(.init(days: days, seed: 1)).write { file.write(Data($0.utf8)) }
            try file.close()
            expected = counts.totalRecords + counts.workouts
            report("generated \(expected) records and workouts in \(format(Double(monotonicNanoseconds() - t0) / 1e9, 1)) s")
        }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0

        // Baseline: the reader alone, on one thread, then in two halves at once (as the check reads).
        var entries = expected
        func readAll(parallelFrom threshold: Int) throws -> [Double] {
            var times: [Double] = []
            for _ in 0..<runs {
                t0 = monotonicNanoseconds()
                let reader = try HealthExportReader(HealthImportRequest(path: path), parallelThreshold: threshold)
                var read = 0
                while true {
                    let batch = try reader.next(limit: 20_000)
                    if batch.isEmpty { break }
                    read += batch.count
                }
                guard expected < 0 || read == expected else { throw BenchError("the reader found \(read) entries, the generator wrote \(expected)") }
                entries = read
                times.append(Double(monotonicNanoseconds() - t0) / 1e9)
            }
            return times
        }
        let one = try readAll(parallelFrom: .max), two = try readAll(parallelFrom: HealthExportReader.parallelThreshold)
        let total = entries
        let parseMedian = percentile(one, 0.5), halvesMedian = percentile(two, 0.5)
        report("\(total) entries, \(bytes / 1_000_000) MB. Baseline, reading the file alone on one thread: median \(format(parseMedian, 2)) s = \(human(Double(total) / parseMedian)) records/s, \(format(Double(bytes) / 1e6 / parseMedian, 0)) MB/s (runs: \(one.map { format($0, 2) }.joined(separator: ", ")) s)")
        report("  in two halves at once (as the check reads a plain export.xml of 16 MB or more): median \(format(halvesMedian, 2)) s = \(human(Double(total) / halvesMedian)) records/s")

        if readOnly { return }
        var times: [Double] = []
        for index in 0..<runs {
            let pair = try BenchPair(name: "replay", yamlExtra: "", basePort: 19_400 + Int(getpid() % 500) * 2)
            defer { pair.stop() }
            t0 = monotonicNanoseconds()
            _ = try pair.ctl(.watch, "import-health \(path)")
            let deadline = monotonicNanoseconds() + 900_000_000_000
            while true {
                let status = try JSONParser().parse(try pair.ctl(.watch, "status --json", timeoutSeconds: 60))
                if status["healthImport"] == .null, status["channels"]?["healthkit"]?["pending"]?.intValue == 0 { break }
                guard monotonicNanoseconds() < deadline else { throw BenchError("the import was not acknowledged within 900 s") }
                usleep(5_000)
            }
            let seconds = Double(monotonicNanoseconds() - t0) / 1e9
            let phone = try JSONParser().parse(try pair.ctl(.phone, "status --json", timeoutSeconds: 60))
            let held = (phone["stores"]?["samples"]?.intValue ?? 0) + (phone["stores"]?["workouts"]?.intValue ?? 0)
            // A real export can hold identical records, which are one object each.
            guard held <= Int64(total), export != nil || held == Int64(total) else { throw BenchError("the phone holds \(held) objects, the export has \(total)") }
            let rss = pair.peakRSS()
            times.append(seconds)
            report("run \(index + 1): checked, imported, sent and acknowledged durable on the phone in \(format(seconds, 2)) s = \(human(Double(total) / seconds)) records/s; peak RSS watch \(rss[.watch]!) MB, phone \(rss[.phone]!) MB")
        }
        let median = percentile(times, 0.5)
        report("median \(format(median, 2)) s = \(human(Double(total) / median)) records/s end to end (goal ≥ 500 k/s), \(format(median / parseMedian, 2))× the time of reading the file alone on one thread")
    }
}
