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

    /// `WidgetCenter.reloadTimelines(ofKind:)` / `reloadAllTimelines()` (kind nil): on screen the
    /// reload happens and is not counted; off screen it counts against the day's budget
    /// (`app.widgetReloadsPerDay`), and past it waits for the next day's (R: F4).
    mutating func reloadWidgets(_ kind: String?, now: EmulatedInstant) -> [NodeAction] {
        let day = now.milliseconds / Self.dayMilliseconds
        if day != widgetDay {
            widgetDay = day
            widgetReloadsUsed = 0
        }
        let name = kind ?? "all"
        if app.isOnScreen { return [event(.widgetReloaded, now, ["kind": .string(name), "counted": false])] }
        guard widgetReloadsUsed < config.app.widgetReloadsPerDay else {
            if widgetReloadsWaiting.isEmpty { timers.schedule(.widgetBudget, at: .zero + .milliseconds((day + 1) * Self.dayMilliseconds)) }
            if !widgetReloadsWaiting.contains(kind ?? "") { widgetReloadsWaiting.append(kind ?? "") }
            return [event(.widgetThrottled, now, level: .warning, ["kind": .string(name), "reason": "the day's reload budget is spent; it reloads tomorrow"])]
        }
        widgetReloadsUsed += 1
        return [event(.widgetReloaded, now, ["kind": .string(name), "counted": true,
                                             "remaining": .int(Int64(config.app.widgetReloadsPerDay - widgetReloadsUsed))])]
    }

    /// A new day: the reloads that waited happen, counted against it.
    mutating func widgetBudgetRestored(now: EmulatedInstant) -> [NodeAction] {
        let waiting = widgetReloadsWaiting
        widgetReloadsWaiting = []
        return waiting.flatMap { reloadWidgets($0.isEmpty ? nil : $0, now: now) }
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
