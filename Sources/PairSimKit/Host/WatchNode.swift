package import PairSimCore

/// The watch as both drivers run it: the watch platform with, when a developer's watch app is
/// chosen (`watch.app`, `--app`), that app under it, delivered as the phone's is (`AppHostingNode`).
/// Without one the platform runs the seeds' watch app built into it.
package struct WatchNode: AppHostingNode {
    package var platform: WatchModel
    package let runtime: AppRuntime

    package init(topology: Topology, boot: String, exports: HealthExportOpener? = nil, app: AppRegistration? = nil) {
        platform = WatchModel(topology: topology, boot: boot, exports: exports, app: app?.name)
        runtime = AppRuntime(registration: app ?? .builtInWatchApp, seed: topology.seed(for: .watch), settings: topology.watch.appSettings)
    }

    package var node: NodeName { .watch }
    var hosted: Bool { platform.hostedApp != nil }

    // What drivers and invariants read of the watch.
    package var store: HealthStore { platform.store }
    package var records: RecordStore { platform.records }
    package var sync: SyncEngine { platform.sync }

    package mutating func start(now: EmulatedInstant) -> [NodeAction] {
        var actions = platform.start(now: now)
        guard hosted else { return actions }
        actions[0] = PhoneNode.naming(actions[0], app: runtime.registration.name)
        settle(&actions, now: now)
        return actions
    }

    package mutating func handle(command: ParsedCommand, now: EmulatedInstant) -> CommandResult {
        guard hosted else { return platform.handle(command: command, now: now) }
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
        if hosted { settle(&actions, now: now) }
        return actions
    }

    package mutating func peerConnected(now: EmulatedInstant) -> [NodeAction] {
        var actions = platform.peerConnected(now: now)
        if hosted { settle(&actions, now: now) }
        return actions
    }

    package mutating func advance(to now: EmulatedInstant) -> [NodeAction] {
        var actions = platform.advance(to: now)
        if hosted { settle(&actions, now: now) }
        return actions
    }

}
