/// What the app's `SharedHealthDataService` returns: the values the tabs show, read from HealthKit
/// (a type the app may not read shows only the app's own data, R: H3).
public struct HealthSnapshot: Hashable, Sendable {
    public var hrv: Double?
    public var restingHeartRate: Double?
    /// Asleep time in the last 24 h.
    public var sleep: EmulatedDuration?
    /// Steps in the last 24 h.
    public var steps: Double?
    public var bodyMass: Double?
    public var bodyFat: Double?
    public var bmi: Double?
    /// Workouts in HealthKit, newest first.
    public var workouts: [Workout] = []
    /// When the queries ran.
    public var takenAt: EmulatedInstant

    /// One query per observed type.
    public static let queryCount = ObjectType.observed.count

    /// Reads the snapshot through what HealthKit lets the app see.
    public init(reads: HealthReads, now: EmulatedInstant) {
        takenAt = now
        hrv = reads.latestSample(.heartRateVariabilitySDNN)?.value
        restingHeartRate = reads.latestSample(.restingHeartRate)?.value
        bodyMass = reads.latestSample(.bodyMass)?.value
        bodyFat = reads.latestSample(.bodyFatPercentage)?.value
        bmi = reads.latestSample(.bodyMassIndex)?.value
        let dayAgo = now - .days(1)
        let recent = reads.samples(.stepCount, from: dayAgo, to: now)
        steps = recent.isEmpty ? nil : recent.reduce(0) { $0 + $1.value }
        let asleep = reads.samples(.sleepAnalysis, from: dayAgo, to: now).filter {
            let stage = SleepStage(rawValue: Int($0.value))
            return stage != .inBed && stage != .awake
        }
        sleep = asleep.isEmpty ? nil : asleep.reduce(EmulatedDuration.zero) { $0 + ($1.end - $1.start) }
        workouts = reads.workouts.reversed()
    }

    /// The fields a tab shows, for `tab.loaded`.
    public func fields(for tab: Tab) -> JSONObject {
        var o = JSONObject()
        func put(_ key: String, _ value: Double?) { o.append(key, value.map { .double($0.roundedToTenth) } ?? .null) }
        switch tab {
        case .today:
            put("hrv", hrv); put("rhr", restingHeartRate)
            o.append("sleep", sleep.map { .string($0.description) } ?? .null); put("steps", steps)
        case .train:
            put("hrv", hrv); put("rhr", restingHeartRate)
        case .wellness:
            o.append("sleep", sleep.map { .string($0.description) } ?? .null)
            put("weight", bodyMass); put("bodyFat", bodyFat); put("bmi", bmi)
        }
        return o
    }
}
