import Foundation
import PairSimCore

/// Writes a synthetic Apple Health export (`export.xml`, the shape of "Export All Health Data",
/// HealthKit export version 14) for anyone without one of their own, and for tests and benchmarks
/// (R: E2). No real person's data: every value is drawn from the seed, so the same options always
/// write the same bytes. Written as it goes (a five-year export is hundreds of MB).
///
/// Like Apple's export, records come grouped by type, then workouts, then activity summaries; dates
/// are `yyyy-MM-dd HH:mm:ss ±HHMM`; records carry no UUIDs (Apple's export has none).
public struct HealthExportGenerator {
    public struct Options: Sendable {
        /// Days of data, from `start`.
        public var days: Int
        public var seed: UInt64
        /// The first day (local), as year, month, day.
        public var start: (year: Int, month: Int, day: Int) = (2024, 1, 1)
        /// The offset every date carries (minutes east of UTC).
        public var utcOffsetMinutes = 0

        public init(days: Int, seed: UInt64) {
            self.days = days
            self.seed = seed
        }
    }

    /// What was written, by element and record type: what an import of the file should find.
    public struct Counts: Equatable, Sendable {
        /// `Record`s by their `type` attribute.
        public var records: [String: Int] = [:]
        public var workouts = 0
        public var workoutStatistics = 0
        public var workoutEvents = 0
        public var activitySummaries = 0

        public init() {}
        public var totalRecords: Int { records.values.reduce(0, +) }

        /// What an import of the file saves, by the store's type names (`heartRate`, …, `workout`);
        /// types with none left out.
        public var byStoreType: [String: Int] {
            var byType: [String: Int] = ["workout": workouts]
            for (name, count) in records { if let type = SampleType(exportName: name) { byType[type.rawValue, default: 0] += count } }
            return byType.filter { $0.value > 0 }
        }
    }

    /// One workout of a day: what the heart-rate, step and energy records around it follow.
    struct Workout {
        var activity: (type: String, hr: ClosedRange<Double>, kmPerMinute: Double?)
        var start: Int64   // local seconds
        var minutes: Double
        var end: Int64 { start + Int64(minutes * 60) }
    }

    static let activities: [(type: String, hr: ClosedRange<Double>, kmPerMinute: Double?)] = [
        ("HKWorkoutActivityTypeRunning", 135...172, 0.17), ("HKWorkoutActivityTypeWalking", 95...120, 0.09),
        ("HKWorkoutActivityTypeCycling", 120...160, nil), ("HKWorkoutActivityTypeTraditionalStrengthTraining", 100...145, nil),
        ("HKWorkoutActivityTypeYoga", 80...110, nil), ("HKWorkoutActivityTypeHighIntensityIntervalTraining", 140...178, nil),
    ]

    public static let watch = "PairSim’s Apple Watch"
    public static let phone = "PairSim’s iPhone"
    static let watchDevice = "&lt;&lt;HKDevice: 0x600001, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch7,1, software:10.4&gt;&gt;"
    static let phoneDevice = "&lt;&lt;HKDevice: 0x600002, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone15,2, software:17.4&gt;&gt;"

    let options: Options
    let firstDay: Int64   // days since 1970-01-01 of `start`
    let offset: String

    public init(_ options: Options) {
        self.options = options
        firstDay = CivilDate.days(options.start.year, options.start.month, options.start.day)
        let minutes = abs(options.utcOffsetMinutes)
        offset = (options.utcOffsetMinutes < 0 ? "-" : "+") + Self.pad(minutes / 60, 2) + Self.pad(minutes % 60, 2)
    }

    /// Writes the whole export through `write` (called with pieces of the file, in order).
    public func write(_ write: @escaping (String) throws -> Void) throws -> Counts {
        var counts = Counts()
        var out = ExportOut(write: write)
        try out.put(Self.header)
        try out.put(" <ExportDate value=\"\(date(dayStart(options.days) + 8 * 3_600))\"/>\n")
        try out.put(" <Me HKCharacteristicTypeIdentifierDateOfBirth=\"1990-04-12\" HKCharacteristicTypeIdentifierBiologicalSex=\"HKBiologicalSexFemale\" HKCharacteristicTypeIdentifierBloodType=\"HKBloodTypeNotSet\" HKCharacteristicTypeIdentifierFitzpatrickSkinType=\"HKFitzpatrickSkinTypeNotSet\" HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse=\"None\"/>\n")
        let days = 0..<max(0, options.days)
        for day in days { try heartRates(day, &out, &counts) }
        for day in days { try nightly(day, &out, &counts) }
        for day in days { try hourly(day, &out, &counts) }
        for day in days where day % 7 == 0 { try weighIn(day, &out, &counts) }
        for day in days { if let workout = workout(on: day) { try workoutElement(workout, day, &out, &counts) } }
        for day in days { try activitySummary(day, &out, &counts) }
        try out.put("</HealthData>\n")
        try out.flush()
        return counts
    }

