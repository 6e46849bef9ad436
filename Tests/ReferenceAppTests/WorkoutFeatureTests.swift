import Foundation
import Testing
import TestSupport
@testable import PairSimCore
@testable import PairSimKit
@testable import ReferenceApp

@Suite("Workouts: downsampling, dedup, calories, notification")
struct WorkoutFeatureTests {
    // MARK: Downsampling (R: D2)

    @Test("bucket means are exact and values outside 20–300 bpm are dropped")  // R: D2
    func bucketMeans() throws {
        let times: [Int64] = [0, 5_000, 9_999, 10_000, 15_000, 25_000, 26_000]
        let values: [Double] = [100, 110, 400, 120, 130, 10, 140]
        let summary = try #require(HeartRateDetail.summarize(times: times, values: values, start: 0, end: 30_000))
        expectEqual(summary.offsets, [0, 10_000, 20_000])
        expectEqual(summary.values, [105, 125, 140])
        expectEqual(summary.sampleCount, 5)
        expect(summary.maximum == 140 && summary.minimum == 100)
        expectEqual(summary.average, 120)
    }

    @Test("samples outside the workout's range are ignored; nothing left means the empty state")  // R: D2, D3
    func rangeAndEmpty() {
        expectEqual(HeartRateDetail.summarize(times: [-1, 50_000], values: [100, 100], start: 0, end: 40_000), nil)
        expectEqual(HeartRateDetail.summarize(times: [], values: [], start: 0, end: 1_000), nil)
    }

    // R: D2
    @Test("exactly 180 points per 30 minutes, samples at both ends included, for a 30-minute and a 3-hour session",
          arguments: [1_800, 10_800])
    func pointBudget(seconds: Int) throws {
        let times = (0...seconds).map { Int64($0) * 1_000 } // one sample a second, the one at `end` too
        let values = times.map { 100 + Double($0 % 7_000) / 100 }
        let summary = try #require(HeartRateDetail.summarize(times: times, values: values, start: 0, end: Int64(seconds) * 1_000))
        expectEqual(summary.values.count, 180 * (seconds / 1_800))
        expectEqual(summary.sampleCount, seconds + 1, "the sample at the end is kept, in the last bucket")
        expectEqual(summary.offsets.last, Int64(seconds) * 1_000 - 10_000)
    }

    @Test("a range far wider than its samples neither allocates it nor changes the result")  // R: D2, S7
    func hugeRange() throws {
        let far: Int64 = 1 << 50
        let summary = try #require(HeartRateDetail.summarize(times: [0, far], values: [100, 120], start: 0, end: far))
        expectEqual(summary.values, [100, 120])
        let lastBucket: Int64 = far / 10_000 * 10_000
        expectEqual(summary.offsets, [0, lastBucket])
        let wide: Int64 = 1 << 40
        let day = try #require(HeartRateDetail.summarize(times: [86_400_000, 86_405_000], values: [90, 110], start: 0, end: wide))
        expect(day.values == [100] && day.offsets == [86_400_000])
    }

    // MARK: Dedup (R: D1)

    static func workout(_ minute: Int64, minutes: Int64 = 30, source: ObjectSource = .watchApp, energy: Double? = 300) -> Workout {
        Workout(uuid: UUID(), activity: "running", start: .zero + .minutes(minute), end: .zero + .minutes(minute + minutes),
                activeDuration: .minutes(minutes), activeEnergy: energy, source: source)
    }

    static func record(_ minute: Int64, minutes: Int64 = 30, linkedTo: UUID?, calories: Double? = 270) -> ExerciseRecord {
        ExerciseRecord(id: UUID(), exercise: "Running", start: .zero + .minutes(minute), duration: .minutes(minutes),
                       calories: calories, healthKitWorkoutID: linkedTo, source: .watchApp)
    }

    @Test("records link by UUID; several records of one session make one row")  // R: D1
    func linkByUUID() {
        let workout = Self.workout(0)
        let items = Self.list(workouts: [workout], records: [Self.record(0, linkedTo: workout.uuid), Self.record(10, linkedTo: workout.uuid)])
        expectEqual(items.count, 1)
        expect(items[0].match == .uuid && items[0].records.count == 2)
    }

