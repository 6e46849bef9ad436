/// A count a new emulated day (midnight) starts again: the complication transfers and widget
/// reloads an app gets per day (R: F4).
struct DailyBudget: Hashable, Sendable {
    static let dayMilliseconds: Int64 = 86_400_000

    /// The emulated day the count is for (days since the epoch), and what it used.
    private(set) var day: Int64 = 0
    private(set) var used = 0

    /// What is left of `limit` on the day of `now`.
    mutating func remaining(of limit: Int, now: EmulatedInstant) -> Int {
        let today = now.milliseconds / Self.dayMilliseconds
        if today != day {
            day = today
            used = 0
        }
        return max(0, limit - used)
    }

    /// Uses one of today's (call `remaining` first).
    mutating func take() { used += 1 }

    /// The next midnight: when the budget is whole again.
    var nextDay: EmulatedInstant { .zero + .milliseconds((day + 1) * Self.dayMilliseconds) }
}
