import Foundation
import PairSimCore

/// Reads topology YAML (docs/TOPOLOGY.md) into a `Topology`, refusing anything doubtful with the
/// file, line, key path and reason.
public enum TopologyLoader {
    static let topKeys = ["name", "seed", "timeScale", "nodes", "channels", "partitions", "sync", "wire", "watch", "phone"]

    /// Loads and validates the file at `path`.
    public static func load(path: String) throws(ConfigError) -> Topology {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigError(file: path, line: nil, path: "", reason: "cannot read the file (\(error.localizedDescription))")
        }
        return try parse(yaml: text, file: path)
    }

    /// Parses topology YAML given as text; `file` names it in errors.
    public static func parse(yaml text: String, file: String) throws(ConfigError) -> Topology {
        let root = try YAMLReader.root(yaml: text, file: file)
        return try parse(root)
    }

    /// Parses a topology from an already-read mapping node (scenarios embed one).
    public static func parse(_ root: YAMLReader, extraKeys: [String] = []) throws(ConfigError) -> Topology {
        let map = try root.mapping(allowed: topKeys + extraKeys, required: ["name", "nodes"])
        let name = try map["name"]!.string()
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
            throw map["name"]!.error("must be letters, digits, - or _, got \"\(name)\"")
        }
        var topology = Topology(name: name, nodes: try nodes(map["nodes"]!), sourcePath: root.file)
        if let seed = map["seed"] { topology.seed = UInt64(try seed.int(in: 0...Int64.max)) }
        if let scale = map["timeScale"] { topology.timeScale = try scale.double(in: Topology.timeScaleRange) }
        if let channels = map["channels"] {
            topology.channels = try self.channels(channels)
            if let wc = try channels.mapping(allowed: Channel.allCases.map(\.rawValue))["watchconnectivity"] {
                topology.watchConnectivity = try watchConnectivity(wc)
            }
        }
        if let partitions = map["partitions"] {
            for window in try self.partitions(partitions) {
                for channel in window.channels { topology.channels[channel, default: ChannelConfig()].partitions.append(window) }
            }
        }
        if let sync = map["sync"] { topology.reliability = try reliability(sync) }
        if let wire = map["wire"] { topology.wire = try self.wire(wire) }
        if let watch = map["watch"] { topology.watch = try self.watch(watch) }
        if let phone = map["phone"] { topology.phone = try PhoneConfigLoader.parse(phone) }
        return topology
    }

    // MARK: Nodes

    static func nodes(_ reader: YAMLReader) throws(ConfigError) -> [NodeName: NodeEndpoints] {
        let map = try reader.mapping(allowed: ["watch", "phone"], required: ["watch", "phone"])
        var result: [NodeName: NodeEndpoints] = [:]
        var seen: [String: String] = [:]
        for node in NodeName.allCases {
            let fields = try map[node.rawValue]!.mapping(allowed: ["publish", "control", "data"], required: ["publish", "control", "data"])
            var values: [String: String] = [:]
            for key in ["publish", "control"] {
                let field = fields[key]!
                let endpoint = try field.string()
                try validateEndpoint(endpoint, field)
                if let other = seen[endpoint] {
                    throw field.error("endpoint \(endpoint) clashes with \(other)")
                }
                seen[endpoint] = field.path
                values[key] = endpoint
            }
            let data = try fields["data"]!.string()
            guard !data.isEmpty else { throw fields["data"]!.error("must not be empty") }
            values["data"] = data
            result[node] = NodeEndpoints(publish: values["publish"]!, control: values["control"]!, data: data)
        }
        if result[.watch]!.data == result[.phone]!.data {
            throw map["phone"]!.error("data directory \(result[.phone]!.data) is the watch's too; each node needs its own")
        }
        return result
    }

    /// Endpoints must be loopback tcp with a port, ipc, or inproc: nodes never listen beyond this machine.
    static func validateEndpoint(_ endpoint: String, _ reader: YAMLReader) throws(ConfigError) {
        if endpoint.hasPrefix("ipc://") {
            let path = endpoint.dropFirst(6)
            guard !path.isEmpty else { throw reader.error("ipc endpoint needs a path, e.g. ipc://.pairsim/x.sock") }
            guard path.utf8.count < 100 else { throw reader.error("ipc path longer than 99 bytes (the socket path limit)") }
            return
        }
        guard endpoint.hasPrefix("tcp://") else {
            throw reader.error("endpoint \"\(endpoint)\" must start with tcp:// or ipc://")
        }
        let rest = endpoint.dropFirst(6)
        guard let colon = rest.lastIndex(of: ":"), let port = Int(rest[rest.index(after: colon)...]), (1...65_535).contains(port) else {
            throw reader.error("tcp endpoint \"\(endpoint)\" needs a port 1–65535, e.g. tcp://127.0.0.1:7401")
        }
        let host = rest[..<colon]
        guard host == "127.0.0.1" else {
            throw reader.error(host == "localhost"
                ? "write tcp://127.0.0.1:… (ZeroMQ binds numeric addresses only)"
                : "tcp endpoint must bind to 127.0.0.1 (loopback only), got host \"\(host)\"")
        }
    }

    // MARK: Channels

    static func channels(_ reader: YAMLReader) throws(ConfigError) -> [Channel: ChannelConfig] {
        let map = try reader.mapping(allowed: Channel.allCases.map(\.rawValue))
        var result: [Channel: ChannelConfig] = [:]
        for channel in Channel.allCases {
            guard let entry = map[channel.rawValue] else { continue }
            var allowed = ["latency", "loss", "duplicate", "reorder", "reorderWindow", "bursts"]
            if channel == .cloudkit { allowed.append("exportInterval") }
            if channel == .watchconnectivity { allowed += watchConnectivityKeys }
            let fields = try entry.mapping(allowed: allowed)
            var config = ChannelConfig()
            if let latency = fields["latency"] { config.latency = try self.latency(latency) }
            if let loss = fields["loss"] { config.loss = try loss.probability() }
            if let duplicate = fields["duplicate"] { config.duplicate = try duplicate.probability() }
            if let reorder = fields["reorder"] { config.reorder = try reorder.probability() }
            if let window = fields["reorderWindow"] { config.reorderWindow = try window.duration() }
            if let export = fields["exportInterval"] { config.exportInterval = try export.optionalDuration() }
            if let bursts = fields["bursts"] { config.bursts = try self.bursts(bursts) }
            if config.loss >= 1 { throw fields["loss"]!.error("must be below 1, or nothing would ever arrive") }
            result[channel] = config
        }
        return result
    }

    /// `channels.<name>.bursts`: windows of extra loss, duplication, reordering or latency — what
    /// the nemesis draws, written out for real nodes by `topology run --nemesis`.
    static func bursts(_ reader: YAMLReader) throws(ConfigError) -> [FaultBurst] {
        var bursts: [FaultBurst] = []
        for entry in try reader.sequence() {
            let fields = try entry.mapping(allowed: ["from", "to", "loss", "duplicate", "reorder", "extraLatency"], required: ["from", "to"])
            var burst = FaultBurst(from: .zero + (try fields["from"]!.duration()), to: .zero + (try fields["to"]!.duration()))
            guard burst.to > burst.from else { throw fields["to"]!.error("must be after from") }
            if let value = fields["loss"] {
                burst.loss = try value.probability()
                if burst.loss >= 1 { throw value.error("must be below 1, or nothing would ever arrive") }
            }
            if let value = fields["duplicate"] { burst.duplicate = try value.probability() }
            if let value = fields["reorder"] { burst.reorder = try value.probability() }
            if let value = fields["extraLatency"] { burst.extraLatency = try value.duration() }
            bursts.append(burst)
        }
        return bursts
    }

    static let watchConnectivityKeys = ["messageFailure", "userInfoStall", "messageTimeout", "fileRate", "launchesForceQuitApp"]

    /// The WatchConnectivity-only keys of `channels.watchconnectivity` (docs/TOPOLOGY.md).
    static func watchConnectivity(_ reader: YAMLReader) throws(ConfigError) -> WCConfig {
        let fields = try reader.mapping(allowed: ["latency", "loss", "duplicate", "reorder", "reorderWindow"] + watchConnectivityKeys)
        var config = WCConfig()
        if let value = fields["messageFailure"] {
            config.messageFailure = try value.probability()
            if config.messageFailure >= 1 { throw value.error("must be below 1, or no message would ever go") }
        }
        if let stall = fields["userInfoStall"] {
            let parts = try stall.mapping(allowed: ["chance", "for"], required: ["chance"])
            config.stallChance = try parts["chance"]!.probability()
            if let value = parts["for"] {
                config.stallFor = (try? value.string()) == "untilNudged" ? nil : try PhoneConfigLoader.positive(value)
            }
        }
        if let value = fields["messageTimeout"] { config.messageTimeout = try PhoneConfigLoader.positive(value) }
        if let value = fields["fileRate"] { config.fileRate = Int(try value.int(in: 1_000...1_000_000_000)) }
        if let value = fields["launchesForceQuitApp"] { config.launchesForceQuitApp = try value.bool() }
        return config
    }

    /// `latency: 2s` | `{constant: 2s}` | `{uniform: [1s, 4s]}` | `{exponential: {mean: 5s}}` |
    /// `{lognormal: {median: 15s, p99: 20m}}`.
    static func latency(_ reader: YAMLReader) throws(ConfigError) -> LatencyModel {
        if !reader.isMapping { return .constant(try reader.duration()) }
        let map = try reader.mapping(allowed: ["constant", "uniform", "exponential", "lognormal"])
        guard map.count == 1, let (kind, value) = map.first else {
            throw reader.error("give exactly one of constant, uniform, exponential, lognormal")
        }
        switch kind {
        case "constant":
            return .constant(try value.duration())
        case "uniform":
            let bounds: [EmulatedDuration]
            if value.isSequence {
                let items = try value.sequence()
                guard items.count == 2 else { throw value.error("expected [min, max]") }
                bounds = [try items[0].duration(), try items[1].duration()]
            } else {
                let fields = try value.mapping(allowed: ["min", "max"], required: ["min", "max"])
                bounds = [try fields["min"]!.duration(), try fields["max"]!.duration()]
            }
            guard bounds[0] <= bounds[1] else { throw value.error("min \(bounds[0]) is above max \(bounds[1])") }
            return .uniform(min: bounds[0], max: bounds[1])
        case "exponential":
            if value.isMapping {
                let fields = try value.mapping(allowed: ["mean"], required: ["mean"])
                return .exponential(mean: try fields["mean"]!.duration())
            }
            return .exponential(mean: try value.duration())
        default:
            let fields = try value.mapping(allowed: ["median", "p99"], required: ["median", "p99"])
            let median = try fields["median"]!.duration()
            let p99 = try fields["p99"]!.duration()
            guard median > .zero else { throw fields["median"]!.error("must be above 0") }
            guard p99 >= median else { throw fields["p99"]!.error("p99 \(p99) is below the median \(median)") }
            return .lognormal(median: median, p99: p99)
        }
    }

    static func partitions(_ reader: YAMLReader) throws(ConfigError) -> [PartitionWindow] {
        var windows: [PartitionWindow] = []
        for item in try reader.sequence() {
            let fields = try item.mapping(allowed: ["from", "to", "channels"], required: ["from", "to"])
            let from = try fields["from"]!.duration()
            let to = try fields["to"]!.duration()
            guard to > from else { throw fields["to"]!.error("must be after from (\(from))") }
            var channels = Set(Channel.allCases)
            if let list = fields["channels"] {
                channels = []
                for entry in try list.sequence() {
                    channels.insert(Channel(rawValue: try entry.choice(Channel.allCases.map(\.rawValue)))!)
                }
            }
            windows.append(PartitionWindow(from: .zero + from, to: .zero + to, channels: channels))
        }
        return windows
    }

    // MARK: Policies

    static func reliability(_ reader: YAMLReader) throws(ConfigError) -> ReliabilityConfig {
        let map = try reader.mapping(allowed: ["retransmitInitial", "retransmitMax", "maxInFlight", "outboxLimit", "durability"])
        var config = ReliabilityConfig()
        if let value = map["retransmitInitial"] { config.retransmitInitial = try value.duration() }
        if let value = map["retransmitMax"] { config.retransmitMax = try value.duration() }
        if let value = map["maxInFlight"] { config.maxInFlight = Int(try value.int(in: 1...1_000_000)) }
        if let value = map["outboxLimit"] { config.outboxLimit = Int(try value.int(in: 1...100_000_000)) }
        if let value = map["durability"] {
            let text = try value.string()
            guard let durability = ReliabilityConfig.Durability(rawValue: text) else {
                throw value.error("expected kill or power, got \"\(text.prefix(40))\"")
            }
            config.durability = durability
        }
        guard config.retransmitInitial > .zero else { throw map["retransmitInitial"]!.error("must be above 0") }
        guard config.retransmitMax >= config.retransmitInitial else {
            throw (map["retransmitMax"] ?? reader).error("retransmitMax is below retransmitInitial")
        }
        return config
    }

    static func wire(_ reader: YAMLReader) throws(ConfigError) -> WireLimits {
        let map = try reader.mapping(allowed: ["maxEnvelopeBytes", "maxItemsPerMessage"])
        var limits = WireLimits()
        if let value = map["maxEnvelopeBytes"] { limits.maxEnvelopeBytes = Int(try value.int(in: 1_024...(256 << 20))) }
        if let value = map["maxItemsPerMessage"] { limits.maxItemsPerMessage = Int(try value.int(in: 1...1_000_000)) }
        return limits
    }

    /// `phone.clock` / `watch.clock` (R: F5): `offset` (a signed duration, or `seeded`), `drift`
    /// (ppm, or `seeded`), `timeZone` (an IANA identifier).
    static func deviceClock(_ reader: YAMLReader) throws(ConfigError) -> DeviceClockConfig {
        let fields = try reader.mapping(allowed: ["offset", "drift", "timeZone"])
        var config = DeviceClockConfig()
        if let value = fields["offset"] {
            let text = try value.string()
            if text == "seeded" {
                config.offset = nil
            } else {
                guard let offset = EmulatedDuration(parsingSigned: text), abs(offset.milliseconds) <= EmulatedDuration.days(3_650).milliseconds else {
                    throw value.error("expected a duration with an optional sign (-90s, +2m, 0) within 3650 days, or seeded; got \"\(text.prefix(40))\"")
                }
                config.offset = offset
            }
        }
        if let value = fields["drift"] {
            config.driftPPM = (try? value.string()) == "seeded" ? nil : try value.double(in: -1_000...1_000)
        }
        if let value = fields["timeZone"] {
            let zone = try value.string()
            guard DeviceClock.isKnownZone(zone) else {
                throw value.error("unknown time zone \"\(zone.prefix(64))\" (an IANA identifier: UTC, Europe/Berlin, America/New_York)")
            }
            config.timeZone = zone
        }
        return config
    }

    static func watch(_ reader: YAMLReader) throws(ConfigError) -> WatchConfig {
        let map = try reader.mapping(allowed: ["app", "heartRate", "workoutMessage", "backgroundRefresh", "complication", "clock"])
        var config = WatchConfig()
        if let clock = map["clock"] { config.clock = try deviceClock(clock) }
        if let app = map["app"] {
            // `app: NAME` or `app: { name: NAME }`: a watch app of the build's (absent: the seeds' app, built in).
            let fields = app.isMapping ? try app.mapping(allowed: ["name", "settings", "initialState"], required: ["name"]) : ["name": app]
            config.app = try PhoneConfigLoader.appName(try fields["name"]!.string(), fields["name"]!)
            if let settings = fields["settings"] { config.appSettings = try settings.settings() }
            if let state = fields["initialState"] { config.appStartsNotRunning = try state.choice(["background", "notRunning"]) == "notRunning" }
        }
        if let value = map["workoutMessage"] { config.workoutMessage = try value.bool() }
        if let complication = map["complication"] {
            let fields = try complication.mapping(allowed: ["onActiveFace", "transfersPerDay"])
            if let value = fields["onActiveFace"] { config.complicationOnActiveFace = try value.bool() }
            if let value = fields["transfersPerDay"] { config.complicationTransfersPerDay = Int(try value.int(in: 0...10_000)) }
        }
        if let refresh = map["backgroundRefresh"] {
            let fields = try refresh.mapping(allowed: ["perHour", "taskTime"])
            if let value = fields["perHour"] { config.refreshPerHour = Int(try value.int(in: 0...3_600)) }
            if let value = fields["taskTime"] {
                config.backgroundTaskTime = try value.duration()
                guard config.backgroundTaskTime >= .seconds(1) else { throw value.error("must be at least 1s") }
            }
        }
        if let heartRate = map["heartRate"] {
            let fields = try heartRate.mapping(allowed: ["workoutInterval", "restingInterval", "resting"])
            if let value = fields["workoutInterval"] {
                config.heartRateInterval = try value.duration()
                guard config.heartRateInterval >= .seconds(1) else { throw value.error("must be at least 1s") }
            }
            if let value = fields["restingInterval"] {
                config.restingInterval = try value.optionalDuration()
                if let interval = config.restingInterval, interval < .seconds(10) { throw value.error("must be at least 10s, or off") }
            }
            if let value = fields["resting"] { config.restingHeartRate = try value.double(in: 30...120) }
        }
        return config
    }
}