    @Test("a record without a UUID falls back to time overlap")  // R: D1
    func overlapFallback() {
        let workout = Self.workout(60)
        let items = Self.list(workouts: [workout], records: [Self.record(65, minutes: 20, linkedTo: nil)])
        expect(items.count == 1 && items[0].match == .overlap)
        let apart = Self.list(workouts: [workout], records: [Self.record(200, linkedTo: nil)])
        expectEqual(apart.count, 2)
    }

    @Test("other apps' workouts show as external, never merged by time")  // R: D1
    func external() {
        let other = Self.workout(0, source: .other("strava"))
        let items = Self.list(workouts: [other], records: [Self.record(5, linkedTo: nil)])
        let matches = items.map(\.match).sorted { $0.rawValue < $1.rawValue }
        expectEqual(matches, [.external, .recordsOnly])
    }

    @Test("records arriving before their workout show once, then merge")  // R: D1
    func recordsFirst() {
        let workout = Self.workout(0)
        let record = Self.record(0, linkedTo: workout.uuid)
        let before = Self.list(workouts: [], records: [record])
        expect(before.count == 1 && before[0].match == .recordsOnly && before[0].id == record.id)
        let after = Self.list(workouts: [workout], records: [record])
        expect(after.count == 1 && after[0].id == workout.uuid)
    }

    @Test("HealthKit's active energy wins over the record's; the record's is the fallback")  // R: D4
    func calories() {
        let workout = Self.workout(0, energy: 310)
        let linked = Self.list(workouts: [workout], records: [Self.record(0, linkedTo: workout.uuid, calories: 250)])
        expect(linked[0].calories?.value == 310 && linked[0].calories?.source == "healthkit")
        let noEnergy = Self.workout(0, energy: nil)
        let fallback = Self.list(workouts: [noEnergy], records: [Self.record(0, linkedTo: noEnergy.uuid, calories: 250)])
        expect(fallback[0].calories?.value == 250 && fallback[0].calories?.source == "record")
    }

    // MARK: Notifier (R: D6)

    @Test("first launch records without notifying; each new workout posts exactly once")  // R: D6
    func notifier() {
        var driver = PhoneDriver()
        expectEqual(driver.count(.notificationSuppressed), 1)
        driver.advance(.minutes(40))
        for _ in 0..<2 {
            driver.arrive(HealthObjectsBatch(workouts: [driver.workout()]))
            driver.advance(.minutes(2))
            driver.arrive(HealthObjectsBatch(samples: [driver.sample(.heartRate, 120)]))
            driver.advance(.hours(1))
        }
        expectEqual(driver.count(.notificationPosted, "title", "Workout completed"), 2)
    }

    @Test("two workouts back to back on the phone: two notifications, each once")  // R: D6
    func backToBack() {
        var driver = PhoneDriver()
        driver.advance(.minutes(2))
        driver.arrive(HealthObjectsBatch(workouts: [driver.workout()]))
        driver.advance(.seconds(5))
        driver.arrive(HealthObjectsBatch(workouts: [driver.workout()]))
        driver.advance(.hours(2))
        expectEqual(driver.count(.notificationPosted, "title", "Workout completed"), 2)
        expectEqual(driver.count(.notificationSuppressed), 1)
    }

    @Test("seed 004's reading: a workout synced while locked posts the locked notice, then the real one at unlock")  // R: D6, H4
    func lockedThenUnlocked() {
        var driver = PhoneDriver { $0.healthKit.wakeWhileLocked = true }
        driver.advance(.minutes(2))
        driver.run("lock")
        driver.advance(.minutes(1))
        driver.arrive(HealthObjectsBatch(workouts: [driver.workout()]))
        driver.advance(.minutes(1))
        expectEqual(driver.count(.notificationPosted, "title", "Device locked"), 1)
        driver.run("unlock")
        expectEqual(driver.count(.notificationPosted, "title", "Workout completed"), 1, "the app was on screen: it is back, and hears at once")
        driver.advance(.hours(1))
        expectEqual(driver.count(.notificationPosted, "title", "Workout completed"), 1)
    }

