/// `transferCurrentComplicationUserInfo` and its daily budget (R: F4). Apple: with one of the app's
/// complications on the active watch face, the app may send 50 current-complication transfers a
/// day at high priority (`remainingComplicationUserInfoTransfers`); beyond them, or with no
/// complication on the face (`isComplicationEnabled` false), the data goes as ordinary user info.
extension PhonePlatform {
    /// What is left of today's budget (none without a complication on the face).
    mutating func complicationRemaining(now: EmulatedInstant) -> Int {
        let perDay = topology.watch.complicationOnActiveFace ? topology.watch.complicationTransfersPerDay : 0
        return complicationBudget.remaining(of: perDay, now: now, clock: time.clock)
    }

    mutating func announceComplicationBudget(now: EmulatedInstant) {
        let remaining = complicationRemaining(now: now)
        call(.wcComplication(enabled: topology.watch.complicationOnActiveFace, remaining: remaining, day: complicationBudget.day,
                             perDay: topology.watch.complicationOnActiveFace ? topology.watch.complicationTransfersPerDay : 0))
    }

    /// The app's `transferCurrentComplicationUserInfo` (`appID`), or `wc-complication` (nil).
    mutating func transferComplication(appID: Int?, _ payload: JSONObject, now: EmulatedInstant) -> [NodeAction] {
        if let refused = refuseTransfer(appID: appID, payload, file: nil, now: now) { return refused }
        let complication = complicationRemaining(now: now) > 0
        if complication { complicationBudget.take() }
        let transfer = WCTransfer(id: uuids.next(at: now).text, kind: .userinfo, payload: payload, file: nil, createdAt: now, appID: appID)
        let actions = withSession { $0.transfer(transfer, complication: complication, sync: &$1, now: now) }
        if appID != nil { announceComplicationBudget(now: now) }
        return actions
    }
}
