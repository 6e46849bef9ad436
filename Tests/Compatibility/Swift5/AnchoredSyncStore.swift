// AnchoredSyncStore.swift
// Language mode: Swift 5 (results/update handlers capture `self`, as in
// Apple's HKAnchoredObjectQuery documentation). Platforms: iOS 17 / watchOS 10.

import Foundation
import PairSimKit

final class AnchoredSyncStore {
    private let healthStore = HKHealthStore()
    private let defaults = UserDefaults.standard
    private let anchorKey = "AnchoredSyncStore.heartRateAnchor"
    private var query: HKAnchoredObjectQuery?
    private let lock = NSLock()

    /// Local mirror of the samples we have synced, keyed by HealthKit UUID.
    private(set) var samplesByID: [UUID: HKQuantitySample] = [:]
    var onChange: ((_ added: Int, _ deleted: Int) -> Void)?

    // MARK: - Anchor persistence

    private var anchor: HKQueryAnchor? {
        get {
            guard let data = defaults.data(forKey: anchorKey) else { return nil }
            do {
                return try NSKeyedUnarchiver.unarchivedObject(ofClass: HKQueryAnchor.self, from: data)
            } catch {
                print("Unable to unarchive the anchor: \(error)")
                return nil
            }
        }
        set {
            guard let newValue = newValue else {
                defaults.removeObject(forKey: anchorKey)
                return
            }
            do {
                let data = try NSKeyedArchiver.archivedData(withRootObject: newValue, requiringSecureCoding: true)
                defaults.set(data, forKey: anchorKey)
            } catch {
                print("Unable to archive the anchor: \(error)")
            }
        }
    }

    // MARK: - Query

    func startSync() {
        let heartRateType = HKQuantityType(.heartRate)
        let thirtyDaysAgo = Calendar.current.date(byAdding: .day, value: -30, to: Date())
        let predicate = HKQuery.predicateForSamples(withStart: thirtyDaysAgo, end: nil, options: [])

        let query = HKAnchoredObjectQuery(type: heartRateType,
                                          predicate: predicate,
                                          anchor: anchor,
                                          limit: HKObjectQueryNoLimit) { query, samplesOrNil, deletedObjectsOrNil, newAnchor, errorOrNil in
            guard let samples = samplesOrNil, let deletedObjects = deletedObjectsOrNil else {
                print("*** An error occurred during the initial query: \(errorOrNil?.localizedDescription ?? "unknown") ***")
                return
            }
            self.apply(added: samples, deleted: deletedObjects, newAnchor: newAnchor)
        }

        // Setting the update handler turns this into a long-running query.
        query.updateHandler = { query, samplesOrNil, deletedObjectsOrNil, newAnchor, errorOrNil in
            if let error = errorOrNil {
                print("*** An error occurred during an update: \(error.localizedDescription) ***")
                return
            }
            self.apply(added: samplesOrNil ?? [], deleted: deletedObjectsOrNil ?? [], newAnchor: newAnchor)
        }

        self.query = query
        healthStore.execute(query)
    }

    func stopSync() {
        if let query = query {
            healthStore.stop(query)
        }
        query = nil
    }

    func resetAnchor() {
        stopSync()
        anchor = nil
        samplesByID.removeAll()
    }

    // MARK: - Processing

    private func apply(added: [HKSample], deleted: [HKDeletedObject], newAnchor: HKQueryAnchor?) {
        lock.lock()
        for case let sample as HKQuantitySample in added {
            samplesByID[sample.uuid] = sample
        }
        for deletedObject in deleted {
            samplesByID.removeValue(forKey: deletedObject.uuid)
            if let metadata = deletedObject.metadata {
                print("Deleted \(deletedObject.uuid) with metadata \(metadata)")
            }
        }
        lock.unlock()

        anchor = newAnchor
        onChange?(added.count, deleted.count)
    }
}
