import Foundation

/// The platform's commands: what the user does to the phone and what other apps do in its
/// HealthKit (docs/COMMANDS.md). The app's own commands (its UI) come from the app.
extension PhonePlatform {
    public static let commands: [CommandSpec] = [
        CommandSpec("launch", "", "the user launches the app (registers observers and background delivery, loads the tabs)"),
        CommandSpec("foreground", "", "the app comes to the screen (launching it if needed); refused while locked"),
        CommandSpec("background", "", "the user leaves the app; it is suspended after its background budget"),
        CommandSpec("inactive", "", "the app stays on screen but inactive (e.g. Notification Center)"),
        CommandSpec("force-quit", "", "the user swipes the app away: no background delivery until launch"),
        CommandSpec("terminate", "", "the system ends the app's process; background delivery may relaunch it"),
        CommandSpec("lock", "", "lock the device: HealthKit reads fail, arriving data is held until unlock"),
        CommandSpec("unlock", "", "unlock: held data is merged; the app that was on screen comes back; changes are delivered"),
        CommandSpec("authorize", "<type> allow|deny", "grant or deny reading a type (hr, hrv, rhr, sleep, steps, weight, bodyfat, bmi, workout)"),
        CommandSpec("miss-completion", "<type> <count>", "the app's next <count> completion handler calls for <type> are swallowed, as if it never called them"),
        CommandSpec("delete-in-health", "<uuid>|latest", "the user deletes a workout in the Health app: gone on both devices, the app's records stay"),
        CommandSpec("fail-next-save", "[count]", "HealthKit refuses the app's next <count> saves (default 1)"),
        CommandSpec("write-workout", "<activity> [--duration D] [--energy kcal] [--source S]",
                    "save a workout in the phone's HealthKit as another app (default other-app)"),
        CommandSpec("write-sample", "<type> <value> [--duration D] [--source S]", "save a sample in the phone's HealthKit (default source other-app)"),
        CommandSpec("reboot", "", "restart the phone: the app's process ends, the device is locked, WatchConnectivity is unreachable until the first unlock"),
        CommandSpec("wc-complication", "<json-object>", "WCSession.transferCurrentComplicationUserInfo: ahead of queued user info within the day's budget (watch.complication), else as ordinary user info"),
        CommandSpec("plug-in", "", "the phone goes on external power: BGProcessingTasks that require it may run (with the device locked)"),
        CommandSpec("unplug", "", "the phone leaves external power"),
    ] + DeviceTime.commands + WCSessionCore.commands + [
        CommandSpec("status", "[--json]", "app state, observers, background delivery, stores, counters, and the app's own status"),
        CommandSpec("help", "", "this list"),
    ]

    public mutating func handle(command line: ParsedCommand, now: EmulatedInstant) -> CommandResult {
        handle(command: line, appCommands: [], now: now)
    }

    /// Runs a platform command; `appCommands` are the app's, for help and for suggestions.
    public mutating func handle(command line: ParsedCommand, appCommands: [CommandSpec], now: EmulatedInstant) -> CommandResult {
        var result = run(command: line, appCommands: appCommands, now: now)
        // A refused command changed nothing.
        if result.ok { result.actions += refreshReachability(now: now) }
        return result
    }

