/// The watch's command grammar (docs/COMMANDS.md lists the same).
extension WatchModel {
    public static let commands: [CommandSpec] = [
        CommandSpec("generate-workouts", "<count> [--every D] [--duration D] [--first T]",
                    "the user's workouts in the watch app, one ending every D (default 10m), each --duration long (default 5m), rotating activities; the first ends at emulated time T (default: now + every)"),
        CommandSpec("fail-finish", "", "make the app's next finishWorkout() fail: no workout is saved"),
        CommandSpec("crash", "", "the watch app's process dies mid-session; the session waits for 'recover'"),
        CommandSpec("recover", "[--no-builder]", "relaunch the app to recover the session; --no-builder loses the builder's data, so finishWorkout() fails"),
        CommandSpec("write-sample", "<type> <value> [--duration D]",
                    "save a sample now: hrv, rhr, sleep <stage>, steps, weight, bodyfat (0–1), bmi, hr, energy"),
        CommandSpec("write-samples", "<type> <count> [--every D]",
                    "save <count> samples of a type at once, one per D (default 1s) ending now, and sync them (bulk load, benchmarks)"),
        CommandSpec("import-health", "<path> [--since YYYY-MM-DD] [--until YYYY-MM-DD] [--types hr,hrv,…,workout] [--skip-invalid]",
                    "import an Apple Health export (export.xml or the Health app's zip): checked whole first, then saved and synced in batches, its first day at emulated time 0; import.finished reports the end"),
        CommandSpec("foreground", "", "the watch app comes to the screen: reachable over WatchConnectivity (also during a workout)"),
        CommandSpec("background", "", "the watch app leaves the screen (reachable only during a workout session)"),
        CommandSpec("out-of-range", "", "the phone is out of Bluetooth/Wi-Fi range: the healthkit and watchconnectivity channels stop"),
        CommandSpec("in-range", "", "back in range: held healthkit and watchconnectivity messages go"),
        CommandSpec("offline", "", "no network at all: both channels stop"),
        CommandSpec("online", "", "network back: both channels resume"),
    ] + DeviceTime.commands + WCSessionCore.commands + [
        CommandSpec("status", "[--json]", "session, stores, outboxes and counters"),
        CommandSpec("help", "", "this list"),
    ]

    public mutating func handle(command line: ParsedCommand, now: EmulatedInstant) -> CommandResult {
        var result = run(command: line, now: now)
        // A refused command changed nothing.
        if result.ok { result.actions += refreshReachability(now: now) }
        return result
    }

    mutating func run(command line: ParsedCommand, now: EmulatedInstant) -> CommandResult {
        do throws(CommandError) {
            let spec = try CommandGrammar.spec(for: line.verb, in: Self.commands, node: .watch)
            // The table is the authority: an option its usage does not name is refused first (R: K6).
            try ArgumentReader.checkOptions(line, spec)
            let args = ArgumentReader(line, spec)
            switch line.verb {
            case "generate-workouts":
                try args.expect(1...1, options: ["every", "duration", "first"])
                let count = try args.integer(0, name: "count", in: 1...100_000)
                let every = try args.duration(option: "every") ?? .minutes(10)
                let duration = try args.duration(option: "duration") ?? .minutes(5)
                guard every >= .seconds(10), duration >= .seconds(10) else {
                    throw CommandError("generate-workouts: --every and --duration must be at least 10s")
                }
                let first = try args.duration(option: "first").map { EmulatedInstant.zero + $0 }
                if let first, first - duration < .zero { throw CommandError("generate-workouts: --first must leave room for one --duration before it") }
                return try generateWorkouts(count: count, every: every, duration: duration, first: first, now: now)
            case "fail-finish":
                try args.expect(0...0)
                failNextFinish = true
                return ok("the next finish-workout will fail to save its HKWorkout")
            case "crash":
                try args.expect(0...0)
                return try crashApp(now: now)
            case "recover":
                try args.expect(0...0, flags: ["no-builder"])
                let keep = line.options["no-builder"] == nil
                return try recoverApp(keepBuilder: keep, now: now)
            case "write-sample":
                try requireRoom()
                return try writeSample(args, now: now)
            case "write-samples":
                try requireRoom()
                return try writeSamples(args, now: now)
            case "import-health":
                try requireRoom()
                return try importHealth(args, now: now)
            case "set-time", "set-time-zone":
                let (reply, changed, _) = try time.command(line, node: node, now: now)
                return ok(reply, [.emit(changed)])
            case "foreground", "background":
                try args.expect(0...0)
                return watchApp(onScreen: line.verb == "foreground", now: now)
            case _ where line.verb.hasPrefix("wc-"):
                let id = uuids.next(at: now).text
                return try wc.command(line, sync: &sync, newID: id, now: now)
            case "out-of-range", "in-range", "offline", "online":
                try args.expect(0...0)
                return partition(line.verb, now: now)
            case "status":
                try args.expect(0...0, flags: ["json"])
                if line.options["json"] != nil { return ok(JSONWriter.string(.object(statusJSON(now: now)))) }
                return CommandResult(ok: true, reply: status(now: now))
            case "help":
                try args.expect(0...0)
                return CommandResult(ok: true, reply: CommandGrammar.help(Self.commands, node: .watch))
            default:
                preconditionFailure("Invalid state: verb \(line.verb) in grammar but not handled")
            }
        } catch {
            return .failure(error)
        }
    }

