/// A count a new day (the device's local midnight) starts again: the complication transfers and
/// widget reloads an app gets per day (R: F4, F5).
struct DailyBudget: Hashable, Sendable {
    /// The day the count is for (days since 1970-01-01 on the device's calendar), and what it used.
    private(set) var day: Int64 = 0
    private(set) var used = 0

    /// What is left of `limit` on the device's day at `now`.
    mutating func remaining(of limit: Int, now: EmulatedInstant, clock: DeviceClock) -> Int {
        let today = clock.localDay(at: now)
        if today != day {
            day = today
            used = 0
        }
        return max(0, limit - used)
    }

    /// Uses one of today's (call `remaining` first).
    mutating func take() { used += 1 }

    /// The next local midnight on `clock`: when the budget is whole again.
    func nextDay(clock: DeviceClock) -> EmulatedInstant { clock.startOfLocalDay(day + 1) }
}
