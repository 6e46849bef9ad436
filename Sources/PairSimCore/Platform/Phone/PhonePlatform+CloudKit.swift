import Foundation

/// The CloudKit container and the app's synced records (SwiftData + CloudKit, R: S4, W3): records
/// wait in the container until the app's process runs, then import; the app's own changes leave
/// in export batches.
extension PhonePlatform {
    /// Record changes reach the CloudKit container; the app imports them only while it runs.
    mutating func receiveRecords(_ batch: RecordsBatch, now: EmulatedInstant) -> [NodeAction] {
        container.saved.removeAll { saved in batch.deleted.contains(saved.id) || batch.saved.contains { $0.id == saved.id } }
        container.saved += batch.saved
        for id in batch.deleted where !container.deleted.contains(id) { container.deleted.append(id) }
        let persist = NodeAction.persist(.containerAdd(batch))
        if app.isRunning { return [persist] + importFromContainer(now: now) }
        if app == .suspended || app == .notRunning, recordsSubscribed, let interval = config.app.silentPushInterval,
           lastSilentPushWake.map({ now - $0 >= interval }) ?? true {
            // CloudKit's silent push wakes (or launches) the app in the background to import (R: F2).
            lastSilentPushWake = now
            return [persist] + silentPushWake(now: now)
        }
        var fields = batch.summary
        fields.append("waiting", .int(Int64(container.saved.count + container.deleted.count)))
        let why = app == .forceQuit || config.app.silentPushInterval == nil || !recordsSubscribed ? "" : " (CloudKit's notifications are throttled)"
        fields.append("reason", .string("app \(app.rawValue): imports at next launch or foreground" + why))
        return [persist, event(.ckPending, now, fields)]
    }

    /// A CloudKit silent notification: iOS wakes a suspended app, or launches one that is not
    /// running, in the background; the container imports; with nothing else to do the app is
    /// suspended soon after (Apple, "Pushing background updates to your App": background
    /// notifications are low priority and throttled — "don't try to send more than two or three
    /// per hour").
    mutating func silentPushWake(now: EmulatedInstant) -> [NodeAction] {
        var actions: [NodeAction]
        if app == .notRunning {
            actions = launch(now: now, reason: "CloudKit notification", inBackground: true)
        } else {
            actions = setState(.background, reason: "CloudKit notification", now: now)
            actions += startBudget(config.app.wakeBudget, now: now)
            actions += importFromContainer(now: now)
        }
        return actions + backgroundWorkDone(now: now)
    }

    /// Imports everything waiting in the container (CKSyncEngine fetch) while the app runs; the
    /// app hears of the change (SwiftData's live queries).
    mutating func importFromContainer(now: EmulatedInstant) -> [NodeAction] {
        guard app.isRunning, !container.isEmpty else { return [] }
        let batch = container
        container = RecordsBatch()
        let (saved, saveOps) = records.save(batch.saved)
        let (removed, deleteOps) = records.delete(batch.deleted)
        var actions = ([.containerClear] + saveOps + deleteOps).map(NodeAction.persist)
        actions.append(event(.ckImport, now, batch.summary))
        counters.recordsSaved += saved.count
        actions += StoreEvents.records(saved: saved, deleted: removed, node: .phone, now: now)
        if !(saved.isEmpty && removed.isEmpty) { call(.recordsChanged(saved: saved, deleted: removed)) }
        return actions
    }

    /// The app saves records: stored, then exported to the watch in the next batch.
    mutating func saveAppRecords(_ made: [ExerciseRecord], now: EmulatedInstant) -> [NodeAction] {
        let (saved, ops) = records.save(made)
        counters.recordsSaved += saved.count
        return ops.map(NodeAction.persist) + StoreEvents.records(saved: saved, deleted: [], node: .phone, now: now)
            + exportLater(saved: saved, now: now)
    }

    /// The app deletes records: gone here, and on the watch after the next export.
    mutating func deleteAppRecords(_ ids: [UUID], now: EmulatedInstant) -> [NodeAction] {
        let (removed, ops) = records.delete(ids)
        return ops.map(NodeAction.persist) + StoreEvents.records(saved: [], deleted: removed, node: .phone, now: now)
            + exportLater(deleted: removed, now: now)
    }

    /// Queues record changes for the phone's CloudKit export to the watch.
    mutating func exportLater(saved: [ExerciseRecord] = [], deleted: [UUID] = [], now: EmulatedInstant) -> [NodeAction] {
        guard !(saved.isEmpty && deleted.isEmpty) else { return [] }
        if exporter.add(saved: saved, deleted: deleted, now: now) { return exportRecords(now: now) }
        if exportToken == nil, let at = exporter.nextExportAt { exportToken = timers.schedule(.export, at: at) }
        return []
    }

    mutating func exportRecords(now: EmulatedInstant) -> [NodeAction] {
        guard !exporter.pending.isEmpty else { return [] }
        guard sync.hasRoom(.cloudkit) else {
            exportToken = timers.schedule(.export, at: now + .seconds(5))
            return [sync.outboxFullEvent(.cloudkit, now: now)]
        }
        let batch = exporter.take()
        return [event(.ckExport, now, batch.summary)] + sync.send(.cloudkit, kind: .records, body: batch.body, summary: batch.summary, now: now)
    }
}
