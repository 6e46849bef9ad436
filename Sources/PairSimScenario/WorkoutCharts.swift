import PairSimCore
import PairSimKit

/// One workout's heart-rate chart for the report.
public struct WorkoutChart: Hashable, Sendable {
    public var uuid: String
    public var activity: String
    public var start: EmulatedInstant
    public var end: EmulatedInstant
    public var summary: HeartRateDetail.Summary?
}

public enum WorkoutCharts {
    /// Charts for `workouts` from the heart-rate samples (the detail pipeline of R: D2).
    public static func make(workouts: [Workout], heartRate: [HealthSample]) -> [WorkoutChart] {
        let sorted = heartRate.sorted { $0.start < $1.start }
        return workouts.sorted { $0.start < $1.start }.map { workout in
            let lower = sorted.partitioningIndex { $0.start >= workout.start }
            let upper = sorted.partitioningIndex { $0.start > workout.end }
            let slice = Array(sorted[lower..<upper])
            return WorkoutChart(uuid: workout.uuid.text, activity: workout.activity, start: workout.start, end: workout.end,
                                summary: HeartRateDetail.summarize(slice, start: workout.start, end: workout.end))
        }
    }

    /// From a phone's store (simulation).
    public static func make(_ store: HealthStore) -> [WorkoutChart] {
        make(workouts: store.workouts, heartRate: store.samples(.heartRate))
    }
}

extension Array {
    /// First index where `belongs` turns true, for a predicate false then true over the array.
    func partitioningIndex(where belongs: (Element) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if belongs(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
