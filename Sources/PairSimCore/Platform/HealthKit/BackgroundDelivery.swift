/// HealthKit's side of background delivery for one app (R: O4, O5, O6): which types are enabled at
/// which frequency, when the next wake may come, and what happens when the app misses its
/// completion handler (exponential backoff, then delivery stops after `maxMisses`).
///
/// Pure bookkeeping: the phone model owns the timers and calls back when they fire.
public struct BackgroundDelivery: Hashable, Sendable {
    /// One type's delivery state.
    public struct TypeState: Hashable, Sendable {
        public var frequency: DeliveryFrequency
        public var enabled = false
        /// Stopped after too many consecutive misses, until the next launch.
        public var stopped = false
        /// Data changed since the last delivered wake.
        public var pending = false
        /// A wake was delivered and its completion is awaited.
        public var awaitingCompletion = false
        public var lastWakeAt: EmulatedInstant?
        public var consecutiveMisses = 0
        /// When the next wake is scheduled (nil: none).
        public var wakeAt: EmulatedInstant?
    }

    public let config: BackgroundDeliveryConfig
    public internal(set) var types: [ObjectType: TypeState] = [:]

    public init(config: BackgroundDeliveryConfig) {
        self.config = config
    }

    public func state(_ type: ObjectType) -> TypeState? { types[type] }

    /// The frequency iOS applies when an app asks for `asked`: step count is capped at hourly.
    public static func applied(_ type: ObjectType, asked: DeliveryFrequency) -> DeliveryFrequency {
        type == .sample(.stepCount) && asked == .immediate ? .hourly : asked
    }

    /// `enableBackgroundDelivery(for:frequency:)`: (re-)enables the type, clears a stop and the
    /// misses. Returns the frequency applied.
    public mutating func enable(_ type: ObjectType, asked: DeliveryFrequency) -> DeliveryFrequency {
        let applied = Self.applied(type, asked: asked)
        var state = types[type] ?? TypeState(frequency: applied)
        state.frequency = applied
        state.enabled = true
        state.stopped = false
        state.consecutiveMisses = 0
        types[type] = state
        return applied
    }

    /// `disableBackgroundDelivery(for:)`: no more wakes for the type.
    public mutating func disable(_ type: ObjectType) {
        guard var state = types[type] else { return }
        state.enabled = false
        state.wakeAt = nil
        state.awaitingCompletion = false
        types[type] = state
    }

    /// A force quit: HealthKit stops delivering until the user launches the app again (R: O6).
    public mutating func disableAll() {
        for type in types.keys.sorted() {
            types[type]!.enabled = false
            types[type]!.wakeAt = nil
            types[type]!.awaitingCompletion = false
        }
    }

    /// Data of `type` changed while the app was not running. Returns when to wake the app, if a
    /// wake is not already scheduled (frequency is a ceiling: at most one wake per period).
    public mutating func dataChanged(_ type: ObjectType, now: EmulatedInstant) -> EmulatedInstant? {
        guard var state = types[type], state.enabled, !state.stopped else { return nil }
        state.pending = true
        defer { types[type] = state }
        guard state.wakeAt == nil, !state.awaitingCompletion else { return nil }
        let earliest = state.lastWakeAt.map { $0 + state.frequency.period } ?? now
        state.wakeAt = max(now, earliest)
        return state.wakeAt
    }

    /// A due wake cannot be delivered yet (device locked, strict mode): forget its time, keep the
    /// change pending, so the next `dataChanged` schedules it again.
    public mutating func deferWake(_ type: ObjectType) {
        types[type]?.wakeAt = nil
    }

    /// The scheduled wake for `type` is due: true if it should be delivered now.
    public mutating func takeWake(_ type: ObjectType, now: EmulatedInstant) -> Bool {
        guard var state = types[type], state.wakeAt != nil, state.wakeAt! <= now else { return false }
        state.wakeAt = nil
        defer { types[type] = state }
        guard state.enabled, !state.stopped, state.pending else { return false }
        state.pending = false
        state.awaitingCompletion = true
        state.lastWakeAt = now
        return true
    }

    /// The app called the completion handler. Returns a next wake if data changed meanwhile.
    public mutating func completed(_ type: ObjectType, now: EmulatedInstant) -> EmulatedInstant? {
        guard var state = types[type], state.awaitingCompletion else { return nil }
        state.awaitingCompletion = false
        state.consecutiveMisses = 0
        types[type] = state
        return state.pending ? dataChanged(type, now: now) : nil
    }

    /// What a missed completion led to.
    public enum MissOutcome: Hashable, Sendable {
        /// HealthKit will try again at `retryAt` (backoff `delay`).
        case backoff(strike: Int, delay: EmulatedDuration, retryAt: EmulatedInstant)
        /// Too many misses: delivery for the type stopped until the next launch.
        case stopped(strike: Int)
    }

    /// The app's budget ran out without a completion for the delivered wake.
    public mutating func missed(_ type: ObjectType, now: EmulatedInstant) -> MissOutcome? {
        guard var state = types[type], state.awaitingCompletion else { return nil }
        state.awaitingCompletion = false
        state.consecutiveMisses += 1
        defer { types[type] = state }
        if state.consecutiveMisses >= config.maxMisses {
            state.stopped = true
            state.wakeAt = nil
            return .stopped(strike: state.consecutiveMisses)
        }
        let delay = config.retryInitial * Int64(1 << min(state.consecutiveMisses - 1, 20))
        state.pending = true // the undelivered change is retried
        state.wakeAt = now + delay
        return .backoff(strike: state.consecutiveMisses, delay: delay, retryAt: now + delay)
    }

    /// Types whose delivered wake still awaits a completion.
    public var awaiting: [ObjectType] { ObjectType.all.filter { types[$0]?.awaitingCompletion == true } }

}
