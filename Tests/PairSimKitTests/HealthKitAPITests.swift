import Foundation
import Testing
import TestSupport
@testable import PairSimCore
@testable import PairSimKit

/// HealthKit's API as Apple declares it (R: A13): written as HealthKit code is, run against the
/// platform through a scripted app.
@Suite("HealthKit as Apple declares it")
struct HealthKitAPITests {
    static let hr = HKQuantityType(.heartRate)
    static let steps = HKQuantityType(.stepCount)

    /// A phone whose app runs `body` in a user action and returns what it says.
    static func run(_ setup: (inout Phone) -> Void = { _ in }, _ body: @escaping @Sendable (HKHealthStore) async throws -> String) -> String {
        var phone = Phone({ ScriptedApp(log: ScriptedApp.Log(), perform: { app, _ in try await body(app.store) }) },
                          actions: [UserActionSpec("probe", "", "run the test's code")])
        setup(&phone)
        expect(phone.command("foreground").ok)
        let result = phone.command("probe")
        expect(result.ok, "\(result.reply)")
        return result.reply
    }

    /// Heart-rate samples at minute 1, 2, … with these values, from another app.
    static func heartRates(_ values: [Double]) -> (inout Phone) -> Void {
        { phone in
            for value in values {
                phone.advance(.minutes(1))
                phone.arrive(.heartRate, value)
            }
        }
    }

    @Test("NSPredicate: the date window, strictStartDate, UUIDs, NSCompoundPredicate and a block predicate of the app's own")  // R: A13
    func predicates() {
        let reply = Self.run(Self.heartRates([60, 70, 80, 90, 100])) { store in
            func values(_ predicate: NSPredicate?, sort: [NSSortDescriptor]? = nil, limit: Int = HKObjectQueryNoLimit) async throws -> [Double] {
                try await withCheckedThrowingContinuation { continuation in
                    store.execute(HKSampleQuery(sampleType: Self.hr, predicate: predicate, limit: limit, sortDescriptors: sort) { _, samples, error in
                        if let error { return continuation.resume(throwing: error) }
                        continuation.resume(returning: (samples ?? []).compactMap { ($0 as? HKQuantitySample)?.quantity.doubleValue(for: HKUnit(from: "count/min")) })
                    })
                }
            }
            let minute = 60.0
            let window = HKQuery.predicateForSamples(withStart: Date(timeIntervalSince1970: 2 * minute), end: Date(timeIntervalSince1970: 4 * minute))
            let strict = HKQuery.predicateForSamples(withStart: Date(timeIntervalSince1970: 2 * minute), end: Date(timeIntervalSince1970: 4 * minute),
                                                     options: .strictStartDate)
            let high = HKQuery.predicateForQuantitySamples(with: .greaterThanOrEqualTo, quantity: HKQuantity(unit: HKUnit(from: "count/min"), doubleValue: 80))
            let both = NSCompoundPredicate(andPredicateWithSubpredicates: [window, high])
            let either = NSCompoundPredicate(orPredicateWithSubpredicates: [strict, HKQuery.predicateForQuantitySamples(with: .equalTo, quantity: HKQuantity(unit: .count().unitDivided(by: .minute()), doubleValue: 100))])
            let odd = NSPredicate { object, _ in Int((object as? HKQuantitySample)?.quantity.doubleValue(for: HKUnit(from: "count/min")) ?? 0) % 20 != 0 }
            let newest = [NSSortDescriptor(key: HKSampleSortIdentifierEndDate, ascending: false)]
            return [
                try await values(nil), try await values(window), try await values(strict), try await values(both),
                try await values(either), try await values(odd), try await values(nil, sort: newest, limit: 2),
                try await values(odd, sort: newest, limit: 1),
            ].map { $0.map { String(Int($0)) }.joined(separator: ",") }.joined(separator: " | ")
        }
        // Overlapping [2 min, 4 min] takes the samples at 2, 3 and 4 min; strictly starting in [2, 4) takes 2 and 3.
        expectEqual(reply, "60,70,80,90,100 | 70,80,90 | 70,80 | 80,90 | 70,80,100 | 70,90 | 100,90 | 90")
    }