    mutating func run(command line: ParsedCommand, appCommands: [CommandSpec], now: EmulatedInstant) -> CommandResult {
        do throws(CommandError) {
            let spec = try CommandGrammar.spec(for: line.verb, in: Self.commands + appCommands, node: .phone)
            // The table is the authority: an option its usage does not name is refused first (R: K6).
            try ArgumentReader.checkOptions(line, spec)
            let args = ArgumentReader(line, spec)
            switch line.verb {
            case "launch", "foreground", "background", "inactive", "force-quit", "terminate", "lock", "unlock":
                try args.expect(0...0)
                return try lifecycleCommand(line.verb, now: now)
            case "reboot":
                try args.expect(0...0)
                return reboot(now: now)
            case "set-time", "set-time-zone":
                let (reply, changed, change) = try time.command(line, node: node, now: now)
                timeChanged(change)
                return CommandResult(ok: true, reply: reply, actions: [.emit(changed)])
            case "plug-in", "unplug":
                try args.expect(0...0)
                let on = line.verb == "plug-in"
                return CommandResult(ok: true, reply: on ? "on external power" : "on battery", actions: setCharging(on, now: now))
            case "wc-complication":
                try args.expect(1...1)
                guard wc.activated else { throw CommandError("wc-complication: sessionNotActivated: the phone app has not activated its WCSession") }
                let payload = try WCSessionCore.payload(line.arguments[0], verb: line.verb, wire: sync.limits)
                let complication = complicationRemaining(now: now) > 0
                let actions = transferComplication(appID: nil, payload, now: now)
                let left = complicationRemaining(now: now)
                return CommandResult(ok: true, reply: complication ? "queued as current complication info (\(left) left today)"
                                                                    : "queued as ordinary user info (no complication transfers left today)", actions: actions)
            case _ where line.verb.hasPrefix("wc-"):
                let id = uuids.next(at: now).text
                return try wc.command(line, sync: &sync, newID: id, now: now)
            case "authorize":
                try args.expect(2...2)
                let type = try objectType(args, 0)
                let allow = try args.choice(1, name: "permission", from: ["allow", "deny"]) == "allow"
                if allow { denied.remove(type) } else { denied.insert(type) }
                return CommandResult(ok: true, reply: "\(type.name): read \(allow ? "allowed" : "denied") (the app is not told)",
                                     actions: [event(.authChanged, now, ["type": .string(type.name), "read": .string(allow ? "allow" : "deny")])])
            case "miss-completion":
                try args.expect(2...2)
                let type = try objectType(args, 0)
                let count = try args.integer(1, name: "count", in: 0...1_000)
                missCompletions[type] = count == 0 ? nil : count
                return CommandResult(ok: true, reply: "the app's next \(count) \(type.name) completion handler call(s) will be swallowed")
            case "delete-in-health":
                try args.expect(1...1)
                return try deleteInHealth(args.argument(0)!, now: now)
            case "fail-next-save":
                try args.expect(0...1)
                let count = args.argument(0) == nil ? 1 : try args.integer(0, name: "count", in: 1...1_000)
                saveFailures = count
                return CommandResult(ok: true, reply: "HealthKit will refuse the app's next \(count) save(s)")
            case "write-workout":
                return try writeWorkoutCommand(args, now: now)
            case "write-sample":
                return try writeSampleCommand(args, now: now)
            case "status":
                try args.expect(0...0, flags: ["json"])
                if line.options["json"] != nil { return CommandResult(ok: true, reply: JSONWriter.string(.object(statusJSON(now: now)))) }
                return CommandResult(ok: true, reply: status(now: now))
            case "help":
                try args.expect(0...0)
                return CommandResult(ok: true, reply: CommandGrammar.help(Self.commands + appCommands, node: .phone))
            default:
                throw CommandError("\(line.verb): the app's command, but no app is running to take it")
            }
        } catch {
            return .failure(error)
        }
    }

    func sourceOption(_ args: ArgumentReader) throws(CommandError) -> ObjectSource {
        let name = args.line.options["source"] ?? "other-app"
        guard let source = ObjectSource.parse(name) else {
            throw CommandError("\(args.spec.verb): --source must be 1 to \(ObjectSource.maxNameBytes) bytes, got \"\(name.prefix(40))\"")
        }
        return source
    }

    func objectType(_ args: ArgumentReader, _ index: Int) throws(CommandError) -> ObjectType {
        let name = args.argument(index) ?? ""
        guard let type = ObjectType(name: name) else {
            throw CommandError("\(args.spec.verb): unknown type \"\(name)\" (one of: \(ObjectType.all.map(\.shortName).joined(separator: ", ")))")
        }
        return type
    }

