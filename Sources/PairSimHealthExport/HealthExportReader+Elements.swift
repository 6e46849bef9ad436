import CExportScan
import Foundation
import PairSimCore

/// The elements the reader takes from the scanner: the root, `Record`s, `Workout`s and their
/// statistics, each checked before it becomes an entry.
extension HealthExportReader {
    func startElement() {
        depth += 1
        guard failure == nil else { return }
        for buffer in decoded { buffer.deallocate() }
        decoded.removeAll(keepingCapacity: true)
        let localname = UnsafeBufferPointer(start: scanner.pointee.name, count: scanner.pointee.name_length)
        let element = Attributes(reader: self)
        if depth == 1 {
            if Self.equals(localname, "HealthData") { root = true } else {
                refuse("not an Apple Health export: the root element is <\(Self.quote(localname))>, not <HealthData>")
            }
        } else if depth == 2, Self.equals(localname, "Record") {
            record(element)
        } else if depth == 2, Self.equals(localname, "Workout") {
            startWorkout(element)
        } else if depth == 3, workout != nil, Self.equals(localname, "WorkoutStatistics") {
            workoutStatistics(element)
        }
    }

    func endElement() {
        if depth == 2, let done = workout, failure == nil {
            workout = nil
            take(done)
        }
        depth -= 1
    }

    /// Counts and keeps an entry (`ObjectType.all` lists the sample types in their index order, then workouts).
    func take(_ entry: ExportEntry) {
        staged?.add(entry)
        let index: Int
        switch entry.kind {
        case .sample(let type, _): index = type.index
        case .workout: index = ObjectType.all.count - 1
        }
        taken[index] += 1
        pending.append(entry)
    }

    /// A `Record`: a sample of a modelled type, or a type counted and skipped.
    func record(_ element: Attributes) {
        guard let typeName = element["type"] else { return reject("a Record without a type") }
        guard let type = Self.sampleType(typeName) else {
            guard !Self.hasControlCharacter(typeName) else { return reject("a Record's type \"\(Self.quote(typeName))\" holds a control character") }
            if !Self.equals(typeName, lastUnknown.bytes) {
                // Counted by name, at most 64 bytes of it and 100 names; the rest together.
                let name = Self.quote(typeName)
                lastUnknown = (Array(typeName), unknown[name] != nil || unknown.count < Self.maxUnknownNames ? name : "(other types)")
            }
            unknown[lastUnknown.name, default: 0] += 1
            return
        }
        guard wanted[type.index] else { noteDay(element); filtered += 1; return }
        let what = "Record \(type.exportName)"
        guard let dates = dates(element, what) else { return }
        guard dates.inRange else { filtered += 1; return }
        guard let valueText = element["value"] else { return reject("\(what) has no value") }
        let value: Double
        if type == .sleepAnalysis {
            guard let stage = Self.sleepStage(valueText) else {
                return reject("\(what): unknown sleep value \"\(Self.quote(valueText))\"")
            }
            value = Double(stage.rawValue)
        } else {
            guard let number = Self.number(valueText) else {
                return reject("\(what): value \"\(Self.quote(valueText))\" is not a number")
            }
            let unit = element["unit"]
            guard let factor = Self.unitFactor(type, unit) else {
                return reject("\(what): unit \"\(unit.map { Self.quote($0) } ?? "")\" is not one PairSim converts (\(type.exportUnits.joined(separator: ", ")))")
            }
            value = number * factor
        }
        guard type.validRange.contains(value) else {
            return reject("\(what): value \(HealthExportGenerator.number(value)) \(type.unit) is outside \(HealthExportGenerator.number(type.validRange.lowerBound))…\(HealthExportGenerator.number(type.validRange.upperBound)), the range the wire carries")
        }
        guard let source = source(element, what) else { return }
        take(ExportEntry(kind: .sample(type, value: value), start: dates.start, end: dates.end, dayStart: dates.dayStart,
                         offsetMinutes: dates.offset, source: source))
    }

    func startWorkout(_ element: Attributes) {
        // Noted before the activity's checks, which come before its dates are read (workouts are few).
        noteDay(element)
        guard wanted[ObjectType.all.count - 1] else { filtered += 1; return }
        guard let typeText = element["workoutActivityType"] else { return reject("a Workout without a workoutActivityType") }
        guard !Self.hasControlCharacter(typeText) else { return reject("a Workout's workoutActivityType \"\(Self.quote(typeText))\" holds a control character") }
        let activity = Self.activity(String(decoding: typeText, as: UTF8.self))
        let what = "Workout \(Self.quote(typeText))"
        guard activity.utf8.count <= Workout.maxActivityBytes, !activity.isEmpty else { return reject("\(what): the activity type is empty or over \(Workout.maxActivityBytes) bytes") }
        guard let dates = dates(element, what) else { return }
        guard dates.inRange else { filtered += 1; return }
        guard let source = source(element, what) else { return }
        var active = EmulatedDuration.milliseconds(dates.end - dates.start)
        if let durationText = element["duration"] {
            guard let duration = Self.number(durationText), duration >= 0 else {
                return reject("\(what): duration \"\(Self.quote(durationText))\" is not a number of 0 or more")
            }
            let unit = element["durationUnit"].map { String(decoding: $0, as: UTF8.self) } ?? "min"
            guard let factor = ["min": 60_000.0, "s": 1_000, "hr": 3_600_000, "ms": 1][unit] else {
                return reject("\(what): durationUnit \"\(unit.prefix(64))\" is not min, s, hr or ms")
            }
            // Apple's duration is rounded; it cannot be longer than the workout.
            // Apple's duration is rounded (to the minute, at worst); past that it is not this
            // workout's. Compared in Double first: 1e19 minutes is not an Int64 of milliseconds.
            let span = Double(dates.end - dates.start), ms = (duration * factor).rounded()
            guard ms <= span + 60_000 else {
                return reject("\(what): duration \(HealthExportGenerator.number(duration)) \(unit.prefix(8)) is longer than the workout (\(HealthExportGenerator.number(span / 60_000)) min)")
            }
            active = .milliseconds(Int64(min(span, ms)))
        }
        var energy: Double?
        if let total = element["totalEnergyBurned"] {
            // Exports before version 13 put the energy on the workout itself.
            guard let value = energyValue(total, element["totalEnergyBurnedUnit"], what) else { return }
            energy = value
        }
        workout = ExportEntry(kind: .workout(activity: activity, active: active, energy: energy), start: dates.start, end: dates.end,
                              dayStart: dates.dayStart, offsetMinutes: dates.offset, source: source)
    }