    /// The app's session's state as `status` and events name it: `idle`, `prepared`, `running`,
    /// `paused`, `stopped`, `crashed` or `ended`.
    var sessionStateName: String {
        guard let w = workout else { return "idle" }
        if w.crashed { return "crashed" }
        if w.finished { return "ended" }
        return w.state == .notStarted ? "idle" : w.state.name
    }

    /// `crash`: the app's process dies mid-session (R: A10). The session outlives it and its
    /// active time stops; unlike a trap in the app's code, the system does not relaunch the app
    /// until `recover`.
    mutating func crashApp(now: EmulatedInstant) throws(CommandError) -> CommandResult {
        guard let w = workout, w.isRecoverable, !w.crashed, appRunning else {
            throw CommandError("crash: no session in progress (state: \(sessionStateName))")
        }
        // What the sensor read so far is saved: HealthKit's, not the app's process's.
        var actions = collectLive(now: now, flush: true)
        var crashed = workout ?? w
        crashed.pauseActive(at: now)
        crashed.crashed = true
        workout = crashed
        actions += endAppProcess(reason: "crash", now: now)
        return ok("watch app crashed mid-session; 'recover' resumes it", actions + [event(.workoutCrashed, now)])
    }

    /// `recover [--no-builder]`: the app is relaunched (which clears `crashed`) and recovers its
    /// session (`handleActiveWorkoutRecovery()`); without its builder, `finishWorkout()` fails.
    mutating func recoverApp(keepBuilder: Bool, now: EmulatedInstant) throws(CommandError) -> CommandResult {
        guard var w = workout, w.crashed else { throw CommandError("recover: nothing to recover (state: \(sessionStateName))") }
        w.wasRecovered = true
        if !keepBuilder { w.builderLost = true }
        workout = w
        let actions = launchStoppedApp(reason: "recover", as: .system, now: now)
        return ok("session recovered (\(sessionStateName))\(keepBuilder ? "" : ", without its workout builder")",
                  actions + [event(.workoutRecovered, now, ["builder": .bool(keepBuilder), "state": .string(sessionStateName)])])
    }

    func ok(_ reply: String, _ actions: [NodeAction] = []) -> CommandResult {
        CommandResult(ok: true, reply: reply, actions: actions)
    }

    func requireRoom() throws(CommandError) {
        for channel in Channel.allCases where !sync.hasRoom(channel) {
            throw CommandError("refused: the \(channel) outbox is full (\(sync.pending(channel)) unacknowledged messages); try again once the phone catches up")
        }
    }

    mutating func partition(_ verb: String, now: EmulatedInstant) -> CommandResult {
        let partition: WatchPartition = verb == "out-of-range" || verb == "in-range" ? .outOfRange : .offline
        let reason = partition.rawValue
        let channels = Self.partitionChannels(partition)
        let on = verb == "out-of-range" || verb == "offline"
        var actions: [NodeAction] = []
        var changed: [Channel] = []
        for channel in channels where sync.isPartitioned(channel, reason: reason) != on {
            actions += sync.setPartition(channel, reason: reason, on, now: now)
            actions.append(event(on ? .syncPartitionStart : .syncPartitionEnd, now, ["channel": .string(channel.rawValue), "reason": .string(reason)]))
            changed.append(channel)
        }
        guard !changed.isEmpty else { return ok("\(verb): nothing to change (already \(on ? "" : "not ")\(reason))") }
        touched.insert(.partitions)
        let still = channels.filter { sync.isPartitioned($0, at: now) }
        return ok("\(verb): \(changed.map(\.rawValue).joined(separator: " and ")) \(on ? "stopped" : "no longer \(reason)")"
                  + (still.isEmpty || on ? "" : "; still held: \(still.map(\.rawValue).joined(separator: ", "))"), actions)
    }