    // MARK: The phone's workout features

    @Test("records reaching a suspended app wake it through CloudKit's silent notification, at most every 20 min; the others wait and import at foreground")  // R: S4, F2
    func cloudKitImportGating() {
        var driver = PhoneDriver()
        driver.advance(.minutes(2))
        driver.run("background")
        driver.advance(.minutes(1))
        let workout = driver.workout()
        // The reference app listens for its records (ExerciseRecords.onChange): a CloudKit subscription.
        driver.arrive(RecordsBatch(saved: [Self.record(0, linkedTo: workout.uuid)]))
        expect(driver.count(.ckImport) == 1 && driver.count(.ckPending) == 0)
        expect(driver.named(.appState).last { $0["reason"]?.stringValue == "CloudKit notification" } != nil)
        expectEqual(driver.phone.records.count, 1)
        driver.advance(.minutes(1))
        expectEqual(driver.phone.app, .suspended, "suspended soon after the import")
        // A second change within the throttle waits for the app to run.
        driver.arrive(RecordsBatch(saved: [Self.record(1, linkedTo: workout.uuid)]))
        expectEqual(driver.count(.ckPending), 1)
        expectEqual(driver.phone.records.count, 1)
        let mark = driver.mark
        driver.run("foreground")
        expectEqual(driver.count(.ckImport, from: mark), 1)
        expectEqual(driver.phone.records.count, 2)
    }

    @Test("detail degrades gracefully and says why")  // R: D3
    func detailDegrades() {
        var driver = PhoneDriver()
        driver.advance(.minutes(40))
        let workout = driver.workout()
        let linked = Self.record(0, linkedTo: UUID(), calories: 200)
        driver.arrive(HealthObjectsBatch(workouts: [workout]))
        driver.arrive(RecordsBatch(saved: [linked]))
        expect(driver.run("open-workout \(workout.uuid.text)").reply.contains("no heart-rate data"))
        expect(driver.run("open-workout \(linked.id.text)").reply.contains("HealthKit workout is not there"))
        driver.run("authorize hr deny")
        // R: H3: the app cannot tell denied from none, so both say the same.
        expect(driver.run("open-workout \(workout.uuid.text)").reply.contains("no heart-rate data for this workout — check Health permissions"))
        expectEqual(driver.named(.detailDegraded).last?["reason"]?.stringValue, "noSamples")
        expect(driver.refuse("open-workout nonsense").contains("not a UUID"))
        driver.run("lock")
        // Locked, the app is off screen: its UI takes no action.
        expect(driver.refuse("open-workout \(linked.id.text)").contains("not on screen"))
    }

    @Test("detail shows the chart and summary from the workout's samples")  // R: D2
    func detailChart() {
        var driver = PhoneDriver()
        driver.advance(.minutes(40))
        let workout = driver.workout()
        let samples = (0..<360).map { (i: Int) -> HealthSample in
            let at: EmulatedInstant = workout.start + EmulatedDuration.seconds(Int64(i) * 5)
            return HealthSample(uuid: UUID(), type: .heartRate, start: at, end: at, value: 120 + Double(i % 40), source: .watchApp)
        }
        driver.arrive(HealthObjectsBatch(workouts: [workout], samples: samples))
        let reply = driver.run("open-workout latest").reply
        expect(reply.contains("┤"))
        let loaded = driver.named(.detailLoaded).last!
        expectEqual(loaded["points"], 180)
        expectEqual(loaded["max"]?.doubleValue, 159)
    }