    /// Version 13 and later: the workout's active energy is a `WorkoutStatistics` child.
    func workoutStatistics(_ element: Attributes) {
        guard let type = element["type"], Self.equals(type, "HKQuantityTypeIdentifierActiveEnergyBurned"), let sum = element["sum"] else { return }
        guard let value = energyValue(sum, element["unit"], "WorkoutStatistics HKQuantityTypeIdentifierActiveEnergyBurned") else {
            workout = nil // skipped (--skip-invalid): the workout goes with its statistics
            return
        }
        guard case .workout(let activity, let active, _)? = workout?.kind else { return }
        workout?.kind = .workout(activity: activity, active: active, energy: value)
    }

    func energyValue(_ text: UnsafeBufferPointer<UInt8>, _ unit: UnsafeBufferPointer<UInt8>?, _ what: String) -> Double? {
        guard let number = Self.number(text), let factor = Self.unitFactor(.activeEnergyBurned, unit) else {
            reject("\(what): energy \"\(Self.quote(text))\" \(unit.map { Self.quote($0) } ?? "") is not a number in kcal, Cal or kJ")
            return nil
        }
        let value = number * factor
        guard (0...50_000).contains(value) else { reject("\(what): energy \(HealthExportGenerator.number(value)) kcal is outside 0…50000"); return nil }
        return value
    }

    struct Dates {
        var start: Int64, end: Int64, dayStart: Int64, offset: Int32, inRange: Bool
    }

    /// startDate and endDate, checked; whether the start's local day is within --since/--until.
    func dates(_ element: Attributes, _ what: String) -> Dates? {
        guard let startText = element["startDate"] else { reject("\(what) has no startDate"); return nil }
        guard let endText = element["endDate"] else { reject("\(what) has no endDate"); return nil }
        guard let start = Self.date(startText) else {
            reject("\(what): startDate \"\(Self.quote(startText))\" is not yyyy-MM-dd HH:mm:ss ±HHMM"); return nil
        }
        noteDay(start.dayStart, offset: start.offset)
        guard let end = Self.date(endText) else {
            reject("\(what): endDate \"\(Self.quote(endText))\" is not yyyy-MM-dd HH:mm:ss ±HHMM"); return nil
        }
        guard end.unixMs >= start.unixMs else {
            reject("\(what): endDate \(Self.quote(endText)) is before startDate \(Self.quote(startText))"); return nil
        }
        let day = UnsafeBufferPointer(rebasing: startText[..<10])
        let inRange = (since.map { !Self.less(day, $0) } ?? true) && (until.map { !Self.less($0, day) } ?? true)
        return Dates(start: start.unixMs, end: end.unixMs, dayStart: start.dayStart, offset: start.offset, inRange: inRange)
    }

    /// A record or workout that cannot be imported: with `--skip-invalid` it is left out and
    /// reported by line (R: E5); otherwise the read stops there, the error naming the flag.
    func reject(_ what: String) {
        guard request.skipInvalid else { return refuse(what + " (--skip-invalid imports the rest without it)") }
        skippedCount += 1
        if skippedRecords.count < Self.maxSkippedListed {
            skippedRecords.append("line \(scanner.pointee.event_line), column \(scanner.pointee.event_column): \(what)")
        }
    }

    /// Keeps the earliest local midnight of an entry's startDate: a record left out by type, or a
    /// workout (a record that is read notes its day in `dates`, from its one parse). A malformed
    /// date is refused, if at all, when the entry is read.
    func noteDay(_ element: Attributes) {
        guard let text = element["startDate"], let date = Self.date(text) else { return }
        noteDay(date.dayStart, offset: date.offset)
    }

    func noteDay(_ dayStart: Int64, offset: Int32) {
        if dayStart < earliestDay?.start ?? .max { earliestDay = ExportDay(start: dayStart, offsetMinutes: offset) }
    }

    func source(_ element: Attributes, _ what: String) -> ObjectSource? {
        guard let name = element["sourceName"], name.count > 0 else { reject("\(what) has no sourceName"); return nil }
        // A control character (NUL included) could make it pass, cut there, as the app's own source.
        guard !Self.hasControlCharacter(name) else { reject("\(what): sourceName \"\(Self.quote(name))\" holds a control character"); return nil }
        if !Self.equals(name, lastSource.bytes) {
            lastSource = (Array(name), ObjectSource(truncating: String(decoding: name, as: UTF8.self)))
        }
        return lastSource.source
    }
}
