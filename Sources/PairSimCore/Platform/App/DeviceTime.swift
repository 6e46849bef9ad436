/// What a device's clock means for the platform, written once for the phone and the watch
/// (R: F5): the user's `set-time` and `set-time-zone`, daylight saving beginning and ending, the
/// events each logs and the call each makes to the app.
public struct DeviceTime: Hashable, Sendable {
    public private(set) var clock: DeviceClock
    /// The true instant of the zone's next daylight-saving change (nil: none ahead).
    public private(set) var nextTransition: EmulatedInstant?
    /// The true instant of the device's next local midnight.
    public private(set) var nextMidnight: EmulatedInstant

    public init(clock: DeviceClock, now: EmulatedInstant) {
        self.clock = clock
        nextTransition = clock.nextTransition(after: now)
        nextMidnight = clock.startOfLocalDay(clock.localDay(at: now) + 1)
    }

    /// When `advance` next has something to do.
    public var nextDeadline: EmulatedInstant { nextTransition.map { min($0, nextMidnight) } ?? nextMidnight }

    mutating func reschedule(now: EmulatedInstant) {
        nextTransition = clock.nextTransition(after: now)
        nextMidnight = clock.startOfLocalDay(clock.localDay(at: now) + 1)
    }

    public static let commands: [CommandSpec] = [
        CommandSpec("set-time", "+D|-D|<ISO 8601 date>",
                    "the user sets this device's clock: ahead or back by a duration (+5m, -1h30m) or to a date with its zone (2026-03-29T00:58:00Z); what the app's Date() reads and what the device stamps from now on"),
        CommandSpec("set-time-zone", "<IANA zone>", "the user changes this device's time zone (Europe/Berlin, America/New_York, UTC)"),
    ]

    /// Runs `set-time` or `set-time-zone`; the change, for the app, with its event.
    public mutating func command(_ line: ParsedCommand, node: NodeName, now: EmulatedInstant) throws(CommandError) -> (reply: String, event: Event, change: TimeChange) {
        let args = ArgumentReader(line, DeviceTime.commands.first { $0.verb == line.verb }!)
        try args.expect(1...1)
        let text = line.arguments[0]
        let before = clock.localText(at: now)
        switch line.verb {
        case "set-time":
            let reading: EmulatedInstant
            if text.first == "+" || text.first == "-", let amount = EmulatedDuration(parsingSigned: text) {
                reading = clock.reading(at: now) + amount
            } else if let date = DeviceClock.parseISO(text) {
                reading = date
            } else {
                throw CommandError("set-time: expected +D or -D (+5m, -1h30m) or an ISO 8601 date with its zone (2026-03-29T00:58:00Z, 2026-03-29T02:58+02:00), got \"\(text.prefix(64))\"")
            }
            guard reading >= .zero, reading.milliseconds < FieldReader.maxTime else {
                throw CommandError("set-time: \"\(text.prefix(64))\" is outside 1970-01-01 … 37000 (what a device here can show and stamp)")
            }
            clock.set(reading: reading, at: now)
            reschedule(now: now)
            let event = Event(at: now, node: node, .clockSet, fields: ["from": .string(before), "to": .string(clock.localText(at: now)),
                                                                       "offsetMs": .int(clock.offsetMs(at: now))])
            return ("\(node.rawValue) clock set: it reads \(clock.localText(at: now))", event, .clock)
        default:
            guard DeviceClock.isKnownZone(text) else {
                throw CommandError("set-time-zone: unknown time zone \"\(text.prefix(64))\" (an IANA identifier: Europe/Berlin, America/New_York, UTC)")
            }
            let from = clock.timeZone
            clock.timeZone = text
            reschedule(now: now)
            let event = Event(at: now, node: node, .clockTimeZone, fields: ["from": .string(from), "to": .string(text),
                                                                            "reads": .string(clock.localText(at: now))])
            return ("\(node.rawValue) time zone \(text): it reads \(clock.localText(at: now))", event, .timeZone)
        }
    }

    /// `status`'s line: `clock: reads 2026-03-29T03:00:00.000+02:00 (offset +1m30s, drift +40 ppm, Europe/Berlin)`.
    public func statusLine(at now: EmulatedInstant) -> String {
        "clock: reads \(clock.localText(at: now)) (\(clock.settingsText)\(clock.isDaylightSaving(at: now) ? ", daylight saving" : ""))"
    }

    /// `clock.started`: the clock's settings and reading when the node starts, when they are not
    /// true UTC time (a pair that keeps true time logs what it always did).
    public func startEvent(node: NodeName, now: EmulatedInstant) -> [NodeAction] {
        guard !clock.isExact || clock.timeZone != "UTC" else { return [] }
        return [.emit(Event(at: now, node: node, .clockStarted, fields: clock.fields(at: now)))]
    }

    /// Daylight saving began or ended (its event), or a new day began on the device (no event),
    /// at or before `now`: what the app hears (nil: nothing due).
    public mutating func advance(node: NodeName, to now: EmulatedInstant) -> (actions: [NodeAction], change: TimeChange?) {
        guard nextDeadline <= now else { return ([], nil) }
        var actions: [NodeAction] = []
        var change: TimeChange?
        if let due = nextTransition, due <= now {
            nextTransition = clock.nextTransition(after: due)
            actions.append(.emit(Event(at: due, node: node, .clockDaylightSaving, fields: [
                "timeZone": .string(clock.timeZone), "daylightSaving": .bool(clock.isDaylightSaving(at: due)), "reads": .string(clock.localText(at: due)),
            ])))
            change = .daylightSaving
        }
        if nextMidnight <= now {
            nextMidnight = clock.startOfLocalDay(clock.localDay(at: now) + 1)
            change = change ?? .midnight
        }
        return (actions, change)
    }

    /// After a restart: the persisted clock (a user's changes outlive the process, as on a device).
    public mutating func restore(_ clock: DeviceClock, now: EmulatedInstant) {
        self.clock = clock
        reschedule(now: now)
    }
}

/// What changed on a device's clock (R: F5); the iPhone app hears of each through
/// `applicationSignificantTimeChange(_:)`.
public enum TimeChange: String, Hashable, Sendable {
    /// The user set the time.
    case clock
    /// The user changed the time zone.
    case timeZone
    /// Daylight saving began or ended.
    case daylightSaving
    /// A new day began (the device's local midnight).
    case midnight
}
