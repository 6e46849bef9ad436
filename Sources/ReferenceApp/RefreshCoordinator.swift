import PairSimKit

/// Where a refresh request comes from (R: C1).
enum RefreshSource: Hashable, Sendable {
    case foreground
    case observer(HKSampleType)
    case backgroundDelivery
    case pullToRefresh(Tab)

    var name: String {
        switch self {
        case .foreground: "foreground"
        case .observer: "observer"
        case .backgroundDelivery: "backgroundDelivery"
        case .pullToRefresh: "pullToRefresh"
        }
    }
}

/// The single entry for refresh requests (seed 001's `AppRefreshCoordinator`, R: C1–C3, C5, C7,
/// C8): a global throttle with `lastRefreshDate` starting at launch, and a per-type observer throttle.
struct RefreshCoordinator {
    /// The coordinator's answer to a request.
    enum Decision: Equatable {
        case accepted
        /// Refused: `reason` and how long until a request would be accepted.
        case throttled(reason: String, remaining: Duration)
    }

    let throttle: Duration
    let observerThrottle: Duration
    private(set) var lastRefreshDate: AppClock.Instant
    /// When each type's observer callback was last handled (R: C7).
    private(set) var observerHandledAt: [String: AppClock.Instant] = [:]

    init(throttle: Duration, observerThrottle: Duration, launchedAt: AppClock.Instant) {
        self.throttle = throttle
        self.observerThrottle = observerThrottle
        lastRefreshDate = launchedAt
    }

    /// `requestRefresh(source:)`: `.accepted` if a refresh happens (the caller invalidates and signals).
    mutating func requestRefresh(_ source: RefreshSource, now: AppClock.Instant) -> Decision {
        if case .observer(let type) = source {
            if let handled = observerHandledAt[type.identifier], handled.duration(to: now) < observerThrottle {
                let since = handled.duration(to: now)
                return .throttled(reason: "\(type.name) observer handled \(AppTime.text(since)) ago", remaining: observerThrottle - since)
            }
            observerHandledAt[type.identifier] = now
        }
        let since = lastRefreshDate.duration(to: now)
        if since < throttle {
            return .throttled(reason: "last refresh \(AppTime.text(since)) ago", remaining: throttle - since)
        }
        lastRefreshDate = now
        return .accepted
    }
}
