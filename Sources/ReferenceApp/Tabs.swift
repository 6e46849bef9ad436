import PairSimKit

/// The app's tabs (R: C10). Exercise lives inside Train.
enum Tab: String, CaseIterable, Sendable {
    case today, train, wellness

    /// The types a tab shows (seed 000's table), for per-type tab mapping (R: C11).
    var types: [HKSampleType] {
        switch self {
        case .today: [ObservedTypes.hrv, ObservedTypes.rhr, ObservedTypes.sleep, ObservedTypes.steps]
        case .train: [ObservedTypes.hrv, ObservedTypes.rhr, ObservedTypes.workout]
        case .wellness: [ObservedTypes.sleep, ObservedTypes.weight, ObservedTypes.bodyFat, ObservedTypes.bmi]
        }
    }

    /// Tabs showing `type`.
    static func showing(_ type: HKSampleType) -> [Tab] { allCases.filter { $0.types.contains(type) } }
}

/// Each tab's loading state: a new reload cancels the previous load (cancel-before-spawn), and a
/// cancelled load never updates the tab (R: C10, corrections #16 and #17 of seed 000).
struct TabLoads {
    struct State {
        /// Loads started so far; identifies each load.
        var loads = 0
        /// The load in progress, if any.
        var loading: Int?
        /// What the tab shows, as the log wrote it (nil: never loaded).
        var shownText: String?
    }

    private(set) var tabs: [Tab: State] = [.today: State(), .train: State(), .wellness: State()]

    /// Starts a load of `tab`; returns the new load id and the one it cancelled, if any.
    mutating func reload(_ tab: Tab) -> (load: Int, cancelled: Int?) {
        var state = tabs[tab]!
        let cancelled = state.loading
        state.loads += 1
        state.loading = state.loads
        tabs[tab] = state
        return (state.loads, cancelled)
    }

    /// A load finished: true if it is the current one (and the tab now shows `text`).
    mutating func finish(_ tab: Tab, load: Int, text: String?) -> Bool {
        guard tabs[tab]!.loading == load else { return false }
        tabs[tab]!.loading = nil
        if let text { tabs[tab]!.shownText = text }
        return true
    }
}

/// The 8 types the app observes (seed 001), and their command short names.
enum ObservedTypes {
    static let hrv = HKQuantityType(.heartRateVariabilitySDNN)
    static let rhr = HKQuantityType(.restingHeartRate)
    static let sleep = HKCategoryType(.sleepAnalysis)
    static let steps = HKQuantityType(.stepCount)
    static let weight = HKQuantityType(.bodyMass)
    static let bodyFat = HKQuantityType(.bodyFatPercentage)
    static let bmi = HKQuantityType(.bodyMassIndex)
    static let workout = HKObjectType.workoutType()
    static let heartRate = HKQuantityType(.heartRate)

    /// In seed 001's order.
    static let all: [HKSampleType] = [hrv, rhr, sleep, steps, weight, bodyFat, bmi, workout]

    /// `hrv`, `rhr`, `sleep`, `steps`, `weight`, `bodyfat`, `bmi`, `workout`.
    static let byShortName: [(String, HKSampleType)] = all.map { ($0.shortName, $0) }
}
