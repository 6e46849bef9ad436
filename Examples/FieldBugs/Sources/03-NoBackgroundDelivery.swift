import PairSimKit

// 03 · An observer query without background delivery.
// darrylcauldwell/TetraTrack#155: the iPhone app had no HKObserverQuery with enableBackgroundDelivery
// (nor the entitlement), so it heard nothing from HealthKit once it left the screen. The query
// alone runs only while the app runs; a suspended app is not woken for it.

/// Buggy: the observer query, but background delivery never enabled.
public final class NoBackgroundDeliveryBuggy: CompanionApp {
    override public func enableBackgroundDelivery() {}
}

/// Fixed: CompanionApp enables it for workouts (immediate).
public final class NoBackgroundDeliveryFixed: CompanionApp {}