    // MARK: Days

    func dayStart(_ day: Int) -> Int64 { (firstDay + Int64(day)) * 86_400 }

    func random(_ what: String, _ day: Int) -> SplitMix64 { SplitMix64(seed: options.seed, label: "health-export.\(what).\(day)") }

    /// Most days have a workout, in the morning or the evening.
    func workout(on day: Int) -> Workout? {
        var random = random("workout", day)
        guard random.chance(0.7) else { return nil }
        let activity = Self.activities[Int(random.uniform(0, Double(Self.activities.count)))]
        let morning = random.chance(0.35)
        let start = dayStart(day) + Int64(random.uniform(morning ? 6.25 : 17, morning ? 7.5 : 19.5) * 3_600)
        return Workout(activity: activity, start: start, minutes: (random.uniform(20, 65) * 10).rounded() / 10)
    }

    /// Heart rate every few minutes (lower asleep), every 5 s during the day's workout; resting
    /// heart rate once a day.
    func heartRates(_ day: Int, _ out: inout ExportOut, _ counts: inout Counts) throws {
        var random = random("heart-rate", day)
        let workout = workout(on: day)
        var t = dayStart(day) + Int64(random.uniform(0, 120))
        let end = dayStart(day + 1)
        while t < end {
            let hour = Double(t - dayStart(day)) / 3_600
            let value: Double
            var context = "1"
            if let workout, t >= workout.start, t < workout.end {
                let progress = Double(t - workout.start) / Double(workout.end - workout.start)
                let range = workout.activity.hr
                value = range.lowerBound + (range.upperBound - range.lowerBound) * min(1, progress * 3) * random.uniform(0.85, 1)
                context = "2"
            } else if hour < 7 || hour >= 23 {
                value = random.uniform(48, 62)
                context = "0"
            } else {
                value = random.uniform(62, 95)
            }
            try quantity("HKQuantityTypeIdentifierHeartRate", "count/min", value.rounded(), at: t, creationDelay: 30, &out, &counts,
                         metadata: [("HKMetadataKeyHeartRateMotionContext", context)])
            if let workout, t >= workout.start - 300, t < workout.end { t += 5 } else {
                t += Int64(random.uniform(hour < 7 || hour >= 23 ? 480 : 240, hour < 7 || hour >= 23 ? 900 : 360))
                if let workout, t > workout.start, t < workout.end { t = workout.start }
            }
        }
        try quantity("HKQuantityTypeIdentifierRestingHeartRate", "count/min", random.uniform(52, 64).rounded(),
                     at: dayStart(day) + 7 * 3_600 + 1_800, creationDelay: 60, &out, &counts)
    }

    /// Last night's sleep stages and HRV readings taken asleep.
    func nightly(_ day: Int, _ out: inout ExportOut, _ counts: inout Counts) throws {
        var random = random("sleep", day)
        let bed = dayStart(day) - 3_600 + Int64(random.uniform(-1_800, 1_800))
        let wake = dayStart(day) + 7 * 3_600 + Int64(random.uniform(-1_800, 1_800))
        try category("HKCategoryTypeIdentifierSleepAnalysis", "HKCategoryValueSleepAnalysisInBed", from: bed, to: wake, source: Self.phone, &out, &counts)
        var t = bed + Int64(random.uniform(300, 1_200))
        let stages: [(String, ClosedRange<Double>)] = [
            ("HKCategoryValueSleepAnalysisAsleepCore", 1_800...3_600), ("HKCategoryValueSleepAnalysisAsleepDeep", 900...2_400),
            ("HKCategoryValueSleepAnalysisAsleepCore", 900...2_400), ("HKCategoryValueSleepAnalysisAsleepREM", 900...1_800),
            ("HKCategoryValueSleepAnalysisAwake", 60...480),
        ]
        var index = 0
        while t < wake {
            let (value, length) = stages[index % stages.count]
            let end = min(wake, t + Int64(random.uniform(length.lowerBound, length.upperBound)))
            try category("HKCategoryTypeIdentifierSleepAnalysis", value, from: t, to: end, source: Self.watch, &out, &counts)
            t = end
            index += 1
        }
        for _ in 0..<3 {
            let at = bed + Int64(random.uniform(1_800, Double(max(3_600, wake - bed - 600))))
            try quantity("HKQuantityTypeIdentifierHeartRateVariabilitySDNN", "ms", (random.uniform(28, 85) * 10).rounded() / 10,
                         at: at, creationDelay: 120, &out, &counts)
        }
    }

