import PairSimKit

// 07 · A message handler that does not always reply.
// brightdigit/SundialKit#84: a receiver that did not answer every message sent with a reply handler
// left the sender waiting until WatchConnectivity timed the message out (WCError 7012,
// messageReplyTimedOut); the fix always answers. watch-connectivity/
// react-native-watch-connectivity#47 shows the error as users met it ("Message reply took too long").

/// Buggy: replies only to messages it has something to say about.
public final class ReplyNeverSentBuggy: CompanionApp {
    override public func session(_ session: WCSession, didReceiveMessage message: [String: Any], replyHandler: @escaping ([String: Any]) -> Void) {
        received(message, via: "message")
        guard let id = message["workoutID"] as? String else { return }
        replyHandler(["workoutID": id, "ok": true])
    }
}

/// Fixed: CompanionApp answers every message that wants a reply.
public final class ReplyNeverSentFixed: CompanionApp {}
