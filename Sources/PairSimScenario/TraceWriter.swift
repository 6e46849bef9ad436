import PairSimCore

/// A run as a Chrome Trace Event / Perfetto JSON trace (R: I2), for ui.perfetto.dev and
/// chrome://tracing: a process per node; a track per channel and per app subsystem; the app's
/// states and the device lock as spans; wakes, observer handlers, snapshot fetches and tab loads
/// as spans with their durations; every message as a flow arrow from its send to its receipt;
/// the cost counters as counter tracks; every other event as an instant on its track.
///
/// Timestamps are emulated time (µs since the topology epoch), so a week reads as a week.
public struct TraceWriter {
    let events: [Event]
    let end: EmulatedInstant
    var out: [JSON] = []
    var tids: [String: Int] = [:]

    /// `events` merged by time (as `topology log` and scenario runs produce them); `end` closes spans still open.
    public init(events: [Event], end: EmulatedInstant) {
        self.events = events
        self.end = max(end, events.last?.at ?? .zero)
    }

    /// The trace document.
    public static func trace(events: [Event], end: EmulatedInstant, metadata: JSONObject = [:]) -> JSON {
        var writer = TraceWriter(events: events, end: end)
        writer.build()
        return .object(["traceEvents": .array(writer.sorted()), "displayTimeUnit": "ms", "otherData": .object(metadata)])
    }

    static func pid(_ node: NodeName) -> Int64 { node == .watch ? 1 : 2 }
    static func micros(_ instant: EmulatedInstant) -> Int64 { instant.milliseconds * 1_000 }

    /// The thread id of `track` on `node`, announced once with its name.
    mutating func tid(_ node: NodeName, _ track: String) -> Int64 {
        let key = "\(node.rawValue)/\(track)"
        if let known = tids[key] { return Int64(known) }
        let id = tids.count + 1
        tids[key] = id
        out.append(.object(["name": "thread_name", "ph": "M", "pid": .int(Self.pid(node)), "tid": .int(Int64(id)),
                            "args": .object(["name": .string(track)])]))
        out.append(.object(["name": "thread_sort_index", "ph": "M", "pid": .int(Self.pid(node)), "tid": .int(Int64(id)),
                            "args": .object(["sort_index": .int(Int64(id))])]))
        return Int64(id)
    }

    mutating func emit(_ phase: String, _ name: String, node: NodeName, track: String, at: EmulatedInstant, _ extra: JSONObject = [:]) {
        var object: JSONObject = ["name": .string(name), "ph": .string(phase), "ts": .int(Self.micros(at)),
                                  "pid": .int(Self.pid(node)), "tid": .int(tid(node, track))]
        for member in extra.members { object.append(member.key, member.value) }
        out.append(.object(object))
    }

    mutating func span(_ name: String, node: NodeName, track: String, from: EmulatedInstant, to: EmulatedInstant, args: JSONObject) {
        emit("X", name, node: node, track: track, at: from, ["dur": .int(Self.micros(to) - Self.micros(from)), "args": .object(args)])
    }

    /// The track an event's instant goes on.
    static func track(_ event: Event) -> String {
        let name = event.name
        if let channel = event["channel"]?.stringValue, name.hasPrefix("sync.") { return channel }
        for (prefix, track) in [("app.", "app state"), ("device.", "device"), ("bgdelivery.", "background delivery"),
                                ("observer.", "observers"), ("coordinator.", "coordinator"), ("cache.", "coordinator"),
                                ("snapshot.", "snapshot"), ("tab.", "tabs"), ("notification.", "notifications"),
                                ("detail.", "workout detail"), ("workout.", "workout"), ("ck.", "cloudkit"), ("wc.", "watchconnectivity"),
                                ("wire.", "wire"), ("hk.", "healthkit store"), ("record.", "records")]
        where name.hasPrefix(prefix) { return track }
        return "node"
    }

    mutating func build() {
        for node in NodeName.allCases {
            out.append(.object(["name": "process_name", "ph": "M", "pid": .int(Self.pid(node)), "args": .object(["name": .string(node.rawValue)])]))
        }
        for event in events { emit("i", event.name, node: event.node, track: Self.track(event), at: event.at, ["s": "t", "args": .object(event.fields)]) }
        appStates()
        executionSpans()
        messages()
        counters()
    }

    /// The app's states and the device lock as B/E spans, one at a time on their own tracks.
    mutating func appStates() {
        var state: String?, locked = false
        for event in events where event.node == .phone {
            switch event.name {
            case EventName.appState.rawValue:
                guard let to = event["to"]?.stringValue else { continue }
                if let state { emit("E", state, node: .phone, track: "app state spans", at: event.at) }
                emit("B", to, node: .phone, track: "app state spans", at: event.at, ["args": .object(event.fields)])
                state = to
            case EventName.deviceLocked.rawValue where !locked:
                emit("B", "locked", node: .phone, track: "device lock", at: event.at)
                locked = true
            case EventName.deviceUnlocked.rawValue where locked:
                emit("E", "locked", node: .phone, track: "device lock", at: event.at)
                locked = false
            default: break
            }
        }
        if let state { emit("E", state, node: .phone, track: "app state spans", at: end) }
        if locked { emit("E", "locked", node: .phone, track: "device lock", at: end) }
    }