    mutating func lifecycleCommand(_ verb: String, now: EmulatedInstant) throws(CommandError) -> CommandResult {
        let before = app
        var actions: [NodeAction]
        switch verb {
        case "launch":
            guard !locked else { throw CommandError("launch: the device is locked; unlock first") }
            guard app == .notRunning || app == .forceQuit else {
                throw CommandError("launch: the app is already running (\(app.rawValue)); use 'foreground'")
            }
            actions = launch(now: now, reason: "user")
        case "foreground":
            guard !locked else { throw CommandError("foreground: the device is locked; unlock first (unlock brings back the app that was on screen)") }
            actions = comeToForeground(now: now)
        case "background":
            guard app.isOnScreen else { throw CommandError("background: the app is not on screen (\(app.rawValue))") }
            actions = goToBackground(now: now, reason: "user")
        case "inactive":
            guard app == .foreground else { throw CommandError("inactive: the app is not in the foreground (\(app.rawValue))") }
            actions = becomeInactive(now: now)
        case "force-quit":
            guard app != .notRunning, app != .forceQuit else { throw CommandError("force-quit: the app is not running") }
            actions = endProcess(forceQuit: true, now: now)
        case "terminate":
            guard app == .background || app == .suspended else {
                throw CommandError("terminate: the system only ends apps in the background or suspended (app is \(app.rawValue))")
            }
            actions = endProcess(forceQuit: false, now: now)
        case "lock":
            guard !locked else { throw CommandError("lock: already locked") }
            actions = lock(now: now)
        default:
            guard locked else { throw CommandError("unlock: not locked") }
            actions = unlock(now: now)
        }
        let lockText = verb == "lock" || verb == "unlock" ? ", device \(locked ? "locked" : "unlocked")" : ""
        return CommandResult(ok: true, reply: "app \(before.rawValue) → \(app.rawValue)\(lockText)", actions: actions)
    }

    mutating func writeWorkoutCommand(_ args: ArgumentReader, now: EmulatedInstant) throws(CommandError) -> CommandResult {
        try args.expect(1...1, options: ["duration", "energy", "source"])
        let activity = try args.choice(0, name: "activity", from: Activity.all.map(\.name))
        let duration = try args.duration(option: "duration") ?? .minutes(30)
        guard duration > .zero, duration <= .hours(24) else { throw CommandError("write-workout: --duration must be above 0 and at most 24h") }
        var energy: Double?
        if let text = args.line.options["energy"] {
            guard let value = Double(text), (0...20_000).contains(value) else { throw CommandError("write-workout: --energy must be 0…20000 kcal, got \"\(text)\"") }
            energy = value
        }
        let source = try sourceOption(args)
        // Stamped on the phone's clock (R: F5).
        let end = time.clock.reading(at: now), start = max(.zero, end - duration)
        let workout = Workout(uuid: uuids.next(at: now), activity: activity, start: start, end: end,
                              activeDuration: end - start, activeEnergy: energy, source: source)
        let actions = writeOnPhone(HealthObjectsBatch(workouts: [workout]), now: now)
        return CommandResult(ok: true, reply: "wrote \(activity) workout=\(workout.uuid.text) source=\(source.name)", actions: actions)
    }

    mutating func writeSampleCommand(_ args: ArgumentReader, now: EmulatedInstant) throws(CommandError) -> CommandResult {
        try args.expect(2...2, options: ["duration", "source"])
        let (type, value, duration) = try args.sampleValue()
        let end = time.clock.reading(at: now)
        let sample = HealthSample(uuid: uuids.next(at: now), type: type, start: max(.zero, end - duration), end: end, value: value,
                                  source: try sourceOption(args))
        let actions = writeOnPhone(HealthObjectsBatch(samples: [sample]), now: now)
        return CommandResult(ok: true, reply: "wrote \(type.rawValue) \(args.argument(1)!) uuid=\(sample.uuid.text)", actions: actions)
    }

    /// `delete-in-health <uuid>`: the user deletes a workout in the Health app (as any other app
    /// could): the HKWorkout goes on both devices, the app's records stay and show no chart (seed 002).
    mutating func deleteInHealth(_ target: String, now: EmulatedInstant) throws(CommandError) -> CommandResult {
        guard !locked else { throw CommandError("delete-in-health: the device is locked; unlock first") }
        if target == "latest" {
            guard let latest = store.latestWorkout else { throw CommandError("delete-in-health: no HealthKit workout on the phone") }
            return try deleteInHealth(latest.uuid.text, now: now)
        }
        guard let id = UUID(text: target) else { throw CommandError("delete-in-health: \"\(target)\" is not a UUID (or 'latest')") }
        guard store.workout(id) != nil else { throw CommandError("delete-in-health: no HealthKit workout \(target) on the phone") }
        let kept = records.records.filter { $0.healthKitWorkoutID == id }.count
        return CommandResult(ok: true, reply: "deleted workout \(target) in Apple Health; \(kept) record(s) linked to it stay",
                             actions: deleteFromHealthKit([DeletedObject(uuid: id, type: .workout)], now: now))
    }
}