    @Test("deleting one record deletes it and its linked workout; its siblings stay, chartless; another app's workout fails")  // R: D5, H5
    func deletion() throws {
        var driver = PhoneDriver()
        driver.advance(.minutes(40))
        let own = driver.workout()
        let other = driver.workout(source: .other("strava"))
        let ownRecord = Self.record(0, linkedTo: own.uuid), otherRecord = Self.record(0, linkedTo: other.uuid)
        driver.arrive(HealthObjectsBatch(workouts: [own, other]))
        driver.arrive(RecordsBatch(saved: [ownRecord, otherRecord]))
        let mark = driver.mark
        let result = driver.run("delete-workout \(own.uuid.text)") // the workout's only record
        expectEqual(driver.phone.store.workout(own.uuid), nil)
        expectEqual(driver.phone.records.record(ownRecord.id), nil)
        expect(result.actions.frames.map(\.topic).contains("hk.objects"))
        expect(result.actions.frames.map(\.topic).contains("ck.records"))
        driver.run("delete-workout \(otherRecord.id.text)")
        expectEqual(driver.count(.hkDeleteFailed, from: mark), 1)
        expect(driver.phone.store.workout(other.uuid) != nil)
        expectEqual(driver.phone.records.record(otherRecord.id), nil)
        // Seed 002 step 7: one record of a session goes, with the workout; the others stay.
        let session = driver.workout()
        let siblings = (0..<3).map { Self.record(Int64($0) * 10, minutes: 10, linkedTo: session.uuid) }
        driver.arrive(HealthObjectsBatch(workouts: [session]))
        driver.arrive(RecordsBatch(saved: siblings))
        expect(driver.refuse("delete-workout \(session.uuid.text)").contains("3 records share workout"))
        let reply = driver.run("delete-workout \(siblings[1].id.text)").reply
        expect(reply.contains("2 other record(s) of the session stay"), "\(reply)")
        expectEqual(driver.phone.records.record(siblings[1].id), nil)
        expect(driver.phone.records.record(siblings[0].id) != nil && driver.phone.records.record(siblings[2].id) != nil)
        expectEqual(driver.phone.store.workout(session.uuid), nil)
        expect(driver.run("open-workout \(siblings[0].id.text)").reply.contains("HealthKit workout is not there"))
        expectEqual(driver.named(.detailDegraded).last?["reason"]?.stringValue, "workoutMissing")
    }

    @Test("a workout deleted in Apple Health: gone on both sides, its records stay without a chart")  // R: D3, D5
    func deleteInHealth() {
        var driver = PhoneDriver()
        driver.advance(.minutes(40))
        let session = driver.workout()
        let records = (0..<2).map { Self.record(Int64($0) * 15, minutes: 15, linkedTo: session.uuid) }
        driver.arrive(HealthObjectsBatch(workouts: [session]))
        driver.arrive(RecordsBatch(saved: records))
        let result = driver.run("delete-in-health \(session.uuid.text)")
        expect(result.reply.contains("2 record(s) linked to it stay"))
        expectEqual(result.actions.frames.map(\.topic), ["hk.objects"], "the deletion syncs to the watch; no record changes")
        expect(driver.phone.store.workout(session.uuid) == nil && driver.phone.records.count == 2)
        expect(driver.run("open-workout \(records[0].id.text)").reply.contains("HealthKit workout is not there"))
        expect(driver.refuse("delete-in-health \(session.uuid.text)").contains("no HealthKit workout"))
    }

    @Test("HealthKit refusing the app's save: the manual record is saved with healthKitWorkoutID = nil")  // R: W4, D3
    func manualSaveFails() throws {
        var driver = PhoneDriver()
        driver.advance(.minutes(40))
        driver.run("fail-next-save")
        let reply = driver.run("log-workout yoga").reply
        expect(reply.contains("saved with healthKitWorkoutID=nil"))
        expectEqual(driver.count(.hkSaveFailed), 1)
        expectEqual(driver.phone.store.workoutCount, 0)
        let record = try #require(driver.phone.records.records.first)
        expectEqual(record.healthKitWorkoutID, nil)
        expect(driver.run("open-workout \(record.id.text)").reply.contains("no HealthKit workout"))
        // One failure only: the next manual workout links.
        driver.run("log-workout yoga")
        expect(driver.phone.store.workoutCount == 1 && driver.phone.records.records.contains { $0.healthKitWorkoutID != nil })
    }

    /// The Train list from core values, as the app sees them.
    static func list(workouts: [Workout], records: [ExerciseRecord]) -> [WorkoutListItem] {
        WorkoutList.build(workouts: workouts.map(HKWorkout.init(core:)), records: records.map(ExerciseRecordValue.init))
    }
}