    /// Wakes, observer handlers, snapshot fetches and tab loads: each from its start to its end,
    /// or to the moment the app stopped executing (its work is cut), or to the end of the run.
    mutating func executionSpans() {
        let phone = events.filter { $0.node == .phone }
        func firstEnd(after index: Int, where closes: (Event) -> Bool) -> (EmulatedInstant, Bool) {
            for event in phone[(index + 1)...] {
                if closes(event) { return (event.at, true) }
                if event.name == EventName.appState.rawValue, ["suspended", "notRunning", "forceQuit"].contains(event["to"]?.stringValue ?? "") {
                    return (event.at, false)
                }
            }
            return (end, false)
        }
        for (index, event) in phone.enumerated() {
            let type = event["type"]?.stringValue ?? ""
            switch event.name {
            case EventName.bgdeliveryWake.rawValue:
                // The wake's execution window: until the app stops running again.
                let (until, _) = firstEnd(after: index) { _ in false }
                span("wake \(type)", node: .phone, track: "wake \(type)", from: event.at, to: until, args: event.fields)
            case EventName.observerFired.rawValue where event["trigger"]?.stringValue == "wake":
                let (until, completed) = firstEnd(after: index) { other in
                    (other.name == EventName.bgdeliveryCompletion.rawValue || other.name == EventName.bgdeliveryMissed.rawValue)
                        && other["type"]?.stringValue == type
                }
                var args = event.fields
                args.append("completed", .bool(completed))
                span("handler \(type)", node: .phone, track: "handler \(type)", from: event.at, to: until, args: args)
            case EventName.snapshotFetch.rawValue where event["joined"] == .bool(false):
                let id = event["id"]
                let (until, fetched) = firstEnd(after: index) { other in
                    (other.name == EventName.snapshotFetched.rawValue && other["id"] == id)
                        || (other.name == EventName.snapshotFetch.rawValue && other["joined"] == .bool(false))
                }
                var args = event.fields
                args.append("finished", .bool(fetched))
                span("fetch #\(Event.humanValue(id ?? .null))", node: .phone, track: "snapshot fetches", from: event.at, to: until, args: args)
            case EventName.tabReload.rawValue:
                let tab = event["tab"], load = event["load"]
                let (until, _) = firstEnd(after: index) { other in
                    other["tab"] == tab && (other["load"] == load || other.name == EventName.tabReload.rawValue)
                        && [EventName.tabLoaded.rawValue, EventName.tabLoadCancelled.rawValue, EventName.tabLoadFailed.rawValue,
                            EventName.tabReload.rawValue].contains(other.name)
                }
                span("load \(Event.humanValue(load ?? .null))", node: .phone, track: "tab \(tab?.stringValue ?? "?")",
                     from: event.at, to: until, args: event.fields)
            default: break
            }
        }
    }

    /// Each message as a flow arrow from the sender's `sync.sent` to the receiver's `sync.received`.
    mutating func messages() {
        var sent: [String: Event] = [:]
        for event in events where event.name == EventName.syncSent.rawValue {
            sent["\(event.node.rawValue)/\(event["channel"]?.stringValue ?? "")/\(Event.humanValue(event["seq"] ?? .null))"] = event
        }
        var flow: Int64 = 0
        for event in events where event.name == EventName.syncReceived.rawValue {
            let channel = event["channel"]?.stringValue ?? ""
            let sender: NodeName = event.node == .phone ? .watch : .phone
            let key = "\(sender.rawValue)/\(channel)/\(Event.humanValue(event["seq"] ?? .null))"
            guard let origin = sent[key] else { continue }
            flow += 1
            let name = "\(channel) #\(Event.humanValue(event["seq"] ?? .null))"
            // Flow arrows bind to slices: a 1 µs slice at each end carries them.
            emit("X", "send " + name, node: sender, track: channel + " messages", at: origin.at, ["dur": 1, "args": .object(origin.fields)])
            emit("s", name, node: sender, track: channel + " messages", at: origin.at, ["id": .int(flow), "cat": "message"])
            emit("X", "receive " + name, node: event.node, track: channel + " messages", at: event.at, ["dur": 1, "args": .object(event.fields)])
            emit("f", name, node: event.node, track: channel + " messages", at: event.at, ["id": .int(flow), "cat": "message", "bp": "e"])
        }
    }

    /// Running totals of what costs: wakes, callbacks, refreshes, throttled requests, queries'
    /// fetches, tab reloads, notifications, and each channel's messages received.
    mutating func counters() {
        let counted: [(String, String)] = [
            (EventName.bgdeliveryWake.rawValue, "wakes"), (EventName.observerFired.rawValue, "observer callbacks"),
            (EventName.coordinatorRefresh.rawValue, "refreshes"), (EventName.coordinatorThrottled.rawValue, "throttled"),
            (EventName.snapshotFetch.rawValue, "snapshot fetches"), (EventName.tabReload.rawValue, "tab reloads"),
            (EventName.notificationPosted.rawValue, "notifications"),
        ]
        var totals: [String: Int64] = [:]
        for event in events {
            var name: String?
            if let match = counted.first(where: { $0.0 == event.name }), event.node == .phone { name = match.1 }
            if event.name == EventName.syncReceived.rawValue { name = "\(event["channel"]?.stringValue ?? "?") received" }
            guard let name else { continue }
            totals[name, default: 0] += 1
            emit("C", name, node: event.node, track: "counters", at: event.at, ["args": .object([name: .int(totals[name]!)])])
        }
    }

    /// Metadata first, then by time; the order among equal times is the order written (an E before
    /// the next B), so every track's timestamps never go back.
    func sorted() -> [JSON] {
        let keyed = out.enumerated().map { (index, event) -> (Int64, Int, JSON) in
            let isMeta = event["ph"]?.stringValue == "M"
            return (isMeta ? Int64.min : event["ts"]?.intValue ?? 0, index, event)
        }
        return keyed.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map(\.2)
    }
}
