import PairSimCore

/// `at MS COMMAND` on the control socket (R: K9): a command that runs at its very instant, which
/// `topology run` sends ahead so that none lands late in wall time.
extension NodeLoop {
    /// Now, as a turn hands it to the model (kept as `lastTurnAt`).
    func turnNow() -> EmulatedInstant {
        let now = options.clock.now()
        if now > lastTurnAt { lastTurnAt = now }
        return now
    }

    /// Runs a scheduled command at `instant`, what was due before it first. A command that arrives
    /// a little after its instant still runs at it when the model was handed nothing since.
    func runScheduled(_ command: String, at instant: EmulatedInstant) -> CommandResult {
        var actions: [NodeAction] = []
        if let next = Model.nextDeadline(of: &model), next <= instant { actions = model.advance(to: instant) }
        if instant > lastTurnAt { lastTurnAt = instant }
        var result = model.handleLogged(commandText: command, now: instant)
        result.actions = actions + result.actions
        return result
    }
}

extension NodeProcess {
    /// `at MS COMMAND`: COMMAND to run when emulated time reaches MS (R: K9); nil when the request
    /// is something else.
    static func scheduledRequest(_ bytes: [UInt8]) -> Result<(EmulatedInstant, String), CommandError>? {
        guard bytes.count >= 2, bytes.count <= NodeProcess.maxCommandBytes, bytes[0] == 0x61, bytes[1] == 0x74,
              bytes.count == 2 || bytes[2] == 0x20 || bytes[2] == 0x09 else { return nil }
        let rest = String(decoding: bytes[min(3, bytes.count)...], as: UTF8.self).trimmingCharacters(in: .whitespaces)
        let number = rest.prefix { $0.isASCII && $0.isNumber }
        let command = rest.dropFirst(number.count).trimmingCharacters(in: .whitespaces)
        guard !number.isEmpty, number.count <= 15, let ms = Int64(number), rest.dropFirst(number.count).first == " ", !command.isEmpty else {
            return .failure(CommandError("at: expected at <milliseconds> <command> (at 60000 start-workout running), got \"\(rest.prefix(64))\""))
        }
        guard !["at", "ping", "shutdown", "clock-status"].contains(command.prefix { $0 != " " }.lowercased()) else {
            return .failure(CommandError("at: \(command.prefix { $0 != " " }) cannot be scheduled; at schedules the node's own commands"))
        }
        return .success((EmulatedInstant(milliseconds: ms), command))
    }
}
