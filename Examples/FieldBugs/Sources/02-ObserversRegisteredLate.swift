import PairSimKit

// 02 · Observer queries set up after launch instead of while launching.
// kingstinct/react-native-healthkit#51 and #341: the observer queries and background delivery were
// set up from JavaScript once the app's UI had started, so when HealthKit launched a terminated
// app in the background for new data, no query was there to hear it; the fix registers them in
// application(_:didFinishLaunchingWithOptions:). tryVital/vital-ios#5 (review): observers started
// from an async Task miss HealthKit's requirement that they exist before launching ends.

/// Buggy: the observer is set up when the app's screen first becomes active.
public final class ObserversRegisteredLateBuggy: CompanionApp {
    var observing = false

    override public func didFinishLaunching(_ options: LaunchOptions) {
        activateSession()
    }

    override public func scenePhaseDidChange(to phase: AppScenePhase) {
        guard phase == .active, !observing else { return }
        observing = true
        startObservingWorkouts()
    }
}

/// Fixed: CompanionApp sets it up in didFinishLaunching, on every launch, background ones included.
public final class ObserversRegisteredLateFixed: CompanionApp {}
