import CAppGuard
internal import PairSimCore

extension AppRuntime {
    /// Runs the app's code for the call `deliver` hands it (`handling`), or else drains the app's
    /// executor; a trap in it returns the signal instead of ending the process (see CAppGuard).
    /// The C callbacks capture nothing and find this runtime through their context: escaping
    /// closures with a box to carry them took three allocations a delivery, 11,760 of a simulated
    /// week's ~198,000 (a malloc uprobe over `pairsim-bench simulate`).
    func guarded(handling: Bool) -> Int32 {
        let context = Unmanaged.passUnretained(self).toOpaque()
        return withExtendedLifetime(self) {
            handling ? pairsim_run_guarded({ AppRuntime.from($0).handleDelivering() }, context)
                     : pairsim_run_guarded({ AppRuntime.from($0).executor.drain() }, context)
        }
    }

    private static func from(_ context: UnsafeMutableRawPointer?) -> AppRuntime {
        Unmanaged<AppRuntime>.fromOpaque(context!).takeUnretainedValue()
    }

    /// Takes the call `deliver` set out (a delivery the app's code makes within it sets its own).
    private func handleDelivering() {
        guard let call = delivering else { return }
        delivering = nil
        handle(call)
    }
}

extension AppCall {
    /// What the app was doing, for `app.crashed`.
    var kind: String {
        switch self {
        case .launch: "launch"
        case .scenePhase(let phase): "scene phase \(phase.rawValue)"
        case .observerUpdate: "observer update handler"
        case .queryResult: "query results handler"
        case .done: "completion handler"
        case .timer: "its clock's timer"
        case .userAction(_, let command): "user action \(command.verb)"
        case .recordsChanged: "records change handler"
        case .wcActivated: "WCSession activation delegate"
        case .wcReachability: "WCSession reachability delegate"
        case .wcComplication: "WCSession complication budget"
        case .wcReceived(let kind, _, _, _, _): "WCSession \(kind.rawValue) delegate"
        case .wcReply: "WCSession reply handler"
        case .wcFailed: "WCSession error handler"
        case .wcTransferFinished: "WCSession transfer delegate"
        case .workoutSessionChanged: "HKWorkoutSession state delegate"
        case .workoutSessionFailed: "HKWorkoutSession failure delegate"
        case .workoutCollected: "HKLiveWorkoutBuilder collection delegate"
        case .workoutFinished: "finishWorkout completion handler"
        case .workoutRecoveryNeeded: "handleActiveWorkoutRecovery"
        case .workoutRecovered: "recoverActiveWorkoutSession completion handler"
        case .backgroundTasks: "handle(_:) of background tasks"
        case .backgroundTimeExpiring: "background task expiration handler"
        case .bgTaskLaunch: "BGTask launch handler"
        case .bgTaskExpiring: "BGTask expiration handler"
        case .timeChanged: "time change notification"
        case .terminated: "termination"
        }
    }
}
