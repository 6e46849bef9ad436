/// What the app's `SharedHealthDataService` returns: the values the tabs show, read from HealthKit
/// (a denied type reads as no data, R: H3).
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

    /// Reads the snapshot from `store`, honouring read authorization.
    public init(store: HealthStore, readable: (ObjectType) -> Bool, now: EmulatedInstant) {
        takenAt = now
        func latest(_ type: SampleType) -> Double? {
            readable(.sample(type)) ? store.latestSample(type)?.value : nil
        }
        hrv = latest(.heartRateVariabilitySDNN)
        restingHeartRate = latest(.restingHeartRate)
        bodyMass = latest(.bodyMass)
        bodyFat = latest(.bodyFatPercentage)
        bmi = latest(.bodyMassIndex)
        let dayAgo = now - .days(1)
        if readable(.sample(.stepCount)) {
            let recent = store.samples(.stepCount, from: dayAgo, to: now)
            steps = recent.isEmpty ? nil : recent.reduce(0) { $0 + $1.value }
        }
        if readable(.sample(.sleepAnalysis)) {
            let asleep = store.samples(.sleepAnalysis, from: dayAgo, to: now).filter {
                let stage = SleepStage(rawValue: Int($0.value))
                return stage != .inBed && stage != .awake
            }
            sleep = asleep.isEmpty ? nil : asleep.reduce(EmulatedDuration.zero) { $0 + ($1.end - $1.start) }
        }
        if readable(.workout) { workouts = store.workouts.reversed() }
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
