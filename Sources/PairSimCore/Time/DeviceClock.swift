import Foundation

/// How a device's clock is set in the topology (`phone.clock`, `watch.clock`, R: F5).
public struct DeviceClockConfig: Hashable, Sendable {
    /// How far the device's clock is ahead of true (emulated) time when the node first starts;
    /// nil: drawn from the seed, within ± `seededOffsetBound`.
    public var offset: EmulatedDuration? = .zero
    /// How fast it gains (positive) or loses, in parts per million; nil: drawn from the seed,
    /// within ± `seededDriftBound`.
    public var driftPPM: Double? = 0
    /// The device's time zone, an IANA identifier.
    public var timeZone = "UTC"

    /// What a drawn offset may be. PairSim's choice: an iPhone and a watch that set their time
    /// from the network are within a second or two; two minutes covers a device that has not.
    public static let seededOffsetBound = EmulatedDuration.minutes(2)
    /// What a drawn drift may be: ±50 ppm, the tolerance of the common watch crystal (about
    /// 4 s a day), which a device corrects whenever it sets its time from the network.
    public static let seededDriftBound = 50.0

    public init() {}

    /// The clock as it stands when the node first starts (`since`: that instant), with what the
    /// seed draws for the settings left to it.
    public func clock(seed: UInt64, node: NodeName, since: EmulatedInstant) -> DeviceClock {
        var random = SplitMix64(seed: seed, label: "clock.\(node.rawValue)")
        let bound = Self.seededOffsetBound.milliseconds
        let drawnOffset = EmulatedDuration.milliseconds(Int64(random.next() % UInt64(2 * bound + 1)) - bound)
        let drawnDrift = (Double(random.next() % 1_000_001) / 1_000_000 * 2 - 1) * Self.seededDriftBound
        return DeviceClock(offset: offset ?? drawnOffset, driftPPM: driftPPM ?? ((drawnDrift * 10).rounded() / 10), timeZone: timeZone, since: since)
    }
}

/// A device's own clock (R: F5): what `Date()` reads on it and what it stamps on the data it
/// makes — true (emulated) time plus an offset, plus a drift that accrues from `since`, in the
/// device's time zone. The user may set it (`set-time`) or change the zone (`set-time-zone`);
/// daylight saving begins and ends as the zone's rules say.
public struct DeviceClock: Hashable, Sendable {
    /// The reading minus true time at `since`.
    public var offset: EmulatedDuration
    /// Parts per million gained (negative: lost) since `since`.
    public var driftPPM: Double
    /// The instant the offset was last set: drift accrues from here.
    public var since: EmulatedInstant
    /// An IANA time-zone identifier (`UTC`, `Europe/Berlin`).
    public var timeZone: String

    public init(offset: EmulatedDuration = .zero, driftPPM: Double = 0, timeZone: String = "UTC", since: EmulatedInstant = .zero) {
        self.offset = offset
        self.driftPPM = driftPPM
        self.since = since
        self.timeZone = timeZone
    }

    /// The clock of a device that keeps true time in UTC.
    public static let exact = DeviceClock()

    /// Reads true time and nothing else: offset 0, no drift.
    public var isExact: Bool { offset == .zero && driftPPM == 0 }

    /// What the device's clock reads at true instant `t`: never before 1970 (the epoch is the
    /// earliest date a device here shows and stamps; a clock set back further reads the epoch).
    public func reading(at t: EmulatedInstant) -> EmulatedInstant {
        max(.zero, t + .milliseconds(offsetMs(at: t)))
    }

    /// The true instant at which the device's clock reads `reading` (its inverse; a device date
    /// the app gives, such as a preferred refresh date, as the instant it names).
    public func instant(reading: EmulatedInstant) -> EmulatedInstant {
        guard driftPPM != 0 else { return reading - offset }
        let elapsed = Double(reading.milliseconds - offset.milliseconds - since.milliseconds) / (1 + driftPPM / 1_000_000)
        var t = since + .milliseconds(Int64(elapsed.rounded(.up)))
        while self.reading(at: t) < reading { t += .milliseconds(1) }
        return t
    }

    /// The user sets the clock so that it reads `reading` at true instant `t`; it keeps its drift.
    public mutating func set(reading: EmulatedInstant, at t: EmulatedInstant) {
        offset = reading - t
        since = t
    }