    /// Steps and active energy, an hour at a time through the waking day (more in the workout's hour).
    func hourly(_ day: Int, _ out: inout ExportOut, _ counts: inout Counts) throws {
        var random = random("hourly", day)
        let workout = workout(on: day)
        for type in ["HKQuantityTypeIdentifierStepCount", "HKQuantityTypeIdentifierActiveEnergyBurned"] {
            for hour in 7..<23 {
                let from = dayStart(day) + Int64(hour) * 3_600
                let busy = workout.map { $0.start < from + 3_600 && $0.end > from } ?? false
                let steps = type == "HKQuantityTypeIdentifierStepCount"
                let value = steps ? random.uniform(busy ? 2_500 : 40, busy ? 7_000 : 1_400).rounded()
                                  : (random.uniform(busy ? 180 : 8, busy ? 420 : 55) * 1_000).rounded() / 1_000
                try interval(type, steps ? "count" : "Cal", value, from: from, to: from + 3_600,
                             source: steps ? Self.phone : Self.watch, &out, &counts)
            }
        }
    }

    /// A weekly weigh-in: body mass, body fat percentage and BMI, from a smart scale's app.
    func weighIn(_ day: Int, _ out: inout ExportOut, _ counts: inout Counts) throws {
        var random = random("weigh-in", day)
        let mass = ((64 + 3 * sin(Double(day) / 40) + random.uniform(-0.6, 0.6)) * 10).rounded() / 10
        let at = dayStart(day) + 7 * 3_600 + Int64(random.uniform(300, 1_500))
        let source = "Withings"
        try interval("HKQuantityTypeIdentifierBodyMass", "kg", mass, from: at, to: at, source: source, &out, &counts)
        try interval("HKQuantityTypeIdentifierBodyFatPercentage", "%", (random.uniform(0.19, 0.26) * 1_000).rounded() / 1_000,
                     from: at, to: at, source: source, &out, &counts)
        try interval("HKQuantityTypeIdentifierBodyMassIndex", "count", (mass / (1.68 * 1.68) * 10).rounded() / 10,
                     from: at, to: at, source: source, &out, &counts)
    }

    func workoutElement(_ workout: Workout, _ day: Int, _ out: inout ExportOut, _ counts: inout Counts) throws {
        var random = random("workout-stats", day)
        let start = date(workout.start), end = date(workout.end)
        try out.put(" <Workout workoutActivityType=\"\(workout.activity.type)\" duration=\"\(Self.number(workout.minutes))\" durationUnit=\"min\" sourceName=\"\(Self.watch)\" sourceVersion=\"10.4\" device=\"\(Self.watchDevice)\" creationDate=\"\(date(workout.end + 40))\" startDate=\"\(start)\" endDate=\"\(end)\">\n")
        try out.put("  <MetadataEntry key=\"HKIndoorWorkout\" value=\"\(workout.activity.kmPerMinute == nil ? 1 : 0)\"/>\n")
        if workout.minutes > 30 {
            let pause = workout.start + Int64(workout.minutes * 30)
            try out.put("  <WorkoutEvent type=\"HKWorkoutEventTypePause\" date=\"\(date(pause))\"/>\n")
            try out.put("  <WorkoutEvent type=\"HKWorkoutEventTypeResume\" date=\"\(date(pause + 45))\"/>\n")
            counts.workoutEvents += 2
        }
        let energy = (workout.minutes * random.uniform(6, 12) * 100).rounded() / 100
        try out.put("  <WorkoutStatistics type=\"HKQuantityTypeIdentifierActiveEnergyBurned\" startDate=\"\(start)\" endDate=\"\(end)\" sum=\"\(Self.number(energy))\" unit=\"Cal\"/>\n")
        let hr = workout.activity.hr
        try out.put("  <WorkoutStatistics type=\"HKQuantityTypeIdentifierHeartRate\" startDate=\"\(start)\" endDate=\"\(end)\" average=\"\(Self.number((hr.lowerBound + hr.upperBound) / 2 - 6))\" minimum=\"\(Self.number(hr.lowerBound - 20))\" maximum=\"\(Self.number(hr.upperBound))\" unit=\"count/min\"/>\n")
        counts.workoutStatistics += 2
        if let pace = workout.activity.kmPerMinute {
            let km = (workout.minutes * pace * random.uniform(0.85, 1.15) * 100).rounded() / 100
            try out.put("  <WorkoutStatistics type=\"HKQuantityTypeIdentifierDistanceWalkingRunning\" startDate=\"\(start)\" endDate=\"\(end)\" sum=\"\(Self.number(km))\" unit=\"km\"/>\n")
            counts.workoutStatistics += 1
        }
        try out.put(" </Workout>\n")
        counts.workouts += 1
    }

