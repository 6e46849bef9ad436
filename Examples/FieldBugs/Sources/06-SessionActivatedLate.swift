import PairSimKit

// 06 · WCSession activated late.
// watch-connectivity/react-native-watch-connectivity#26: user info sent from the watch reached the
// phone only after the app was reloaded; the session was created and activated after the app's
// window — activating it early in the app delegate fixed it. #68: a watch message woke the
// iPhone app only once the delegate was set and the session activated in
// didFinishLaunchingWithOptions. Apple: activate the session early in the app's life, at launch.
// Here the watch's message launches the iPhone app in the background; an app that activates its
// session only on screen never hears it, and the watch's sendMessage fails.

/// Buggy: the session is activated when the app's screen becomes active.
public final class SessionActivatedLateBuggy: CompanionApp {
    override public func didFinishLaunching(_ options: LaunchOptions) {
        startObservingWorkouts()
    }

    override public func scenePhaseDidChange(to phase: AppScenePhase) {
        if phase == .active { activateSession() }
    }
}

/// Fixed: CompanionApp activates it in didFinishLaunching.
public final class SessionActivatedLateFixed: CompanionApp {}