    /// The zone's rules (UTC when the identifier is unknown, which the loader and commands refuse).
    public var zone: TimeZone { TimeZone(identifier: timeZone) ?? TimeZone(identifier: "UTC")! }

    /// UTC needs no zone rules: every node starts so, and looking them up (ICU) cost a simulated
    /// week's run a measurable share of its time.
    var isUTC: Bool { timeZone == "UTC" }

    /// Seconds east of UTC on the device's clock at true instant `t` (daylight saving included).
    public func utcOffset(at t: EmulatedInstant) -> Int { isUTC ? 0 : zone.secondsFromGMT(for: Self.date(reading(at: t))) }

    /// Whether daylight saving is in effect on the device at true instant `t`.
    public func isDaylightSaving(at t: EmulatedInstant) -> Bool { isUTC ? false : zone.isDaylightSavingTime(for: Self.date(reading(at: t))) }

    /// The true instant of the zone's next daylight-saving change after `t`, as this clock
    /// meets it (nil: the zone has none ahead).
    public func nextTransition(after t: EmulatedInstant) -> EmulatedInstant? {
        guard timeZone != "UTC", let next = zone.nextDaylightSavingTimeTransition(after: Self.date(reading(at: t))) else { return nil }
        return max(instant(reading: Self.instant(next)), t + .milliseconds(1))
    }

    /// Days since 1970-01-01 on the device's calendar (its clock, in its zone) at true instant `t`.
    public func localDay(at t: EmulatedInstant) -> Int64 {
        let local = reading(at: t).milliseconds + Int64(utcOffset(at: t)) * 1_000
        return local >= 0 ? local / 86_400_000 : (local - 86_399_999) / 86_400_000
    }

    /// The true instant at which the device's clock reaches the local midnight that begins `day`.
    public func startOfLocalDay(_ day: Int64) -> EmulatedInstant {
        if isUTC { return instant(reading: EmulatedInstant(milliseconds: day * 86_400_000)) }
        // The zone's offset at that midnight: found from a guess, then checked once (a day that
        // begins in a daylight-saving change keeps the offset before it).
        let midnight = day * 86_400_000
        var offset = Int64(zone.secondsFromGMT(for: Self.date(EmulatedInstant(milliseconds: midnight)))) * 1_000
        offset = Int64(zone.secondsFromGMT(for: Self.date(EmulatedInstant(milliseconds: midnight - offset)))) * 1_000
        return instant(reading: EmulatedInstant(milliseconds: midnight - offset))
    }

    /// The reading at `t` as local ISO 8601 with the zone's offset: `2026-03-29T03:00:00.000+02:00`.
    public func localText(at t: EmulatedInstant) -> String {
        Self.isoText(reading(at: t), utcOffset: utcOffset(at: t))
    }

    /// A device reading as ISO 8601 at a UTC offset in seconds.
    public static func isoText(_ reading: EmulatedInstant, utcOffset: Int) -> String {
        let local = reading.milliseconds + Int64(utcOffset) * 1_000
        let days = local >= 0 ? local / 86_400_000 : (local - 86_399_999) / 86_400_000
        let ms = Int(local - days * 86_400_000)
        func two(_ v: Int) -> String { CivilDate.pad(v, 2) }
        let minutes = abs(utcOffset) / 60
        let zone = utcOffset == 0 ? "Z" : (utcOffset < 0 ? "-" : "+") + two(minutes / 60) + ":" + two(minutes % 60)
        return CivilDate.text(days) + "T\(two(ms / 3_600_000)):\(two(ms / 60_000 % 60)):\(two(ms / 1_000 % 60)).\(CivilDate.pad(ms % 1_000, 3))\(zone)"
    }

