import PairSimCore

/// Reads the `phone:` section of a topology (docs/TOPOLOGY.md#phone).
enum PhoneConfigLoader {
    static func parse(_ reader: YAMLReader) throws(ConfigError) -> PhoneConfig {
        let map = try reader.mapping(allowed: ["app", "backgroundDelivery", "healthkit", "authorization", "refresh", "clock"])
        var config = PhoneConfig()
        if let clock = map["clock"] { config.clock = try TopologyLoader.deviceClock(clock) }
        if let app = map["app"] {
            // `app: NAME` chooses the app; `app: { name: NAME, … }` also sets its knobs.
            if app.isMapping { config.app = try self.app(app) } else { config.app.name = try appName(try app.string(), app) }
        }
        if let delivery = map["backgroundDelivery"] { config.backgroundDelivery = try backgroundDelivery(delivery) }
        if let healthKit = map["healthkit"] {
            let fields = try healthKit.mapping(allowed: ["tombstoneRetention", "wakeWhileLocked"])
            if let value = fields["tombstoneRetention"] { config.healthKit.tombstoneRetention = try value.duration() }
            if let value = fields["wakeWhileLocked"] { config.healthKit.wakeWhileLocked = try value.bool() }
        }
        if let authorization = map["authorization"] {
            let fields = try authorization.mapping(allowed: ObjectType.all.flatMap { [$0.name, $0.shortName] })
            for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
                let type = ObjectType(name: key)!
                if try value.choice(["allow", "deny"]) == "deny" { config.healthKit.denied.insert(type) }
            }
        }
        if let refresh = map["refresh"] { config.refresh = try self.refresh(refresh) }
        return config
    }

    static func app(_ reader: YAMLReader) throws(ConfigError) -> AppConfig {
        let fields = try reader.mapping(allowed: ["name", "initialState", "registerObserversAtLaunch", "backgroundBudget", "wakeBudget", "handlerDuration",
                                                  "settings", "suspendAfterCompletion", "backgroundTaskTime", "refreshTaskDelay", "refreshTaskTime",
                                                  "processingTaskTime", "silentPushInterval", "widgetReloadsPerDay"])
        var app = AppConfig()
        if let value = fields["name"] { app.name = try appName(try value.string(), value) }
        if let value = fields["initialState"] { app.initialState = AppState(rawValue: try value.choice(["foreground", "notRunning"]))! }
        if let value = fields["registerObserversAtLaunch"] { app.registerObserversAtLaunch = try value.bool() }
        if let value = fields["backgroundBudget"] { app.backgroundBudget = try positive(value) }
        if let value = fields["wakeBudget"] { app.wakeBudget = try positive(value) }
        if let value = fields["suspendAfterCompletion"] {
            app.suspendAfterCompletion = (try? value.string()) == "off" ? nil : try value.duration()
        }
        if let value = fields["backgroundTaskTime"] { app.backgroundTaskTime = try positive(value) }
        if let value = fields["refreshTaskDelay"] { app.refreshTaskDelay = try value.duration() }
        if let value = fields["refreshTaskTime"] { app.refreshTaskTime = try positive(value) }
        if let value = fields["processingTaskTime"] { app.processingTaskTime = try positive(value) }
        if let value = fields["widgetReloadsPerDay"] { app.widgetReloadsPerDay = Int(try value.int(in: 0...10_000)) }
        if let value = fields["silentPushInterval"] {
            app.silentPushInterval = (try? value.string()) == "off" ? nil : try positive(value)
        }
        if let value = fields["handlerDuration"] { app.handlerDuration = try value.duration() }
        if let value = fields["settings"] { app.settings = try value.settings() }
        return app
    }

    /// An app name: letters, digits and dashes (the build's catalog is checked when a node starts).
    static func appName(_ name: String, _ reader: YAMLReader) throws(ConfigError) -> String {
        guard !name.isEmpty, name.count <= 64, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
            throw reader.error("an app name is letters, digits, - and _ (e.g. reference, delta-sync), got \"\(name.prefix(40))\"")
        }
        return name
    }

    static func backgroundDelivery(_ reader: YAMLReader) throws(ConfigError) -> BackgroundDeliveryConfig {
        let typeKeys = ObjectType.all.flatMap { [$0.name, $0.shortName] }
        let fields = try reader.mapping(allowed: typeKeys + ["retryInitial", "maxMisses"])
        var config = BackgroundDeliveryConfig()
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            switch key {
            case "retryInitial": config.retryInitial = try positive(value)
            case "maxMisses": config.maxMisses = Int(try value.int(in: 1...100))
            default:
                let type = ObjectType(name: key)!
                let choice = try value.choice(DeliveryFrequency.allCases.map(\.rawValue) + ["off"])
                config.frequencies[type] = DeliveryFrequency(rawValue: choice)
            }
        }
        return config
    }

    static func refresh(_ reader: YAMLReader) throws(ConfigError) -> RefreshConfig {
        let fields = try reader.mapping(allowed: ["throttle", "observerThrottle", "foregroundRule", "foregroundAfter", "cacheTTL", "queryCost", "tabMapping"])
        var refresh = RefreshConfig()
        if let value = fields["throttle"] { refresh.throttle = try value.duration() }
        if let value = fields["observerThrottle"] { refresh.observerThrottle = try value.duration() }
        if let value = fields["foregroundRule"] {
            refresh.foregroundRule = ForegroundRule(rawValue: try value.choice(ForegroundRule.allCases.map(\.rawValue)))!
        }
        if let value = fields["foregroundAfter"] { refresh.foregroundAfter = try value.duration() }
        if let value = fields["cacheTTL"] { refresh.cacheTTL = try value.duration() }
        if let value = fields["queryCost"] { refresh.queryCost = try value.duration() }
        if let value = fields["tabMapping"] { refresh.tabMapping = try value.bool() }
        return refresh
    }

    static func positive(_ reader: YAMLReader) throws(ConfigError) -> EmulatedDuration {
        let value = try reader.duration()
        guard value > .zero else { throw reader.error("must be above 0") }
        return value
    }
}
