import Foundation

/// Finishing a workout and writing samples on demand.
extension WatchModel {
    mutating func finishWorkout(now: EmulatedInstant) throws(CommandError) -> CommandResult {
        let finished = try session.finish(now: now)
        var failure: String?
        if failNextFinish {
            failNextFinish = false
            failure = "finishWorkout() failed"
        } else if !finished.live.hasBuilder {
            failure = "recovered session has no workout builder"
        }
        return complete(finished, failure: failure, now: now)
    }

    /// Saves what a finished session produced — the HKWorkout (unless `failure`), its heart-rate
    /// samples, the ExerciseRecords — and sends them to the phone.
    mutating func complete(_ finished: WorkoutSession.Finished, failure: String?, now: EmulatedInstant) -> CommandResult {
        let live = finished.live
        let activeSeconds = finished.activeDuration.seconds
        let values = heartRate.workoutSeries(activity: live.activity, activeSeconds: activeSeconds,
                                             intervalSeconds: topology.watch.heartRateInterval.seconds,
                                             seed: SplitMix64(seed: seed, label: "session#\(live.number)").state)
        let times = Self.sampleTimes(segments: live.segments, end: finished.end, count: values.count,
                                     interval: topology.watch.heartRateInterval)
        var samples: [HealthSample] = []
        samples.reserveCapacity(values.count)
        for (time, value) in zip(times, values) {
            samples.append(HealthSample(uuid: uuids.next(at: time), type: .heartRate, start: stamp(time), end: stamp(time), value: value, source: .watchApp))
        }
        let energy = HeartRateGenerator.activeEnergy(heartRates: values, activeSeconds: activeSeconds)
        var actions: [NodeAction] = []
        var workout: Workout?
        if failure == nil {
            workout = Workout(uuid: uuids.next(at: now), activity: live.activity.name, start: stamp(live.start), end: stamp(now),
                              // On a slow clock the stamped span is shorter than the true active time.
                              activeDuration: min(finished.activeDuration, stamp(now) - stamp(live.start)), activeEnergy: energy, source: .watchApp)
        }
        let (saved, ops) = store.save(workouts: workout.map { [$0] } ?? [], samples: samples)
        actions += ops.map(NodeAction.persist)
        counters.samplesWritten += saved.samples.count
        if let workout {
            counters.workoutsFinished += 1
            actions.append(event(.workoutFinished, now, [
                "uuid": .string(workout.uuid.text), "activity": .string(workout.activity),
                "duration": .string(finished.activeDuration.description), "samples": .int(Int64(samples.count)),
                "activeEnergy": .double(energy),
            ]))
        } else {
            counters.failedFinishes += 1
            actions.append(event(.workoutFinishFailed, now, level: .warning, [
                "activity": .string(live.activity.name), "reason": .string(failure ?? "unknown"),
                "samples": .int(Int64(samples.count)),
            ]))
        }
        // W3: every record of the session carries the workout's UUID (nil when there is none).
        let recordsMade = makeRecords(live: live, finished: finished, energy: energy, workoutID: workout?.uuid, now: now)
        let (savedRecords, recordOps) = records.save(recordsMade)
        counters.recordsSaved += savedRecords.count
        actions += recordOps.map(NodeAction.persist)
        actions += StoreEvents.records(saved: savedRecords, deleted: [], node: .watch, now: now)
        actions += sendObjects(HealthObjectsBatch(workouts: saved.workouts, samples: saved.samples), now: now)
        actions += exportLater(saved: savedRecords, now: now)
        if let workout { actions += sendWorkoutMessage(workout, now: now) }
        let reply: String
        if let workout {
            reply = "finished \(workout.activity) workout=\(workout.uuid.text) active=\(finished.activeDuration) samples=\(samples.count) activeEnergy=\(energy)kcal records=\(savedRecords.count)"
        } else {
            reply = "finished \(live.activity.name) without a workout (\(failure ?? "")): records=\(savedRecords.count) saved with healthKitWorkoutID=nil"
        }
        return ok(reply, actions)
    }

    /// Sample instants: one per `interval` of active time, walking the active segments.
    static func sampleTimes(segments: [WorkoutSession.Segment], end: EmulatedInstant, count: Int,
                            interval: EmulatedDuration) -> [EmulatedInstant] {
        var times: [EmulatedInstant] = []
        times.reserveCapacity(count)
        var carry = EmulatedDuration.zero // active time already covered in earlier segments
        var nextOffset = EmulatedDuration.zero
        for segment in segments {
            let segmentEnd = segment.end ?? end
            let length = segmentEnd - segment.start
            while times.count < count, nextOffset - carry <= length {
                times.append(segment.start + (nextOffset - carry))
                nextOffset += interval
            }
            carry += length
        }
        return times
    }

    /// The watch app's records for a finished session (its decision: see `SeedsWatchApp`).
    mutating func makeRecords(live: WorkoutSession.Live, finished: WorkoutSession.Finished, energy: Double,
                              workoutID: UUID?, now: EmulatedInstant) -> [ExerciseRecord] {
        SeedsWatchApp.records(exercises: live.exercises, start: stamp(live.start), activeDuration: finished.activeDuration, energy: energy,
                              workoutID: workoutID) { uuids.next(at: now) }
    }

    mutating func writeSample(_ args: ArgumentReader, now: EmulatedInstant) throws(CommandError) -> CommandResult {
        try args.expect(2...2, options: ["duration"])
        let (type, value, duration) = try args.sampleValue()
        let start = max(.zero, now - duration)
        let sample = HealthSample(uuid: uuids.next(at: now), type: type, start: stamp(start), end: stamp(now), value: value, source: .watchApp)
        let (saved, ops) = store.save(workouts: [], samples: [sample])
        counters.samplesWritten += saved.samples.count
        let actions = ops.map(NodeAction.persist) + [
            event(.sampleWritten, now, ["uuid": .string(sample.uuid.text), "type": .string(type.rawValue), "value": .double(value)]),
        ] + sendObjects(HealthObjectsBatch(samples: saved.samples), now: now)
        return ok("wrote \(type.rawValue) \(args.argument(1)!) uuid=\(sample.uuid.text)", actions)
    }
}