    /// `status --json` (schema in docs/COMMANDS.md).
    func statusJSON(now: EmulatedInstant) -> JSONObject {
        var session: JSONObject = ["state": .string(sessionStateName)]
        if let w = workout, w.isRecoverable {
            session.append("activity", .string(w.activity.name))
            session.append("number", .int(w.number))
            session.append("activeMs", .int(w.activeDuration(at: now).milliseconds))
            session.append("recovered", .bool(w.wasRecovered))
        }
        var object: JSONObject = ["node": "watch", "at": .int(now.milliseconds), "seed": .int(Int64(bitPattern: seed))]
        object.append("session", .object(session))
        object.append("clock", .object(time.clock.fields(at: now)))
        var app: JSONObject = ["name": .string(hostedApp), "running": .bool(appRunning), "misbehaviours": .int(Int64(appMisbehaviours))]
        var counts = JSONObject()
        for key in appCounters.keys.sorted() { counts.append(key, .int(Int64(appCounters[key]!))) }
        app.append("counters", .object(counts))
        if let workout {
            app.append("workout", .object(["number": .int(workout.number), "state": .string(workout.state.name),
                                           "activity": .string(workout.activity.name), "activeMs": .int(workout.activeDuration(at: now).milliseconds),
                                           "samples": .int(Int64(workout.samples)), "finished": .bool(workout.finished)]))
        }
        object.append("watchApp", .object(app))
        object.append("workoutStream", plan.map { .object(["generated": .int(Int64($0.generated)), "remaining": .int(Int64($0.remaining))]) } ?? .null)
        object.append("bulkWrite", bulk.map { .object(["type": .string($0.type.rawValue), "done": .int(Int64($0.done)), "total": .int(Int64($0.total))]) } ?? .null)
        object.append("healthImport", healthImport?.progressJSON ?? .null)
        object.append("stores", .object(["workouts": .int(Int64(store.workoutCount)), "samples": .int(Int64(store.sampleCount)),
                                         "byType": store.countsJSON, "records": .int(Int64(records.count))]))
        object.append("channels", sync.channelsJSON(now: now))
        object.append("rejected", sync.rejectedJSON)
        object.append("watchConnectivity", .object(wc.statusJSON))
        return object
    }

    func status(now: EmulatedInstant) -> String {
        var lines = ["watch at \(now) seed \(seed)", time.statusLine(at: now)]
        if let w = workout, w.isRecoverable {
            lines.append("session: \(sessionStateName) \(w.activity.name) #\(w.number), active \(w.activeDuration(at: now))\(w.wasRecovered ? ", recovered" : "")")
        } else {
            lines.append("session: \(sessionStateName)")
        }
        lines.append("app: \(hostedApp) (\(appRunning ? "running" : "not running")), misbehaviours \(appMisbehaviours)"
                     + appCounters.keys.sorted().map { ", \($0) \(appCounters[$0]!)" }.joined())
        if let workout {
            lines.append("app's workout session #\(workout.number): \(workout.state.name) \(workout.activity.name), active \(workout.activeDuration(at: now)), \(workout.samples) samples collected\(workout.finished ? ", finished" : "")")
        }
        if let bulk { lines.append("bulk write: \(bulk.done) of \(bulk.total) \(bulk.type.rawValue) samples") }
        if let job = healthImport {
            lines.append("import-health \(job.request.path): \(job.phase.rawValue), \(job.done) entries read" + (job.phase == .importing ? " of \(job.total), \(job.saved) saved" : ""))
        }
        if let plan {
            lines.append("workout stream: \(plan.generated) generated, \(plan.remaining) to go" + (plan.remaining > 0 ? ", next at \(plan.nextAt)" : ""))
        }
        lines.append("healthkit store: \(store.workoutCount) workouts, \(store.sampleCount) samples")
        lines.append("records: \(records.count)")
        for channel in Channel.allCases {
            let c = sync.counters(channel)
            lines.append("\(channel): pending \(sync.pending(channel)), sent \(c.sentMessages) (\(c.sentBytes) B), retransmits \(c.retransmits), lost \(c.lost), duplicated \(c.duplicated), received \(c.receivedMessages)\(sync.isPartitioned(channel, at: now) ? ", PARTITIONED" : "")")
        }
        let rejected = sync.rejected.values.reduce(0, +)
        lines.append("wire rejected: \(rejected)")
        lines.append("watch app: \(watchAppRuns ? "running" : "not running")\(wc.foreground ? " (on screen)" : "")")
        lines += wc.statusLines
        return lines.joined(separator: "\n")
    }
}
