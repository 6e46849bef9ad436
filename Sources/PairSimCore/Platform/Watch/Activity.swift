/// Workout activity types the watch offers, with the heart-rate profile each one produces.
public struct Activity: Hashable, Sendable {
    /// Command and wire name, e.g. `running`.
    public var name: String
    /// Steady-state heart rate (bpm) for a typical adult.
    public var steadyHeartRate: Double
    /// Spread of the steady phase (bpm).
    public var variability: Double
    /// Interval training: alternates hard and easy every this many seconds (0 = steady).
    public var intervalSeconds: Double

    public static let all: [Activity] = [
        Activity(name: "running", steadyHeartRate: 152, variability: 4, intervalSeconds: 0),
        Activity(name: "walking", steadyHeartRate: 104, variability: 3, intervalSeconds: 0),
        Activity(name: "cycling", steadyHeartRate: 138, variability: 5, intervalSeconds: 0),
        Activity(name: "swimming", steadyHeartRate: 134, variability: 5, intervalSeconds: 0),
        Activity(name: "rowing", steadyHeartRate: 146, variability: 4, intervalSeconds: 0),
        Activity(name: "hiit", steadyHeartRate: 150, variability: 4, intervalSeconds: 40),
        Activity(name: "strength", steadyHeartRate: 116, variability: 6, intervalSeconds: 90),
        Activity(name: "yoga", steadyHeartRate: 92, variability: 3, intervalSeconds: 0),
    ]

    /// Looks an activity up by name.
    public static func named(_ name: String) -> Activity? { all.first { $0.name == name } }
}