    func activitySummary(_ day: Int, _ out: inout ExportOut, _ counts: inout Counts) throws {
        var random = random("summary", day)
        let (y, m, d) = CivilDate.date(firstDay + Int64(day))
        try out.put(" <ActivitySummary dateComponents=\"\(y)-\(Self.pad(m, 2))-\(Self.pad(d, 2))\" activeEnergyBurned=\"\(Self.number((random.uniform(250, 750) * 1_000).rounded() / 1_000))\" activeEnergyBurnedGoal=\"500\" activeEnergyBurnedUnit=\"Cal\" appleMoveTime=\"0\" appleMoveTimeGoal=\"0\" appleExerciseTime=\"\(Int(random.uniform(5, 70)))\" appleExerciseTimeGoal=\"30\" appleStandHours=\"\(Int(random.uniform(6, 14)))\" appleStandHoursGoal=\"12\"/>\n")
        counts.activitySummaries += 1
    }

    // MARK: Elements

    func quantity(_ type: String, _ unit: String, _ value: Double, at t: Int64, creationDelay: Int64,
                  _ out: inout ExportOut, _ counts: inout Counts, metadata: [(String, String)] = []) throws {
        let when = date(t)
        try record(type, unit: unit, value: Self.number(value), created: date(t + creationDelay), start: when, end: when,
                   source: Self.watch, device: Self.watchDevice, metadata: metadata, &out, &counts)
    }

    func interval(_ type: String, _ unit: String, _ value: Double, from: Int64, to: Int64, source: String,
                  _ out: inout ExportOut, _ counts: inout Counts) throws {
        try record(type, unit: unit, value: Self.number(value), created: date(to + 60), start: date(from), end: date(to),
                   source: source, device: source == Self.watch ? Self.watchDevice : source == Self.phone ? Self.phoneDevice : nil,
                   metadata: [], &out, &counts)
    }

    func category(_ type: String, _ value: String, from: Int64, to: Int64, source: String,
                  _ out: inout ExportOut, _ counts: inout Counts) throws {
        try record(type, unit: nil, value: value, created: date(to + 300), start: date(from), end: date(to), source: source,
                   device: source == Self.watch ? Self.watchDevice : nil, metadata: [], &out, &counts)
    }

    func record(_ type: String, unit: String?, value: String, created: String, start: String, end: String, source: String,
                device: String?, metadata: [(String, String)], _ out: inout ExportOut, _ counts: inout Counts) throws {
        var line = " <Record type=\"\(type)\" sourceName=\"\(source)\" sourceVersion=\"10.4\""
        if let device { line += " device=\"\(device)\"" }
        if let unit { line += " unit=\"\(unit)\"" }
        line += " creationDate=\"\(created)\" startDate=\"\(start)\" endDate=\"\(end)\" value=\"\(value)\""
        if metadata.isEmpty {
            line += "/>\n"
        } else {
            line += ">\n"
            for (key, value) in metadata { line += "  <MetadataEntry key=\"\(key)\" value=\"\(value)\"/>\n" }
            line += " </Record>\n"
        }
        try out.put(line)
        counts.records[type, default: 0] += 1
    }
}
