import ArgumentParser
import Foundation
import PairSimCore
import PairSimHealthExport

/// `topology make-health-export`: a synthetic Apple Health export (docs/HEALTH-EXPORT.md, R: E2).
struct MakeHealthExport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "make-health-export",
        abstract: "Write a synthetic Apple Health export.xml (export version 14) drawn from a seed: heart rate, sleep, HRV, steps, energy, weigh-ins, workouts.",
        discussion: "No real person's data: the same options always write the same bytes. docs/HEALTH-EXPORT.md.")

    @Option(help: "Days of data (1 to 36600).")
    var days: Int

    @Option(help: "Seed for every value.")
    var seed: UInt64 = 1

    @Option(help: ArgumentHelp("The first day, YYYY-MM-DD.", valueName: "date"))
    var start = "2024-01-01"

    @Option(help: ArgumentHelp("The offset every date carries, ±HHMM.", valueName: "offset"))
    var utcOffset = "+0000"

    @Option(help: ArgumentHelp("Where to write export.xml (an existing file is replaced).", valueName: "file"))
    var output: String

    func validate() throws {
        guard (1...36_600).contains(days) else { throw ValidationError("--days must be 1 to 36600, got \(days)") }
        _ = try parsedStart()
        _ = try parsedOffset()
    }

    func parsedStart() throws -> (Int, Int, Int) {
        guard let (y, m, d) = CivilDate.parse(start), (1900...2200).contains(y) else {
            throw ValidationError("--start must be a date like 2024-01-01, got \"\(start)\"")
        }
        return (y, m, d)
    }

    func parsedOffset() throws -> Int {
        let chars = Array(utcOffset)
        guard chars.count == 5, chars[0] == "+" || chars[0] == "-", let hours = Int(String(chars[1...2])), let minutes = Int(String(chars[3...4])),
              hours <= 14, minutes < 60 else {
            throw ValidationError("--utc-offset must be like +0100 or -0530, got \"\(utcOffset)\"")
        }
        return (chars[0] == "-" ? -1 : 1) * (hours * 60 + minutes)
    }

    func run() throws {
        var options = HealthExportGenerator.Options(days: days, seed: seed)
        options.start = try parsedStart()
        options.utcOffsetMinutes = try parsedOffset()
        let temporary = output + ".partial"
        guard FileManager.default.createFile(atPath: temporary, contents: nil), let handle = FileHandle(forWritingAtPath: temporary) else {
            throw ValidationError("--output: cannot write \(temporary)")
        }
        let counts: HealthExportGenerator.Counts
        do {
            counts = try HealthExportGenerator(options).write { try handle.write(contentsOf: Data($0.utf8)) }
            try handle.close()
            // Whole or not at all: the file appears under its name only when complete.
            if FileManager.default.fileExists(atPath: output) { try FileManager.default.removeItem(atPath: output) }
            try FileManager.default.moveItem(atPath: temporary, toPath: output)
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(atPath: temporary)
            throw ValidationError("--output: writing \(output) failed: \(error)")
        }
        print("wrote \(output): \(days) day(s) from \(start), seed \(seed)")
        for (type, count) in counts.records.sorted(by: { $0.key < $1.key }) { print("  Record \(type): \(count)") }
        print("  Workout: \(counts.workouts) (WorkoutStatistics \(counts.workoutStatistics), WorkoutEvent \(counts.workoutEvents))")
        print("  ActivitySummary: \(counts.activitySummaries)")
    }
}
