import Foundation
import Synchronization

/// `TimeZone.current` (and `Calendar.current`, new `DateFormatter`s) answer with the zone of the
/// device whose app is running (R: F5). Foundation keeps one zone per process, so the first
/// delivery sets it and a delivery on a device in another zone switches it: `TZ` for the system
/// zone, `NSTimeZone.default` for what formatters and calendars take. A process that hosts one app
/// (a node) switches only when the user changes the zone; `simulate`, which runs both devices'
/// apps on one thread, switches between deliveries when the two zones differ. Never the host
/// machine's zone: a run reads the same wherever it runs.
enum DeviceTimeZone {
    private static let applied = Mutex<String?>(nil)
    /// Counts the switches: a runtime that saw none since its last delivery skips the lock (a lock
    /// per delivery cost ~2 % of `scripts/bench.sh simulate`).
    static let switches = Atomic<Int>(0)

    /// Makes `identifier` the process's zone; returns the switch count it holds under.
    static func use(_ identifier: String) -> Int {
        applied.withLock { current in
            guard current != identifier else { return switches.load(ordering: .relaxed) }
            setenv("TZ", identifier, 1)
            NSTimeZone.resetSystemTimeZone()
            // A process's first zone, UTC (nearly every run's): TZ is enough, and the zone's rules are
            // loaded only if the app asks (loading them here cost each simulate ~50 ms and 3 MB).
            if current != nil || identifier != "UTC", let zone = TimeZone(identifier: identifier) {
                NSTimeZone.default = zone
                _ = TimeZone.current // read once here, under the lock, so no other thread reads TZ half-set
            }
            current = identifier
            return switches.add(1, ordering: .relaxed).newValue
        }
    }
}