    /// Parses `set-time`'s absolute form, ISO 8601 with a zone: `2026-03-29T00:58:00Z`,
    /// `2026-03-29T02:58+02:00`, `2026-03-29T02:58:00.250+02:00` (seconds and milliseconds optional).
    public static func parseISO(_ text: String) -> EmulatedInstant? {
        let chars = Array(text.utf8)
        func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= chars.count else { return nil }
            var value = 0
            for c in chars[from..<(from + count)] {
                guard c >= 0x30, c <= 0x39 else { return nil }
                value = value * 10 + Int(c - 0x30)
            }
            return value
        }
        func char(_ at: Int, _ c: UInt8) -> Bool { at < chars.count && chars[at] == c }
        guard chars.count > 10, let (year, month, day) = CivilDate.parse(String(decoding: chars[..<10], as: UTF8.self)),
              char(10, 0x54), let hour = number(11, 2), char(13, 0x3A), let minute = number(14, 2), hour < 24, minute < 60 else { return nil }
        var at = 16, second = 0, millisecond = 0
        if char(at, 0x3A) {
            guard let s = number(at + 1, 2), s < 60 else { return nil }
            second = s
            at += 3
            if char(at, 0x2E) {
                guard let f = number(at + 1, 3) else { return nil }
                millisecond = f
                at += 4
            }
        }
        var zoneSeconds = 0
        if char(at, 0x5A) {
            at += 1
        } else if char(at, 0x2B) || char(at, 0x2D) {
            guard let h = number(at + 1, 2), char(at + 3, 0x3A), let m = number(at + 4, 2), h < 24, m < 60 else { return nil }
            zoneSeconds = (h * 3_600 + m * 60) * (chars[at] == 0x2D ? -1 : 1)
            at += 6
        } else {
            return nil
        }
        guard at == chars.count else { return nil }
        let seconds = CivilDate.days(year, month, day) * 86_400 + Int64(hour * 3_600 + minute * 60 + second) - Int64(zoneSeconds)
        return EmulatedInstant(milliseconds: seconds * 1_000 + Int64(millisecond))
    }

    static func date(_ instant: EmulatedInstant) -> Date { Date(timeIntervalSince1970: Double(instant.milliseconds) / 1_000) }
    static func instant(_ date: Date) -> EmulatedInstant { EmulatedInstant(milliseconds: Int64((date.timeIntervalSince1970 * 1_000).rounded())) }

    /// Whether `identifier` names a time zone this machine's Foundation knows.
    /// Only IANA identifiers (and `UTC`, `GMT`): Foundation also takes `GMT+2`, which IANA spells
    /// `Etc/GMT-2` with the opposite sign — refused rather than guessed.
    public static func isKnownZone(_ identifier: String) -> Bool {
        identifier == "UTC" || (identifier.utf8.count <= 64 && knownZones.contains(identifier) && TimeZone(identifier: identifier) != nil)
    }

    static let knownZones = Set(TimeZone.knownTimeZoneIdentifiers + ["UTC", "GMT"])

    /// How the status line and events describe the settings: `offset -1m30s, drift +40 ppm, Europe/Berlin`.
    public var settingsText: String {
        let sign = offset.milliseconds > 0 ? "+" : ""
        let drift = (driftPPM > 0 ? "+" : "") + JSONWriter.string(.double(driftPPM))
        return "offset \(sign)\(offset), drift \(drift) ppm, \(timeZone)"
    }

    /// The reading minus true time at `t`, drift included and before the epoch's floor.
    public func offsetMs(at t: EmulatedInstant) -> Int64 {
        guard driftPPM != 0 else { return offset.milliseconds }
        return offset.milliseconds + Int64((Double(t.milliseconds - since.milliseconds) * driftPPM / 1_000_000).rounded(.down))
    }

    /// The fields of `node.started`'s and the `clock.*` events' `clock` (R: F5), at true instant `t`.
    public func fields(at t: EmulatedInstant) -> JSONObject {
        ["reads": .string(localText(at: t)), "offsetMs": .int(offsetMs(at: t)),
         "driftPPM": .double(driftPPM), "timeZone": .string(timeZone)]
    }

    // MARK: Persisted (the user's changes outlive the process, as on a device)

    public var json: JSON {
        .object(["offset": .int(offset.milliseconds), "drift": .double(driftPPM), "since": .int(since.milliseconds), "timeZone": .string(timeZone)])
    }

    public init(json: JSON, path: String) throws(DecodeError) {
        guard let object = json.objectValue else { throw DecodeError(path: path, reason: "expected an object") }
        let reader = FieldReader(object, path: path)
        self.init(offset: .milliseconds(try reader.int("offset", min: -(Int64(1) << 50), max: Int64(1) << 50)),
                  driftPPM: try reader.double("drift", min: -1_000_000, max: 1_000_000),
                  timeZone: try reader.string("timeZone", maxBytes: 64),
                  since: EmulatedInstant(milliseconds: try reader.int("since", min: -(Int64(1) << 50), max: Int64(1) << 50)))
        guard Self.isKnownZone(timeZone) else { throw DecodeError(path: path + ".timeZone", reason: "not a known time zone") }
    }
}
