/// `transferCurrentComplicationUserInfo` and its daily budget (R: F4). Apple: with one of the app's
/// complications on the active watch face, the app may send 50 current-complication transfers a
/// day at high priority (`remainingComplicationUserInfoTransfers`); beyond them, or with no
/// complication on the face (`isComplicationEnabled` false), the data goes as ordinary user info.
extension PhonePlatform {
    static let dayMilliseconds: Int64 = 86_400_000

    /// What is left of today's budget (a new emulated day restores it).
    mutating func complicationRemaining(now: EmulatedInstant) -> Int {
        let day = now.milliseconds / Self.dayMilliseconds
        if day != complicationDay {
            complicationDay = day
            complicationTransfersUsed = 0
        }
        guard topology.watch.complicationOnActiveFace else { return 0 }
        return max(0, topology.watch.complicationTransfersPerDay - complicationTransfersUsed)
    }

    mutating func announceComplicationBudget(now: EmulatedInstant) {
        let remaining = complicationRemaining(now: now)
        call(.wcComplication(enabled: topology.watch.complicationOnActiveFace, remaining: remaining, day: complicationDay,
                             perDay: topology.watch.complicationOnActiveFace ? topology.watch.complicationTransfersPerDay : 0))
    }

    /// The app's `transferCurrentComplicationUserInfo` (`appID`), or `wc-complication` (nil).
    mutating func transferComplication(appID: Int?, _ payload: JSONObject, now: EmulatedInstant) -> [NodeAction] {
        guard wc.activated else {
            if let appID { call(.wcTransferFinished(id: appID, error: WCErrorCode.sessionNotActivated.rawValue)) }
            return [event(.wcRefused, now, level: .warning, ["kind": "userinfo", "code": "sessionNotActivated"])]
        }
        if let problem = WCSessionCore.payloadProblem(payload, wire: topology.wire) {
            if let appID { call(.wcTransferFinished(id: appID, error: WCErrorCode.payloadTooLarge.rawValue)) }
            return [refusedPayload("userinfo", problem, now: now)]
        }
        let complication = complicationRemaining(now: now) > 0
        if complication { complicationTransfersUsed += 1 }
        let transfer = WCTransfer(id: uuids.next(at: now).text, kind: .userinfo, payload: payload, file: nil, createdAt: now, appID: appID)
        let actions = withSession { $0.transfer(transfer, complication: complication, sync: &$1, now: now) }
        if appID != nil { announceComplicationBudget(now: now) }
        return actions
    }
}
