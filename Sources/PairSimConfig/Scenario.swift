import PairSimCore
import Yams

/// Which events an expectation is about: `phone notification.posted title="Workout completed"`,
/// `watch workout.*`, `hk.saved kind=workout` (any node).
public struct EventMatcher: Hashable, Sendable, CustomStringConvertible {
    public var node: NodeName?
    /// An exact event name, or a prefix when written with a trailing `*`.
    public var name: String
    public var isPrefix: Bool
    /// A name in a namespace PairSim does not use (`myapp.reading`): an app's own event, which a
    /// scenario may expect. Names in PairSim's namespaces must be documented ones (typos are caught).
    static func isAppOwn(_ name: String) -> Bool {
        guard let dot = name.firstIndex(of: "."), dot != name.startIndex, name.index(after: dot) != name.endIndex else { return false }
        let namespaces = Set(EventName.allCases.map { String($0.rawValue.prefix { $0 != "." }) })
        return !namespaces.contains(String(name[..<dot]))
    }

    /// Fields that must have these values (compared as the readable log shows them).
    public var fields: [String: String]
    /// The text it was written as.
    public var description: String

    public init(parsing text: String) throws(CommandError) {
        let words = try ParsedCommand(parsing: text)
        var tokens = [words.verb] + words.arguments
        guard words.options.isEmpty else { throw CommandError("options are not allowed in an event matcher") }
        if let node = NodeName(rawValue: tokens[0]) {
            self.node = node
            tokens.removeFirst()
        } else {
            node = nil
        }
        guard let eventName = tokens.first else { throw CommandError("no event name in \"\(text)\"") }
        tokens.removeFirst()
        let prefix = eventName.hasSuffix("*")
        let base = prefix ? String(eventName.dropLast()) : eventName
        isPrefix = prefix
        name = base
        if !prefix, !EventName.allCases.contains(where: { $0.rawValue == base }), !Self.isAppOwn(base) {
            throw CommandError("unknown event \"\(eventName)\" (docs/EVENTS.md lists them; end with * for a prefix)")
        }
        var fields: [String: String] = [:]
        for token in tokens {
            guard let equals = token.firstIndex(of: "="), equals != token.startIndex else {
                throw CommandError("expected field=value, got \"\(token)\"")
            }
            fields[String(token[..<equals])] = String(token[token.index(after: equals)...])
        }
        self.fields = fields
        description = text
    }

    /// Why this matcher may never match as written: it names a field an event line keeps for itself
    /// (`node`, `event`, `by`, …). An app's field of that name is logged with a leading `_`.
    public var warnings: [String] {
        fields.keys.sorted().filter { Event.reservedKeys.contains($0) }.map { key in
            let hint = key == "node" ? "put the node first (`phone \(name) …`)"
                : Self.isAppOwn(name) ? "an app's field named \(key) is logged as _\(key): match `_\(key)=…`"
                : "it is not one of the event's fields (docs/EVENTS.md)"
            return "\"\(description)\" matches field \(key), which an event line keeps for itself: \(hint)"
        }
    }

    /// `matches` for an event read where it lies (a log checked once per expectation): passed by
    /// value to `matches`, each event was copied first, its name and fields retained and
    /// released (perf put 9.5 % of a swarm without the nemesis there; CPU fell 3.6 %). Node and
    /// name settle most events without the copy. Their tests are `matches(_:)`'s, written out
    /// again: through a helper shared by both, each event's name was retained and released.
    public func matches(at event: UnsafePointer<Event>) -> Bool {
        if let node, event.pointee.node != node { return false }
        if isPrefix ? !event.pointee.name.hasPrefix(name) : event.pointee.name != name { return false }
        return fields.isEmpty || matches(event.pointee)
    }

    public func matches(_ event: Event) -> Bool {
        if let node, event.node != node { return false }
        if isPrefix ? !event.name.hasPrefix(name) : event.name != name { return false }
        for (key, value) in fields {
            guard let field = event.fields[key], Event.humanValue(field) == value || field.stringValue == value else { return false }
        }
        return true
    }
}

/// One expectation over the merged event log.
public enum Expectation: Hashable, Sendable {
    /// At least one matching event.
    case eventually(EventMatcher)
    /// No matching event.
    case never(EventMatcher)
    /// Exactly `count` matching events.
    case exactly(Int, EventMatcher)
    /// At most `count` matching events, or at most `count` in any window of `per`.
    case atMost(Int, EventMatcher, per: EmulatedDuration?)
    /// At least `count` matching events.
    case atLeast(Int, EventMatcher)
    /// Every `after` event is followed by a `then` event within `within`.
    case within(EmulatedDuration, after: EventMatcher, then: EventMatcher)
}

/// An expectation as written, with its label for verdicts.
public struct ExpectationSpec: Hashable, Sendable {
    public var expectation: Expectation
    public var label: String
    /// Only events at or after this time count.
    public var from: EmulatedInstant?
    /// Only events before this time count.
    public var until: EmulatedInstant?
}

/// A command at an emulated time.
public struct TimelineEntry: Hashable, Sendable {
    public var at: EmulatedInstant
    public var node: NodeName
    public var command: String
    /// `fails: CODE`: the command must be refused, its reply naming `CODE` (e.g. `notReachable`,
    /// `payloadTooLarge`); nil: it must succeed (R: F6).
    public var expectedFailure: String?

