package import PairSimCore

/// The phone as both drivers run it: the platform (a pure state machine) with an app under it.
/// After every input the app is handed what the platform has for it, and its requests go back to
/// the platform, until neither has anything more at this instant.
package struct PhoneNode: AppHostingNode {
    package var platform: PhonePlatform
    package let runtime: AppRuntime

    package init(topology: Topology, boot: String, app: AppRegistration) {
        platform = PhonePlatform(topology: topology, boot: boot)
        runtime = AppRuntime(registration: app, seed: topology.seed(for: .phone), settings: topology.phone.app.settings)
    }

    package var node: NodeName { .phone }

    // Each node forwards these itself: as a default in `AppHostingNode`'s extension, a caller in
    // another module (the simulator, the node loop) got the unspecialized generic, which reads
    // `platform` through the protocol — a copy of the whole platform per call (seen in the
    // profile of `scripts/bench.sh simulate`).
    package var nextDeadline: EmulatedInstant? { platform.nextDeadline }
    package var pendingMessages: Int { platform.sync.pendingOnAllChannels }
    package func stop(now: EmulatedInstant) -> [NodeAction] { platform.stop(now: now) }
    package func persistentValues() -> NodeValues { platform.persistentValues() }
    package mutating func changedValues() -> NodeValues { platform.changedValues() }
    package mutating func restore(_ state: PersistedState, now: EmulatedInstant) throws(DecodeError) {
        try platform.restore(state, now: now)
    }

    package mutating func start(now: EmulatedInstant) -> [NodeAction] {
        runtime.nodeStarted(at: now)
        var actions = platform.start(now: now)
        actions[0] = Self.naming(actions[0], app: runtime.registration.name)
        settle(&actions, now: now)
        return actions
    }

    package mutating func handle(command: ParsedCommand, now: EmulatedInstant) -> CommandResult {
        let appCommands = runtime.registration.commandSpecs
        guard appCommands.contains(where: { $0.verb == command.verb }) else {
            return platformCommand(command, result: platform.handle(command: command, appCommands: appCommands, now: now), now: now)
        }
        return performUserAction(command, now: now)
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


    /// Runs `body` on the platform (tests and tools feeding it directly), then lets the app react.
    package mutating func inject(now: EmulatedInstant, _ body: (inout PhonePlatform, EmulatedInstant) -> [NodeAction]) -> [NodeAction] {
        var actions = body(&platform, now)
        settle(&actions, now: now)
        return actions
    }

    /// `node.started` also says which app runs.
    static func naming(_ action: NodeAction, app: String) -> NodeAction {
        guard case .emit(var event) = action, event.name == EventName.nodeStarted.rawValue else { return action }
        event.fields.append("appName", .string(app))
        return .emit(event)
    }
}
