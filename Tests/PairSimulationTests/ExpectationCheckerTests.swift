import PairSimCore
import Testing
import TestSupport
@testable import PairSimConfig
@testable import PairSimulation
@testable import PairSimScenario

@Suite("Expectations over an event log")
struct ExpectationCheckerTests {
    static func event(_ seconds: Int64, _ node: NodeName, _ name: EventName, _ fields: JSONObject = [:]) -> Event {
        Event(at: .zero + .seconds(seconds), node: node, name, fields: fields)
    }

    static let log: [Event] = [
        event(10, .watch, .workoutFinished), event(40, .phone, .notificationPosted),
        event(100, .phone, .coordinatorRefresh), event(130, .phone, .coordinatorRefresh), event(200, .phone, .coordinatorRefresh),
        event(300, .watch, .workoutFinished),
    ]

    static func check(_ expectation: PairSimConfig.Expectation, from: Int64? = nil) -> Verdict {
        ExpectationChecker.check([ExpectationSpec(expectation: expectation, label: "x", from: from.map { .zero + .seconds($0) })], events: log)[0]
    }

    static func m(_ text: String) -> EventMatcher { try! EventMatcher(parsing: text) }

    @Test("eventually, never, exactly, at least")  // R: P6
    func counts() {
        expect(Self.check(.eventually(Self.m("phone notification.posted"))).passed)
        expect(!Self.check(.eventually(Self.m("phone bgdelivery.wake"))).passed)
        expect(Self.check(.never(Self.m("phone bgdelivery.wake"))).passed)
        expect(!Self.check(.never(Self.m("phone coordinator.refresh"))).passed)
        expect(Self.check(.exactly(3, Self.m("phone coordinator.refresh"))).passed)
        expect(Self.check(.atLeast(2, Self.m("watch workout.finished"))).passed)
        expect(Self.check(.exactly(1, Self.m("phone coordinator.refresh")), from: 150).passed)
    }

    @Test("at most N per window looks at the busiest window")  // R: P6, C2
    func perWindow() {
        expect(!Self.check(.atMost(1, Self.m("phone coordinator.refresh"), per: .seconds(60))).passed)
        expect(Self.check(.atMost(2, Self.m("phone coordinator.refresh"), per: .seconds(60))).passed)
        expect(Self.check(.atMost(1, Self.m("phone coordinator.refresh"), per: .seconds(30))).passed)
    }

    @Test("B within D after every A; an A that never happens fails")  // R: P6
    func within() {
        let late = Self.check(.within(.seconds(60), after: Self.m("watch workout.finished"), then: Self.m("phone notification.posted")))
        expect(!late.passed)
        expect(late.detail.contains("1/2 in time"))
        let early = ExpectationChecker.check([ExpectationSpec(expectation: .within(.seconds(60), after: Self.m("watch workout.finished"),
                                                                                   then: Self.m("phone notification.posted")),
                                                               label: "x", until: .zero + .seconds(200))], events: Self.log)[0]
        expect(early.passed)
        expect(!Self.check(.within(.seconds(60), after: Self.m("phone bgdelivery.wake"), then: Self.m("phone hk.saved"))).passed)
    }
}