    @Test("HKStatisticsQuery and HKStatisticsCollectionQuery: sums split by day, discrete averages, minimum and maximum")  // R: A13
    func statistics() {
        let reply = Self.run({ phone in
            // Steps: 1000 at 1 h, 2000 at 25 h (the second day), 500 at 26 h.
            phone.advance(.hours(1)); phone.arrive(.stepCount, 1_000)
            phone.advance(.hours(24)); phone.arrive(.stepCount, 2_000)
            phone.advance(.hours(1)); phone.arrive(.stepCount, 500)
            phone.arrive(.heartRate, 60); phone.arrive(.heartRate, 90)
        }) { store in
            let day = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, Error>) in
                let query = HKStatisticsCollectionQuery(quantityType: Self.steps, quantitySamplePredicate: nil, options: .cumulativeSum,
                                                        anchorDate: Date(timeIntervalSince1970: 0), intervalComponents: DateComponents(day: 1))
                query.initialResultsHandler = { _, collection, error in
                    guard let collection else { return continuation.resume(throwing: error!) }
                    var days: [String] = []
                    collection.enumerateStatistics(from: Date(timeIntervalSince1970: 0), to: Date(timeIntervalSince1970: 2 * 86_400)) { statistics, _ in
                        days.append("\(Int(statistics.startDate.timeIntervalSince1970 / 86_400)):\(Int(statistics.sumQuantity()?.doubleValue(for: .count()) ?? 0))")
                    }
                    continuation.resume(returning: days.joined(separator: ","))
                }
                store.execute(query)
            }
            let heart = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, Error>) in
                store.execute(HKStatisticsQuery(quantityType: Self.hr, quantitySamplePredicate: nil, options: [.discreteAverage, .discreteMin, .discreteMax]) { _, statistics, error in
                    guard let statistics else { return continuation.resume(throwing: error!) }
                    let bpm = HKUnit.count().unitDivided(by: .minute())
                    continuation.resume(returning: [statistics.averageQuantity(), statistics.minimumQuantity(), statistics.maximumQuantity()]
                        .map { String(Int($0!.doubleValue(for: bpm))) }.joined(separator: "/"))
                })
            }
            let none = try await HKStatisticsQueryDescriptor(predicate: .quantitySample(type: HKQuantityType(.bodyMass)), options: .discreteAverage).result(for: store)
            return "\(day) \(heart) \(none == nil ? "nil" : "?")"
        }
        expectEqual(reply, "0:1000,1:2500 75/60/90 nil")
    }

    @Test("anchored queries: a page at a time with a limit, deletions included, the anchor archived with NSKeyedArchiver")  // R: A13
    func anchoredPages() {
        let reply = Self.run({ phone in
            for value in [60.0, 61, 62, 63, 64] { phone.advance(.seconds(1)); phone.arrive(.heartRate, value) }
        }) { store in
            var anchor: HKQueryAnchor?
            var pages: [String] = []
            repeat {
                let result = try await HKAnchoredObjectQueryDescriptor(predicates: [.quantitySample(type: Self.hr)], anchor: anchor, limit: 2).result(for: store)
                pages.append(result.addedSamples.map { String(Int($0.quantity.doubleValue(for: HKUnit(from: "count/min")))) }.joined(separator: ","))
                // Kept as HealthKit code keeps it.
                let data = try NSKeyedArchiver.archivedData(withRootObject: result.newAnchor, requiringSecureCoding: true)
                anchor = try NSKeyedUnarchiver.unarchivedObject(ofClass: HKQueryAnchor.self, from: data)
                expectEqual(anchor, result.newAnchor)
                if result.addedSamples.isEmpty { break }
            } while pages.count < 10
            return pages.joined(separator: " | ")
        }
        expectEqual(reply, "60,61 | 62,63 | 64 | ")
    }

    @Test("a save batch split across pages keeps every sample once")  // R: A13
    func pagesInsideOneSave() {
        var store = HealthStore()
        let samples = (0..<5).map { (i: Int) -> HealthSample in
            let at = EmulatedInstant.zero + EmulatedDuration.seconds(Int64(i))
            return HealthSample(uuid: UUID(), type: .heartRate, start: at, end: at, value: Double(60 + i), source: .watchApp)
        }
        _ = store.save(workouts: [], samples: samples)
        var anchor: Int64 = 0
        var seen: [Double] = []
        for _ in 0..<10 {
            let page = store.anchoredObjects(.sample(.heartRate), since: anchor, limit: 2)
            seen += page.samples.map(\.value)
            if page.samples.isEmpty { break }
            expect(page.samples.count <= 2)
            anchor = page.anchor
        }
        expectEqual(seen, [60, 61, 62, 63, 64])
        // A plain anchor from before keeps its meaning: everything after that save.
        expectEqual(store.anchoredObjects(.sample(.heartRate), since: 0).samples.count, 5)
        expect(store.anchoredObjects(.sample(.heartRate), since: store.anchor).samples.isEmpty)
    }

    @Test("HKUnit: HealthKit's strings, arithmetic and conversions", arguments: [
        ("count/min", 72.0, "count/s", 1.2), ("ms", 1_500, "s", 1.5), ("kg", 1, "lb", 2.2046226218), ("kcal", 1, "kJ", 4.184),
        ("degC", 100, "degF", 212), ("mL/(kg*min)", 42, "L/(kg*hr)", 2.52), ("%", 25, "count", 0.25), ("mi", 1, "km", 1.609344),
        ("mg/dL", 100, "g/L", 1),
    ])  // R: A13
    func units(from: String, value: Double, to: String, expected: Double) {
        let converted = HKQuantity(unit: HKUnit(from: from), doubleValue: value).doubleValue(for: HKUnit(from: to))
        expect(abs(converted - expected) < 1e-6 * max(1, abs(expected)), "\(value) \(from) = \(converted) \(to)")
        expectEqual(HKUnit.count().unitDivided(by: .minute()), HKUnit(from: "count/min"))
        expect(HKUnit.secondUnit(with: .milli).unitString == "ms" && HKUnit.literUnit(with: .milli).unitString == "mL")
        expect(!HKQuantity(unit: .count(), doubleValue: 1).is(compatibleWith: .second()))
    }

    @Test("types, errors and objects: non-failable types for every identifier, Apple's error codes, queries as set members")  // R: A13
    func typesAndErrors() {
        expectEqual(HKQuantityType(.oxygenSaturation).identifier, "HKQuantityTypeIdentifierOxygenSaturation")
        expect(HKQuantityType(.oxygenSaturation).core == nil && HKQuantityType(.heartRate).core != nil)
        expect(HKQuantityType(.stepCount).aggregationStyle == .cumulative && HKQuantityType(.heartRate).aggregationStyle != .cumulative)
        expect(HKError.Code.errorDatabaseInaccessible.rawValue == 6 && HKError.Code.errorNoData.rawValue == 11)
        let error: Error = HKError(.errorDatabaseInaccessible)
        expect((error as NSError).domain == HKErrorDomain && (error as NSError).code == 6)
        expectEqual(HKError(_nsError: error as NSError).code, .errorDatabaseInaccessible)
        let a = HKObserverQuery(sampleType: Self.hr, predicate: nil) { _, done, _ in done() }
        let b = HKObserverQuery(sampleType: Self.hr, predicate: nil) { _, done, _ in done() }
        expectEqual(Set<HKQuery>([a, b, a]).count, 2, "queries are equal only to themselves")
        expect("\(a)".contains("HKQuantityTypeIdentifierHeartRate"))
        expect(HKWorkoutActivityType.running.rawValue == 37 && HKWorkoutActivityType.other.rawValue == 3000)
        expectEqual(HKSource.default().bundleIdentifier, "com.pairsim.app")
    }

    @Test("a workout's activity name in PairSim's logs maps to its HKWorkoutActivityType and back")  // R: A13
    func activityNames() {
        for activity in HKWorkoutActivityType.allCases {
            expectEqual(HKWorkoutActivityType(coreName: activity.coreName), activity)
            expectEqual(HKWorkoutActivityType(coreName: String(describing: activity)), activity)
        }
        expectEqual(HKWorkoutActivityType(coreName: "hiit"), .highIntensityIntervalTraining)
        expectEqual(HKWorkoutActivityType(coreName: "strength"), .traditionalStrengthTraining)
        expectEqual(HKWorkoutActivityType(coreName: "running"), .running)
        expectEqual(HKWorkoutActivityType(coreName: "parkour"), .other)
    }

    @Test("observer queries honour their predicate; one query for several types hears which changed")  // R: A13
    func observerPredicates() {
        let log = ScriptedApp.Log()
        var phone = Phone({ ScriptedApp(log: log, onLaunch: { app, _ in
            let high = HKQuery.predicateForQuantitySamples(with: .greaterThanOrEqualTo, quantity: HKQuantity(unit: HKUnit(from: "count/min"), doubleValue: 100))
            app.store.execute(HKObserverQuery(sampleType: Self.hr, predicate: high) { _, done, _ in
                log.lines.append("high")
                done()
            })
            let descriptors = [HKQueryDescriptor(sampleType: Self.hr, predicate: nil), HKQueryDescriptor(sampleType: Self.steps, predicate: nil)]
            app.store.execute(HKObserverQuery(queryDescriptors: descriptors) { _, types, done, _ in
                log.lines.append("types " + (types ?? []).map(\.identifier).sorted().joined(separator: ","))
                done()
            })
        }) })
        expect(phone.command("foreground").ok)
        let started = log.lines
        expectEqual(started.sorted(), ["high", "types HKQuantityTypeIdentifierHeartRate", "types HKQuantityTypeIdentifierStepCount"], "each starts once")
        log.lines = []
        phone.advance(.minutes(1)); phone.arrive(.heartRate, 70)
        expectEqual(log.lines, ["types HKQuantityTypeIdentifierHeartRate"], "70 bpm is not for the ≥ 100 observer")
        log.lines = []
        phone.advance(.minutes(1)); phone.arrive(.heartRate, 120)
        expectEqual(log.lines.sorted(), ["high", "types HKQuantityTypeIdentifierHeartRate"])
        log.lines = []
        phone.advance(.minutes(1)); phone.arrive(.stepCount, 500)
        expectEqual(log.lines, ["types HKQuantityTypeIdentifierStepCount"])
        expect(phone.named("bgdelivery.missed").isEmpty && phone.named("observer.completion.skipped").isEmpty)
    }

    @Test("saving a type PairSim does not store fails with errorInvalidArgument and is reported")  // R: A13
    func unmodelledSave() {
        var phone = Phone({ ScriptedApp(log: ScriptedApp.Log(), perform: { app, _ in
            let sample = HKQuantitySample(type: HKQuantityType(.oxygenSaturation), quantity: HKQuantity(unit: .percent(), doubleValue: 97),
                                          start: Date(timeIntervalSince1970: 0), end: Date(timeIntervalSince1970: 0))
            do {
                try await app.store.save(sample)
                return "saved"
            } catch let error as HKError {
                return "\(error.code == .errorInvalidArgument)"
            }
        }) }, actions: [UserActionSpec("probe", "", "")])
        expect(phone.command("foreground").ok)
        expectEqual(phone.command("probe").reply, "true")
        expect(phone.named("app.misbehaved").contains { $0["kind"] == "unsupported" })
    }
}

/// WatchConnectivity payloads are property lists (R: F6): what a device refuses is refused, and a
/// date or data arrives as what was sent.
@Suite("WatchConnectivity payloads")
struct WCPayloadTests {
    @Test("NSNull and UUID are refused; dates and data cross and come back as Date and Data")  // R: F6
    func propertyListsOnly() {
        expectEqual(WCPayload.json(["a": NSNull()]), nil)
        expectEqual(WCPayload.json(["id": UUID()]), nil, "a UUID is not a property-list type: send its uuidString")
        expectEqual(WCPayload.json(["list": [1, NSNull()]]), nil)
        let date = Date(timeIntervalSince1970: 1_700_000_000.5), data = Data([0, 1, 2, 255])
        guard let json = WCPayload.json(["when": date, "bytes": data, "name": "run", "n": 3, "nested": ["when": date]]) else {
            Issue.record("a property-list payload was refused")
            return
        }
        let back = WCPayload.dictionary(json)
        expectEqual(back["when"] as? Date, date)
        expectEqual(back["bytes"] as? Data, data)
        expect(back["name"] as? String == "run" && back["n"] as? Int == 3)
        expect((back["nested"] as? [String: Any])?["when"] as? Date == date)
    }
}
