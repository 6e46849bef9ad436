import PairSimKit

// 05 · The anchor lives only in memory.
// predictive-technology-laboratory/sensus#978: the stored query anchor was reset to 0 when the probe
// was created again, so every re-creation fetched all samples again — duplicates. kvs-coder/
// HealthKitReporter#24: an anchor stays in memory unless the app itself saves it. When iOS ends
// a background app's process, an in-memory anchor goes with it; the next launch fetches every
// workout again and announces the old ones as new.

/// Buggy: the anchor is a stored property.
public final class AnchorInMemoryBuggy: CompanionApp {
    var inMemoryAnchor: HKQueryAnchor?

    override public var anchor: HKQueryAnchor? {
        get { inMemoryAnchor }
        set { inMemoryAnchor = newValue }
    }
}

/// Fixed: CompanionApp archives it in UserDefaults.
public final class AnchorInMemoryFixed: CompanionApp {}
