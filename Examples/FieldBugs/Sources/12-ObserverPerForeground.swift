import PairSimKit

// 12 · An observer query added again every time the app comes on screen.
// agencyenterprise/react-native-health#341 "Background Listener is firing multiple times": the
// listener was registered again on each render, so one new sample fired it many times.
// kingstinct/react-native-healthkit#365: a second, independent observer query for the same type
// doubled the deliveries. Each query fetches from the same saved anchor, so each new workout is
// taken in once per query.

/// Buggy: every return to the screen executes another observer query.
public final class ObserverPerForegroundBuggy: CompanionApp {
    override public func scenePhaseDidChange(to phase: AppScenePhase) {
        if phase == .active { startObservingWorkouts() }
    }
}

/// Fixed: CompanionApp executes its observer query once per launch.
public final class ObserverPerForegroundFixed: CompanionApp {}
