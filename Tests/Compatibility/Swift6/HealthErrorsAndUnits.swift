// HealthErrorsAndUnits.swift
// Language mode: Swift 6 (completion closures capture only Sendable values,
// never `self`).
// Platforms: iOS 17 / watchOS 10.

import Foundation
import PairSimKit

final class HealthErrorsAndUnits {
    let healthStore = HKHealthStore()

    // MARK: - Errors

    func describe(_ error: Error) -> String {
        if let hkError = error as? HKError {
            switch hkError.code {
            case .errorAuthorizationDenied: return "Not allowed to save this data."
            case .errorDatabaseInaccessible: return "Health data is locked; unlock the device."
            case .errorNoData: return "No data available."
            case .errorHealthDataUnavailable: return "Health data is unavailable on this device."
            default: return "HealthKit error \(hkError.code.rawValue): \(hkError.localizedDescription)"
            }
        }
        let nsError = error as NSError
        if nsError.domain == HKErrorDomain && nsError.code == HKError.Code.errorInvalidArgument.rawValue {
            return "Invalid argument: \(nsError.localizedDescription)"
        }
        return String(describing: error)
    }

    // MARK: - Authorization status

    func logAuthorization() {
        let hrvType = HKQuantityType(.heartRateVariabilitySDNN)
        switch healthStore.authorizationStatus(for: hrvType) {
        case .notDetermined: print("HRV sharing: not determined")
        case .sharingDenied: print("HRV sharing: denied")
        case .sharingAuthorized: print("HRV sharing: authorized")
        @unknown default: print("HRV sharing: unknown")
        }

        let share: Set<HKSampleType> = [hrvType]
        let read: Set<HKObjectType> = [hrvType, HKQuantityType(.heartRate)]
        healthStore.getRequestStatusForAuthorization(toShare: share, read: read) { status, error in
            switch status {
            case .shouldRequest: print("Should request authorization")
            case .unnecessary: print("Already requested")
            case .unknown: print("Unknown request status: \(String(describing: error))")
            @unknown default: break
            }
        }

        healthStore.preferredUnits(for: [HKQuantityType(.bodyMass), HKQuantityType(.height)]) { units, error in
            for (type, unit) in units {
                print("\(type.identifier) preferred unit: \(unit.unitString)")
            }
        }

        print("Earliest permitted sample date: \(healthStore.earliestPermittedSampleDate())")
    }

    // MARK: - Units

    func unitExamples() {
        let bpm = HKUnit.count().unitDivided(by: .minute())
        let milliseconds = HKUnit(from: "ms")
        let percent = HKUnit.percent()
        print("bpm = \(bpm.unitString), ms == millisecond: \(milliseconds == HKUnit.secondUnit(with: .milli))")

        let hrv = HKQuantity(unit: milliseconds, doubleValue: 48)
        print("HRV in seconds: \(hrv.doubleValue(for: .second())), compatible with bpm: \(hrv.is(compatibleWith: bpm))")

        let energy = HKQuantity(unit: .kilocalorie(), doubleValue: 250)
        print("Energy: \(energy), in kJ: \(energy.doubleValue(for: .jouleUnit(with: .kilo)))")

        let saturation = HKQuantity(unit: percent, doubleValue: 0.97)
        print("SpO2 \(saturation.doubleValue(for: percent) * 100)% compatible: \(HKQuantityType(.oxygenSaturation).is(compatibleWith: percent))")
    }

    // MARK: - Save / delete

    func saveAndDeleteHRV() async {
        let now = Date()
        let sample = HKQuantitySample(type: HKQuantityType(.heartRateVariabilitySDNN),
                                      quantity: HKQuantity(unit: HKUnit(from: "ms"), doubleValue: 52),
                                      start: now, end: now,
                                      metadata: [HKMetadataKeyWasUserEntered: true])
        do {
            try await healthStore.save(sample)
        } catch let error as HKError where error.code == .errorAuthorizationDenied {
            print("Denied: \(error)")
            return
        } catch {
            print("Save failed: \(describe(error))")
            return
        }

        let sampleID = sample.uuid
        healthStore.delete(sample) { success, error in
            print("Deleted \(sampleID): \(success) \(String(describing: error))")
        }
    }

    // MARK: - Queries as Set members and dictionary keys

    func trackQueries() {
        let stepQuery = HKSampleQuery(sampleType: HKQuantityType(.stepCount), predicate: nil,
                                      limit: 1, sortDescriptors: nil) { _, _, _ in }
        let observer = HKObserverQuery(sampleType: HKQuantityType(.heartRate), predicate: nil) { _, done, _ in done() }

        var running: Set<HKQuery> = [stepQuery, observer]
        var labels: [HKQuery: String] = [stepQuery: "steps", observer: "heart-rate observer"]
        labels[observer, default: ""] += " (long-running)"
        running.remove(stepQuery)

        for query in running {
            print("Running: \(labels[query] ?? "?") -> \(String(describing: query)) \(query)")
        }
        print("Contains step query: \(running.contains(stepQuery)), total labels: \(labels.count)")
    }
}
