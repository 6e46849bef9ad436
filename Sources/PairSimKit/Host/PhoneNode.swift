package import PairSimCore

/// The phone as both drivers run it: the platform (a pure state machine) with an app under it.
/// After every input the app is handed what the platform has for it, and its requests go back to
/// the platform, until neither has anything more at this instant.
package struct PhoneNode: NodeModel {
    package private(set) var platform: PhonePlatform
    package let runtime: AppRuntime

    package init(topology: Topology, boot: String, app: AppRegistration) {
        platform = PhonePlatform(topology: topology, boot: boot)
        runtime = AppRuntime(registration: app, seed: topology.seed(for: .phone))
    }

    package var node: NodeName { .phone }
    package var nextDeadline: EmulatedInstant? { platform.nextDeadline }

    package mutating func start(now: EmulatedInstant) -> [NodeAction] {
        var actions = platform.start(now: now)
        actions[0] = Self.naming(actions[0], app: runtime.registration.name)
        settle(&actions, now: now)
        return actions
    }

    package mutating func handle(command: ParsedCommand, now: EmulatedInstant) -> CommandResult {
        let appCommands = runtime.registration.commandSpecs
        guard appCommands.contains(where: { $0.verb == command.verb }) else {
            var result = platform.handle(command: command, appCommands: appCommands, now: now)
            if command.verb == "status", result.ok {
                let lines = runtime.status(now: now)
                if command.options["json"] != nil, var object = (try? JSONParser().parse(result.reply))?.objectValue {
                    object.append("app", .array(lines.map(JSON.string)))
                    result.reply = JSONWriter.string(.object(object))
                } else if !lines.isEmpty {
                    result.reply += "\n" + lines.map { "app: " + $0 }.joined(separator: "\n")
                }
            }
            settle(&result.actions, now: now)
            return result
        }
        guard platform.app.isOnScreen else {
            return .failure(CommandError("\(command.verb): the app is not on screen (\(platform.app.rawValue)); use 'foreground' first"))
        }
        let id = platform.userAction(command)
        var actions: [NodeAction] = []
        settle(&actions, now: now)
        // What completes later in this same instant (a completion HealthKit calls after the call
        // returned, Task.yield, a zero sleep) is part of the answer; only emulated time passing is not.
        var reply = platform.takeReply(id)
        var rounds = 0
        while reply == nil, rounds < 10_000, let next = platform.nextDeadline, next <= now {
            actions += advance(to: now)
            reply = platform.takeReply(id)
            rounds += 1
        }
        guard let reply else {
            if let crash = actions.events.first(where: { $0.name == EventName.appCrashed.rawValue }) {
                return CommandResult(ok: false, reply: "\(command.verb): the app crashed doing it (\(crash["signal"]?.stringValue ?? "a trap")); its process ended",
                                     actions: actions)
            }
            return CommandResult(ok: true, reply: "\(command.verb): the app is still working on it (it waits on its clock)", actions: actions)
        }
        return CommandResult(ok: reply.ok, reply: reply.text, actions: actions)
    }

    package mutating func receive(frames: [[UInt8]], now: EmulatedInstant) -> [NodeAction] {
        var actions = platform.receive(frames: frames, now: now)
        settle(&actions, now: now)
        return actions
    }

    package mutating func peerConnected(now: EmulatedInstant) -> [NodeAction] {
        var actions = platform.peerConnected(now: now)
        settle(&actions, now: now)
        return actions
    }

    package mutating func advance(to now: EmulatedInstant) -> [NodeAction] {
        var actions = platform.advance(to: now)
        settle(&actions, now: now)
        return actions
    }

    package func stop(now: EmulatedInstant) -> [NodeAction] { platform.stop(now: now) }
    package func persistentValues() -> [String: JSON] { platform.persistentValues() }
    package mutating func changedValues() -> [String: JSON] { platform.changedValues() }
    package mutating func restore(_ state: PersistedState, now: EmulatedInstant) throws(DecodeError) {
        try platform.restore(state, now: now)
    }

    /// Runs `body` on the platform (tests and tools feeding it directly), then lets the app react.
    package mutating func inject(now: EmulatedInstant, _ body: (inout PhonePlatform, EmulatedInstant) -> [NodeAction]) -> [NodeAction] {
        var actions = body(&platform, now)
        settle(&actions, now: now)
        return actions
    }

    /// Hands the app everything the platform has for it, and the platform everything the app
    /// asked, until both are done for this instant.
    mutating func settle(_ actions: inout [NodeAction], now: EmulatedInstant) {
        var rounds = 0
        while true {
            let calls = platform.takeAppCalls()
            if calls.isEmpty { break }
            for (index, call) in calls.enumerated() {
                if case .wcReceived = call {
                    runtime.session.hasContentPending = calls[(index + 1)...].contains { if case .wcReceived = $0 { true } else { false } }
                }
                let requests = runtime.deliver(call, now: now)
                actions += platform.handle(requests, answering: call, now: now)
            }
            rounds += 1
            if rounds == 10_000 {
                // An app that answers every call with another request at the same instant never lets time move.
                actions += platform.handle([.misbehaved(kind: "livelock", detail: "10000 rounds of calls at one instant; stopped delivering")],
                                           answering: .terminated, now: now)
                break
            }
        }
        actions += platform.appSettled(now: now)
    }

    /// `node.started` also says which app runs.
    static func naming(_ action: NodeAction, app: String) -> NodeAction {
        guard case .emit(var event) = action, event.name == EventName.nodeStarted.rawValue else { return action }
        event.fields.append("appName", .string(app))
        return .emit(event)
    }
}
