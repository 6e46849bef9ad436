/// Where a node listens and keeps its files.
public struct NodeEndpoints: Hashable, Sendable {
    /// The node's PUB socket endpoint; the peer's SUB connects here.
    public var publish: String
    /// The node's REP control socket endpoint.
    public var control: String
    /// The node's data directory (database, event log).
    public var data: String

    public init(publish: String, control: String, data: String) {
        self.publish = publish
        self.control = control
        self.data = data
    }
}

/// Watch behaviour settings.
public struct WatchConfig: Hashable, Sendable {
    /// The watch app to run, by name (`watch.app`): by default `reference`, the seeds' watch app on
    /// PairSimKit (R: A10).
    public var app = "reference"
    /// That app's own settings (`watch.app.settings`), for it to read with `AppSettings`.
    public var appSettings = JSONObject()
    /// `watch.app.initialState: notRunning`: the app is not launched when the node starts; the
    /// user (`foreground`) or the system (a transfer from the phone, a workout to recover) launches it.
    public var appStartsNotRunning = false
    /// One heart-rate sample per this much active workout time.
    public var heartRateInterval: EmulatedDuration = .seconds(5)
    /// A resting heart-rate sample this often outside workouts (nil: none).
    public var restingInterval: EmulatedDuration? = .minutes(10)
    /// The wearer's resting heart rate (bpm).
    public var restingHeartRate: Double = 62
    /// The watch app tells the phone app "workout finished" over WatchConnectivity when a workout
    /// ends (seed 000's next step, R: X4): `sendMessage` when reachable, else `transferUserInfo`.
    /// Off by default, so the HealthKit/CloudKit path alone decides when the phone notices.
    public var workoutMessage = false
    /// The watch face shows one of the app's complications (`watch.complication.onActiveFace`):
    /// then the iPhone app's `transferCurrentComplicationUserInfo` has a daily budget of
    /// `watch.complication.transfersPerDay` (Apple: 50) high-priority transfers (R: F4).
    public var complicationOnActiveFace = false
    public var complicationTransfersPerDay = 50
    /// Background app refresh tasks a watch app may run per hour (`watch.backgroundRefresh.perHour`).
    /// Apple documents a budget and no number ("may delay the background task … if your app exceeds
    /// its budget", scheduleBackgroundRefresh(withPreferredDate:…); "apps with active complications
    /// get larger budgets", ClockKit): PairSim's choice is 4 an hour, what watchOS is commonly
    /// reported to give an app with a complication on the active face.
    public var refreshPerHour = 4
    /// How long a background task may run before it must be completed (`watch.backgroundRefresh.taskTime`).
    /// Apple gives no number ("a limited amount of time"); PairSim's choice: 15 s.
    public var backgroundTaskTime: EmulatedDuration = .seconds(15)
    /// The watch's own clock (`watch.clock`, R: F5).
    public var clock = DeviceClockConfig()

    public init() {}
}

/// A whole pair: nodes, channels, policies. Built by `TopologyLoader` from YAML.
public struct Topology: Hashable, Sendable {
    public var name: String
    /// Seeds every random draw (each node derives its own generator from it).
    public var seed: UInt64
    /// Emulated seconds per wall second in real runs.
    public var timeScale: Double
    public var nodes: [NodeName: NodeEndpoints]
    public var channels: [Channel: ChannelConfig]
    public var reliability: ReliabilityConfig
    public var wire: WireLimits
    public var watch: WatchConfig
    public var phone: PhoneConfig
    /// WatchConnectivity's faults and PairSim's choices (`channels.watchconnectivity`).
    public var watchConnectivity = WCConfig()
    /// The file it came from, for messages.
    public var sourcePath: String

    public init(name: String, seed: UInt64 = 42, timeScale: Double = 1, nodes: [NodeName: NodeEndpoints],
                channels: [Channel: ChannelConfig] = [:], reliability: ReliabilityConfig = ReliabilityConfig(),
                wire: WireLimits = .default, watch: WatchConfig = WatchConfig(), phone: PhoneConfig = PhoneConfig(),
                sourcePath: String = "") {
        self.name = name
        self.seed = seed
        self.timeScale = timeScale
        self.nodes = nodes
        self.channels = channels
        self.reliability = reliability
        self.wire = wire
        self.watch = watch
        self.phone = phone
        self.sourcePath = sourcePath
    }

    /// Time scales accepted from topology files and command lines alike.
    public static let timeScaleRange: ClosedRange<Double> = 0.001...1_000_000

    /// Why `scale` is not a usable time scale, or nil.
    public static func timeScaleProblem(_ scale: Double) -> String? {
        timeScaleRange.contains(scale) ? nil : "--time-scale must be between 0.001 and 1000000, got \(scale)"
    }

    /// The seed node `node` draws from (logged at its start).
    public func seed(for node: NodeName) -> UInt64 {
        var random = SplitMix64(seed: seed, label: "node.\(node.rawValue)")
        return random.next() >> 1
    }

    /// Channel settings, defaulting to an instant, fault-free channel.
    public func channel(_ channel: Channel) -> ChannelConfig { channels[channel] ?? ChannelConfig() }
}
