import PairSimCore
import PairSimKit
import ReferenceApp
import ReferenceWatchApp
import DeltaSyncApp
import WorkoutWatchApp
import BackgroundRefreshApp

/// The apps this build of PairSim knows (`topology apps`), configured from a topology.
public enum AppCatalog {
    /// Every app, the reference app first (the default), then the watch apps.
    public static func registrations(for topology: Topology) -> [AppRegistration] {
        [ReferenceApp.registration(referenceConfig(topology.phone)), DeltaSyncApp.registration(deltaConfig(topology.phone)),
         BackgroundRefreshApp.registration, ReferenceWatchApp.registration(referenceWatchConfig(topology.watch)), WorkoutWatchApp.registration()]
    }

    /// The `device` app `name` among `registrations(for:)` and `extra`; an unknown name is an error
    /// naming the device's apps.
    public static func registration(named name: String, topology: Topology, extra: [AppRegistration] = [],
                                    device: AppDevice = .phone) throws(CommandError) -> AppRegistration {
        let every = extra + registrations(for: topology)
        let all = every.filter { $0.device == device }
        guard let found = all.first(where: { $0.name == name }) else {
            let (kind, otherKind) = device == .phone ? ("iPhone", "watch") : ("watch", "iPhone")
            let other = every.contains { $0.name == name } ? " (it is a \(otherKind) app)" : ""
            throw CommandError("unknown \(kind) app \"\(name)\"\(other) (this build's \(kind) apps: \(all.map(\.name).joined(separator: ", ")))")
        }
        return found
    }

    /// The topology's watch app (`watch.app`, the reference watch app unless it names another).
    public static func watchApp(for topology: Topology, extra: [AppRegistration] = []) throws(CommandError) -> AppRegistration {
        try registration(named: topology.watch.app, topology: topology, extra: extra, device: .watch)
    }

    /// Every UI action of the apps this build knows (for checking scenario timelines early).
    public static let knownActions: [CommandSpec] = {
        var seen = Set<String>()
        return (ReferenceApp.actions + DeltaSyncApp.actions + ReferenceWatchApp.actions + WorkoutWatchApp.actions).compactMap { action in
            seen.insert(action.verb).inserted ? CommandSpec(action.verb, action.usage, action.summary) : nil
        }
    }()

    /// The reference app's knobs from the topology's `phone:` section.
    public static func referenceConfig(_ phone: PhoneConfig) -> ReferenceApp.Config {
        var config = ReferenceApp.Config()
        config.throttle = .milliseconds(phone.refresh.throttle.milliseconds)
        config.observerThrottle = .milliseconds(phone.refresh.observerThrottle.milliseconds)
        config.foregroundOnTimeAway = phone.refresh.foregroundRule == .timeAway
        config.foregroundAfter = .milliseconds(phone.refresh.foregroundAfter.milliseconds)
        config.cacheTTL = .milliseconds(phone.refresh.cacheTTL.milliseconds)
        config.queryCost = .milliseconds(phone.refresh.queryCost.milliseconds)
        config.tabMapping = phone.refresh.tabMapping
        config.registerObserversAtLaunch = phone.app.registerObserversAtLaunch
        config.handlerDuration = .milliseconds(phone.app.handlerDuration.milliseconds)
        config.frequencies = frequencies(phone)
        return config
    }

    /// The reference watch app's knobs from the topology's `watch:` section.
    public static func referenceWatchConfig(_ watch: WatchConfig) -> ReferenceWatchApp.Config {
        var config = ReferenceWatchApp.Config()
        config.workoutMessage = watch.workoutMessage
        return config
    }

    public static func deltaConfig(_ phone: PhoneConfig) -> DeltaSyncApp.Config {
        var config = DeltaSyncApp.Config()
        config.frequencies = frequencies(phone)
        return config
    }

    /// `backgroundDelivery.<type>`: the frequency the app asks for per type.
    static func frequencies(_ phone: PhoneConfig) -> [String: HKUpdateFrequency] {
        var result: [String: HKUpdateFrequency] = [:]
        for (type, frequency) in phone.backgroundDelivery.frequencies {
            switch frequency {
            case .immediate: result[type.name] = .immediate
            case .hourly: result[type.name] = .hourly
            case .daily: result[type.name] = .daily
            case .weekly: result[type.name] = .weekly
            }
        }
        return result
    }
}