    public init(at: EmulatedInstant, node: NodeName, command: String, expectedFailure: String? = nil) {
        self.at = at
        self.node = node
        self.command = command
        self.expectedFailure = expectedFailure
    }

    /// The line that fails the scenario for this command's outcome, or nil when it went as the
    /// timeline says (succeeded, or failed with the expected code).
    public func problem(ok: Bool, reply: String) -> String? {
        let line = "\(at) \(node) \(command)"
        guard let expected = expectedFailure else { return ok ? nil : "\(line): \(reply)" }
        if ok { return "\(line): expected to fail with \(expected), but it succeeded (\(reply))" }
        return reply.contains(expected) ? nil : "\(line): expected to fail with \(expected), but: \(reply)"
    }
}

/// A scenario (docs/SCENARIOS.md): a topology, a timeline of commands, expectations.
public struct Scenario: Sendable {
    public var name: String
    public var description: String
    public var topology: Topology
    /// The topology as YAML (with overrides applied), for starting real nodes.
    public var topologyYAML: String
    public var duration: EmulatedDuration
    /// Commands in time order (file order at equal times).
    public var timeline: [TimelineEntry]
    public var expectations: [ExpectationSpec]
    /// The app's own invariants (`invariants:`): checked on every run, under the nemesis and in
    /// every swarm seed too, where the expectations are not.
    public var invariants: [ExpectationSpec] = []
    public var sourcePath: String
    /// The scenario's `nemesis:` (faults drawn from the seed), used by `simulate --nemesis` and
    /// `swarm --nemesis`; nil: the defaults.
    public var nemesis: NemesisSpec? = nil
    /// The nemesis `--nemesis` plays: the scenario's, else the defaults.
    public var nemesisOrDefault: NemesisSpec { nemesis ?? NemesisSpec() }

    /// The nemesis a simulation of this scenario plays: a scenario with a `nemesis:` key always
    /// plays its own; `--nemesis` (`flag`) adds the defaults to one without. Nil: none.
    public func nemesisPlayed(flag: Bool) -> NemesisSpec? { flag ? nemesisOrDefault : nemesis }

    /// What the expectations may not mean as written (`EventMatcher.warnings`), each once.
    public var warnings: [String] {
        var seen = Set<String>()
        return (expectations + invariants).flatMap { spec -> [String] in
            switch spec.expectation {
            case .eventually(let m), .never(let m), .exactly(_, let m), .atMost(_, let m, _), .atLeast(_, let m): m.warnings
            case .within(_, let after, let then): after.warnings + then.warnings
            }
        }.filter { seen.insert($0).inserted }
    }
}

/// Commands the driver runs on a node's process rather than the node itself: a process kill
/// (kill -9; what was not committed is lost) and its restart from what was.
public enum DriverCommand: String, CaseIterable, Sendable {
    case killNode = "kill-node"
    case restartNode = "restart-node"
}

extension TimelineEntry {
    /// The driver command this entry is, or nil for a command the node itself runs.
    public var driverCommand: DriverCommand? {
        (try? ParsedCommand(parsing: command)).flatMap { DriverCommand(rawValue: $0.verb) }
    }

    /// `kill-node --mid-turn`: the process dies in the middle of its next turn (docs/SCENARIOS.md).
    public var killsMidTurn: Bool {
        guard let parsed = try? ParsedCommand(parsing: command) else { return false }
        return parsed.verb == DriverCommand.killNode.rawValue && parsed.options["mid-turn"] == "true"
    }
}

/// How much havoc a nemesis wreaks over a run (docs/SCENARIOS.md#nemesis).
public struct NemesisSpec: Hashable, Sendable {
    /// Node kills (kill -9), each followed by a restart after a drawn downtime.
    public var crashes: Int
    /// Bluetooth partitions (`out-of-range` … `in-range`) of drawn length.
    public var partitions: Int
    /// Longest downtime of a killed node.
    public var maxDowntime: EmulatedDuration
    /// Longest partition.
    public var maxPartition: EmulatedDuration
    /// Windows on one channel of heavy loss, duplication, reordering or a latency spike.
    public var bursts: Int
    /// Longest burst.
    public var maxBurst: EmulatedDuration
    /// The share of seeds (drawn from each seed) that run the real journal and SQLite on a faulty
    /// disk instead of the in-memory image, each kill with a storage fault (R: K8). Such a seed
    /// takes ~5× an image seed's time (a week-long nemesis seed, release build: 0.43 s against
    /// 0.09 s), so 1 in 16 costs a swarm ~1.3× its time (`pairsim-bench swarm`: the nemesis runs
    /// at 0.77× the seeds/s of its baseline without it).
    public var realStorage: Double = 0.0625

    public init(crashes: Int = 6, partitions: Int = 3, maxDowntime: EmulatedDuration = .minutes(30), maxPartition: EmulatedDuration = .hours(2),
                bursts: Int = 4, maxBurst: EmulatedDuration = .hours(1)) {
        self.crashes = crashes
        self.partitions = partitions
        self.maxDowntime = maxDowntime
        self.maxPartition = maxPartition
        self.bursts = bursts
        self.maxBurst = maxBurst
    }
}
