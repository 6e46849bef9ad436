/// The app's tabs (R: C10). Exercise lives inside Train.
public enum Tab: String, Hashable, Sendable, CaseIterable, Comparable {
    case today, train, wellness

    public static func < (lhs: Tab, rhs: Tab) -> Bool { allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)! }

    /// The types a tab shows (seed 000's table), for per-type tab mapping (R: C11).
    public var types: Set<ObjectType> {
        switch self {
        case .today: [.sample(.heartRateVariabilitySDNN), .sample(.restingHeartRate), .sample(.sleepAnalysis), .sample(.stepCount)]
        case .train: [.sample(.heartRateVariabilitySDNN), .sample(.restingHeartRate), .workout]
        case .wellness: [.sample(.sleepAnalysis), .sample(.bodyMass), .sample(.bodyFatPercentage), .sample(.bodyMassIndex)]
        }
    }

    /// Tabs showing `type`.
    public static func showing(_ type: ObjectType) -> [Tab] { allCases.filter { $0.types.contains(type) } }
}

/// Each tab's loading state: a new reload cancels the previous load (cancel-before-spawn), and a
/// cancelled load never updates the tab (R: C10, corrections #16 and #17 of seed 000).
public struct TabLoads: Hashable, Sendable {
    public struct State: Hashable, Sendable {
        /// Loads started so far; identifies each load.
        public var loads = 0
        /// The load in progress, if any.
        public var loading: Int?
        /// What the tab shows (nil: never loaded).
        public var shown: JSONObject?
    }

    public internal(set) var tabs: [Tab: State] = [:]

    public init() {
        for tab in Tab.allCases { tabs[tab] = State() }
    }

    /// Starts a load of `tab`; returns the new load id and the one it cancelled, if any.
    public mutating func reload(_ tab: Tab) -> (load: Int, cancelled: Int?) {
        var state = tabs[tab]!
        let cancelled = state.loading
        state.loads += 1
        state.loading = state.loads
        tabs[tab] = state
        return (state.loads, cancelled)
    }

    /// A load finished: true if it is the current one (and the tab now shows `content`).
    public mutating func finish(_ tab: Tab, load: Int, content: JSONObject?) -> Bool {
        guard tabs[tab]!.loading == load else { return false }
        tabs[tab]!.loading = nil
        if let content { tabs[tab]!.shown = content }
        return true
    }

    /// The app process ended: loads in progress are gone.
    public mutating func reset() {
        for tab in Tab.allCases { tabs[tab]!.loading = nil }
    }
}
