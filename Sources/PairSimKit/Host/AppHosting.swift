package import PairSimCore

/// A device platform that hosts an app (the iPhone's, the watch's): what the node runtime needs
/// of it to deliver the app's calls and hand back its requests. Both devices conform, so the
/// delivery loop and user actions are written once (`AppHostingNode`).
package protocol AppHostingPlatform: NodeModel {
    /// The calls for the app since the last take, in order.
    mutating func takeAppCalls() -> [AppCall]
    /// Everything the app asked while handling `call`, in order.
    mutating func handle(_ requests: [AppRequest], answering call: AppCall, now: EmulatedInstant) -> [NodeAction]
    /// The app finished handling what it was handed at this instant.
    mutating func appSettled(now: EmulatedInstant) -> [NodeAction]
    /// Queues a user action for the app; its reply comes as a request.
    mutating func userAction(_ command: ParsedCommand) -> Int
    mutating func takeReply(_ id: Int) -> (ok: Bool, text: String)?
    /// Why the app cannot take a user action now (nil: it can).
    func userActionRefusal(_ verb: String) -> String?
    /// The user brings the app on screen to act in it, if it is not; true when it did.
    mutating func openForUserAction(now: EmulatedInstant) -> (actions: [NodeAction], opened: Bool)
    /// The user leaves the app again after an action that opened it.
    mutating func leaveAfterUserAction(now: EmulatedInstant) -> [NodeAction]
    /// The device's clock: what the app's `Date()` reads (R: F5). Mutating so that a generic
    /// caller reaches it in place: reading `platform.time` through the protocol copied the whole
    /// platform per delivery (~25 % of `scripts/bench.sh simulate`, measured).
    mutating func deviceClock() -> DeviceClock
}

extension PhonePlatform: AppHostingPlatform {
    package mutating func deviceClock() -> DeviceClock { time.clock }
    package func userActionRefusal(_ verb: String) -> String? {
        app.isOnScreen ? nil : "\(verb): the app is not on screen (\(app.rawValue)); use 'foreground' first"
    }
    // An iPhone app's actions need it on screen: refused otherwise (`userActionRefusal`).
    package mutating func openForUserAction(now: EmulatedInstant) -> (actions: [NodeAction], opened: Bool) { ([], false) }
    package mutating func leaveAfterUserAction(now: EmulatedInstant) -> [NodeAction] { [] }
}

extension WatchModel: AppHostingPlatform {
    package mutating func deviceClock() -> DeviceClock { time.clock }
}

/// A node that is a platform with an app under it: after every input the app is handed what
/// the platform has for it, and its requests go back to the platform, until neither has
/// anything more at this instant.
package protocol AppHostingNode: NodeModel {
    associatedtype Platform: AppHostingPlatform
    var platform: Platform { get set }
    var runtime: AppRuntime { get }
    /// Messages the node still waits to have acknowledged, on every channel.
    var pendingMessages: Int { get }
}

extension AppHostingNode {
    /// Hands the app everything the platform has for it, and the platform everything the app
    /// asked, until both are done for this instant.
    mutating func settle(_ actions: inout [NodeAction], now: EmulatedInstant) {
        var rounds = 0
        let clock = platform.deviceClock() // no app call changes it
        while true {
            let calls = platform.takeAppCalls()
            if calls.isEmpty { break }
            for (index, call) in calls.enumerated() {
                if case .wcReceived = call {
                    runtime.session.hasContentPending = calls[(index + 1)...].contains { if case .wcReceived = $0 { true } else { false } }
                }
                let requests = runtime.deliver(call, now: now, clock: clock)
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

    /// Runs one of the app's user actions and waits for its reply within this instant.
    mutating func performUserAction(_ command: ParsedCommand, now: EmulatedInstant) -> CommandResult {
        if let spec = runtime.registration.commandSpecs.first(where: { $0.verb == command.verb }) {
            do { try ArgumentReader.checkOptions(command, spec) } catch { return .failure(error) }
        }
        if let refusal = platform.userActionRefusal(command.verb) { return .failure(CommandError(refusal)) }
        var (actions, opened) = platform.openForUserAction(now: now)
        let id = platform.userAction(command)
        settle(&actions, now: now)
        // What completes later in this same instant (a completion HealthKit calls after the call
        // returned, Task.yield, a zero sleep) is part of the answer; only emulated time passing is not.
        var reply = platform.takeReply(id)
        var rounds = 0
        while reply == nil, rounds < 10_000, let next = platform.nextDeadline, next <= now {
            actions += platform.advance(to: now)
            settle(&actions, now: now)
            reply = platform.takeReply(id)
            rounds += 1
        }
        if opened {
            actions += platform.leaveAfterUserAction(now: now)
            settle(&actions, now: now)
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

    /// A platform command, with the app's `status()` lines added to `status`.
    mutating func platformCommand(_ command: ParsedCommand, result: CommandResult, now: EmulatedInstant) -> CommandResult {
        var result = result
        if command.verb == "status", result.ok {
            let lines = runtime.status(now: now, clock: platform.deviceClock())
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
}
