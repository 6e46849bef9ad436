/// Why an observer query's update handler ran (R: O2).
public enum ObserverTrigger: String, Hashable, Sendable {
    /// The query was just executed: HealthKit calls the handler once right away.
    case execute
    /// Data of the type changed while the app's process was running.
    case change
    /// A background-delivery wake for the type.
    case wake
}
