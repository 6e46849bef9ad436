package import PairSimCore

/// The watch as both drivers run it: the watch platform with its app under it (`watch.app`,
/// `--app`; the reference watch app by default), delivered as the phone's is (`AppHostingNode`).
package struct WatchNode: AppHostingNode {
    package var platform: WatchModel
    package let runtime: AppRuntime

    package init(topology: Topology, boot: String, exports: HealthExportOpener? = nil, app: AppRegistration) {
        platform = WatchModel(topology: topology, boot: boot, exports: exports, app: app.name)
        runtime = AppRuntime(registration: app, seed: topology.seed(for: .watch), settings: topology.watch.appSettings)
    }

    package var node: NodeName { .watch }

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

    // What drivers and invariants read of the watch, read in place (a getter would copy the
    // platform's stores; the simulator reads `sync` every turn).
    package var store: HealthStore { _read { yield platform.store } }
    package var records: RecordStore { _read { yield platform.records } }
    package var sync: SyncEngine { _read { yield platform.sync } }

    package mutating func start(now: EmulatedInstant) -> [NodeAction] {
        runtime.nodeStarted(at: now)
        var actions = platform.start(now: now)
        actions[0] = PhoneNode.naming(actions[0], app: runtime.registration.name)
        settle(&actions, now: now)
        return actions
    }

    package mutating func handle(command: ParsedCommand, now: EmulatedInstant) -> CommandResult {
        let appCommands = runtime.registration.commandSpecs
        guard appCommands.contains(where: { $0.verb == command.verb }) else {
            var result = platform.handle(command: command, now: now)
            if command.verb == "help", result.ok {
                result.reply += "\n\nthe watch app \(runtime.registration.name)'s actions:\n" + CommandGrammar.help(appCommands, node: .watch)
            }
            return platformCommand(command, result: result, now: now)
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
        // A `generate-workouts` stream's starts and ends, as the user's actions in the app.
        for command in platform.takePlannedActions(now: now) {
            let result = performUserAction(command, now: now)
            actions += result.actions
            if !result.ok {
                actions.append(.emit(Event(at: now, node: .watch, .commandFailed, level: .warning,
                                           fields: ["command": .string(command.verb), "reason": .string(result.reply), "source": "generate-workouts"])))
            }
        }
        return actions
    }

}
