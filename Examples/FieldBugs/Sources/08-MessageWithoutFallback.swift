import PairSimKit

// 08 · A workout's UUID sent with sendMessage only.
// nickromano/WatchSync#1: reachability drops often in practice, so delivery needs transferUserInfo
// whenever the counterpart is not reachable. watch-connectivity/react-native-watch-connectivity#127:
// messages were lost whenever the session was not reachable; the answer was the queued user-info
// API. Automattic/pocket-casts-ios#3968 adds the fallback to transferUserInfo when sendMessage fails.

/// Buggy: a live message or nothing — the error handler only logs.
public final class MessageWithoutFallbackBuggy: WatchWorkoutApp {
    override public func send(_ message: [String: Any]) {
        WCSession.default.sendMessage(message, replyHandler: nil) { error in
            print("could not send the workout: \(error.localizedDescription)")
        }
    }
}

/// Fixed: WatchWorkoutApp falls back to transferUserInfo.
public final class MessageWithoutFallbackFixed: WatchWorkoutApp {}
