/// Where a refresh request comes from (R: C1).
public enum RefreshSource: Hashable, Sendable, CustomStringConvertible {
    case foreground
    case observer(ObjectType)
    case backgroundDelivery
    case pullToRefresh(Tab)

    public var name: String {
        switch self {
        case .foreground: "foreground"
        case .observer: "observer"
        case .backgroundDelivery: "backgroundDelivery"
        case .pullToRefresh: "pullToRefresh"
        }
    }

    public var description: String {
        switch self {
        case .observer(let type): "observer(\(type.name))"
        case .pullToRefresh(let tab): "pullToRefresh(\(tab.rawValue))"
        default: name
        }
    }
}

/// The single entry for refresh requests (seed 001's `AppRefreshCoordinator`, R: C1–C3, C5, C7, C8):
/// a global throttle with `lastRefreshDate` starting at launch, and a per-type observer throttle.
public struct RefreshCoordinator: Hashable, Sendable {
    /// The coordinator's answer to a request.
    public enum Decision: Hashable, Sendable {
        case accepted
        /// Refused: `reason` and how long until a request would be accepted.
        case throttled(reason: String, remaining: EmulatedDuration)
    }

    public let config: RefreshConfig
    public internal(set) var lastRefreshDate: EmulatedInstant
    /// When each type's observer callback was last handled (R: C7).
    public internal(set) var observerHandledAt: [ObjectType: EmulatedInstant] = [:]

    public init(config: RefreshConfig, launchedAt: EmulatedInstant) {
        self.config = config
        lastRefreshDate = launchedAt
    }

    /// The app launched: its `.task` loads fresh data, so the first minute is throttled (R: C2).
    public mutating func launched(at now: EmulatedInstant) {
        lastRefreshDate = now
        observerHandledAt = [:]
    }

    /// `requestRefresh(source:)`: true if a refresh happens (the caller invalidates and signals).
    public mutating func requestRefresh(_ source: RefreshSource, now: EmulatedInstant) -> Decision {
        if case .observer(let type) = source {
            if let handled = observerHandledAt[type], now - handled < config.observerThrottle {
                return .throttled(reason: "\(type.name) observer handled \(now - handled) ago",
                                  remaining: config.observerThrottle - (now - handled))
            }
            observerHandledAt[type] = now
        }
        let since = now - lastRefreshDate
        if since < config.throttle {
            return .throttled(reason: "last refresh \(since) ago", remaining: config.throttle - since)
        }
        lastRefreshDate = now
        return .accepted
    }
}
