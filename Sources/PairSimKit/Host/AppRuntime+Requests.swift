internal import PairSimCore

// What the API objects ask the platform for: queries, requests answered by `done`, timers.
extension AppRuntime {
    /// Executes a query; `completion` gets the platform's answer.
    func query(_ spec: QuerySpec, completion: @escaping (QueryResult) -> Void) {
        let id = id()
        pendingQueries[id] = completion
        send(.query(id: id, spec))
    }

    /// Sends a request answered by `done`.
    func request(_ make: (Int) -> AppRequest, completion: @escaping (String?) -> Void) {
        let id = id()
        pendingDone[id] = completion
        send(make(id))
    }

    /// Runs `body` when the app's clock reaches `instant`; returns the timer's id.
    @discardableResult
    func schedule(at instant: EmulatedInstant, _ body: @escaping () -> Void) -> Int {
        let id = id()
        timers[id] = body
        send(.scheduleTimer(id: id, at: instant))
        return id
    }

    /// Runs `body` later in this instant, as HealthKit calls a completion after the call returned.
    func completeLater(_ body: @escaping () -> Void) { schedule(at: now, body) }

    func cancelTimer(_ id: Int) {
        guard timers.removeValue(forKey: id) != nil else { return }
        send(.cancelTimer(id))
    }
}
