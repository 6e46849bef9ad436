import PairSimConfig
import PairSimCore

/// The outcome of one expectation.
public struct Verdict: Hashable, Sendable {
    public var passed: Bool
    public var label: String
    /// Why: counts, first times, the slowest reaction.
    public var detail: String

    public init(passed: Bool, label: String, detail: String) {
        self.passed = passed
        self.label = label
        self.detail = detail
    }

    /// `✔ label — detail` / `✘ label — detail`.
    public var line: String { "\(passed ? "✔" : "✘") \(label) — \(detail)" }
}

/// Checks expectations against a merged event log (the same code for `run` and `simulate`).
public enum ExpectationChecker {
    public static func check(_ specs: [ExpectationSpec], events: [Event]) -> [Verdict] {
        specs.map { check($0, events: events) }
    }

    static func check(_ spec: ExpectationSpec, events: [Event]) -> Verdict {
        let start = spec.from ?? .zero, end = spec.until ?? .distantFuture
        let windowed = spec.from != nil || spec.until != nil
        // The times of the events in the window that `matcher` matches (`first`: only the first),
        // each event read where it lies (`EventMatcher.matches(at:)` says why).
        func matching(_ matcher: EventMatcher, first: Bool = false) -> [EmulatedInstant] {
            events.withUnsafeBufferPointer { buffer in
                var times: [EmulatedInstant] = []
                guard let base = buffer.baseAddress else { return times }
                for index in buffer.indices {
                    let at = base[index].at
                    guard !windowed || (at >= start && at < end), matcher.matches(at: base + index) else { continue }
                    times.append(at)
                    if first { break }
                }
                return times
            }
        }
        func verdict(_ passed: Bool, _ detail: String) -> Verdict { Verdict(passed: passed, label: spec.label, detail: detail) }
        switch spec.expectation {
        case .eventually(let matcher):
            guard let first = matching(matcher, first: true).first else { return verdict(false, "never happened") }
            return verdict(true, "first at \(first)")
        case .never(let matcher):
            let hits = matching(matcher)
            return hits.isEmpty ? verdict(true, "did not happen") : verdict(false, "\(hits.count) time(s), first at \(hits[0])")
        case .exactly(let count, let matcher):
            let hits = matching(matcher)
            return verdict(hits.count == count, "\(hits.count) time(s)" + (hits.first.map { ", first at \($0)" } ?? ""))
        case .atLeast(let count, let matcher):
            let hits = matching(matcher)
            return verdict(hits.count >= count, "\(hits.count) time(s)")
        case .atMost(let count, let matcher, let per):
            let times = matching(matcher)
            guard let per else { return verdict(times.count <= count, "\(times.count) time(s)") }
            // The busiest window of length `per`, by two pointers over the sorted times.
            var busiest = 0, busiestAt = EmulatedInstant.zero, start = 0
            for end in times.indices {
                while times[end] - times[start] >= per { start += 1 }
                if end - start + 1 > busiest { busiest = end - start + 1; busiestAt = times[start] }
            }
            return verdict(busiest <= count, "busiest \(per) window has \(busiest)" + (busiest > 0 ? " (from \(busiestAt))" : ""))
        case .within(let limit, let after, let then):
            let triggers = matching(after)
            guard !triggers.isEmpty else { return verdict(false, "\(after) never happened") }
            let responses = matching(then)
            var slowest = EmulatedDuration.zero
            var missed: [EmulatedInstant] = []
            for trigger in triggers {
                if let response = responses.first(where: { $0 >= trigger && $0 - trigger <= limit }) {
                    slowest = max(slowest, response - trigger)
                } else {
                    missed.append(trigger)
                }
            }
            if missed.isEmpty { return verdict(true, "\(triggers.count)/\(triggers.count) in time, slowest \(slowest)") }
            return verdict(false, "\(triggers.count - missed.count)/\(triggers.count) in time; none within \(limit) after \(missed[0])")
        }
    }
}
