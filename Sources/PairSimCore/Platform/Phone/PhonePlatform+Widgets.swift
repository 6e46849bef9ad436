/// WidgetKit's timeline reloads and their daily budget (R: F4): `WidgetCenter.reloadTimelines(ofKind:)`
/// / `reloadAllTimelines()` (kind nil) asked on screen are free; off screen each counts against
/// the day's budget (`app.widgetReloadsPerDay`), and past it waits for the next day's.
extension PhonePlatform {
    mutating func reloadWidgets(_ kind: String?, now: EmulatedInstant) -> [NodeAction] {
        let name = kind ?? "all"
        if app.isOnScreen { return [event(.widgetReloaded, now, ["kind": .string(name), "counted": false])] }
        let remaining = widgetBudget.remaining(of: config.app.widgetReloadsPerDay, now: now, clock: time.clock)
        guard remaining > 0 else {
            if widgetReloadsWaiting.isEmpty { timers.schedule(.widgetBudget, at: widgetBudget.nextDay(clock: time.clock)) }
            if !widgetReloadsWaiting.contains(kind ?? "") { widgetReloadsWaiting.append(kind ?? "") }
            return [event(.widgetThrottled, now, level: .warning, ["kind": .string(name), "reason": "the day's reload budget is spent; it reloads tomorrow"])]
        }
        widgetBudget.take()
        return [event(.widgetReloaded, now, ["kind": .string(name), "counted": true, "remaining": .int(Int64(remaining - 1))])]
    }

    /// A new day: the reloads that waited happen, counted against it.
    mutating func widgetBudgetRestored(now: EmulatedInstant) -> [NodeAction] {
        let waiting = widgetReloadsWaiting
        widgetReloadsWaiting = []
        return waiting.flatMap { reloadWidgets($0.isEmpty ? nil : $0, now: now) }
    }
}
