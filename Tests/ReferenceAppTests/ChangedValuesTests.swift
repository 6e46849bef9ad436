import Foundation
@testable import PairSimCore
@testable import PairSimKit
import Testing
import TestSupport

@Suite("The phone offers every value that changed")
struct ChangedValuesTests {
    /// After every step, each persistent value that differs from the step before must be among
    /// `changedValues()`: the node loop commits only those (R: K1, S5).
    @Test("random days of the reference app: every changed value is offered")  // R: K1, S5
    func everyChangeIsOffered() throws {
        var random = SplitMix64(seed: 2026)
        // Offered although unchanged, counting only the values kept by didSet (not the three always offered).
        var offeredUnchanged = 0
        for run in 0..<4 {
            var driver = PhoneDriver()
            var previous = driver.node.persistentValues()
            _ = driver.node.changedValues()
            let steps: [(inout PhoneDriver) -> Void] = [
                { $0.attempt("launch") }, { $0.attempt("background") }, { $0.attempt("foreground") }, { $0.attempt("force-quit") },
                { $0.attempt("lock") }, { $0.attempt("unlock") }, { $0.attempt("terminate") },
                { $0.attempt("miss-completion heartRate 1") }, { $0.attempt("fail-next-save") },
                { $0.attempt("authorize heartRate deny") }, { $0.attempt("authorize heartRate allow") },
                { $0.attempt("write-sample weight 70") }, { $0.attempt("write-workout running --duration 20m") },
                { d in d.arrive(HealthObjectsBatch(samples: [d.sample(.heartRate, 80)])) },
                { d in d.arrive(HealthObjectsBatch(workouts: [d.workout()])) },
                { $0.advance(.seconds(30)) }, { $0.advance(.minutes(20)) }, { $0.advance(.hours(2)) },
                { $0.attempt(#"wc-transfer {"n":1}"#) }, { $0.attempt(#"wc-context {"n":2}"#) }, { $0.attempt(#"wc-send {"n":3}"#) },
            ]
            for step in 0..<300 {
                steps[Int(random.next() % UInt64(steps.count))](&driver)
                let now = driver.node.persistentValues()
                let offered = driver.node.changedValues()
                for value in now where previous[value.key] != value {
                    expect(offered[value.key] != nil, "run \(run) step \(step): \(value.key.name) changed but was not offered")
                }
                offeredUnchanged += offered.keys.filter { ![.storeAnchor, .sync, .watchConnectivity].contains($0) && previous[$0] == now[$0] }.count
                previous = now
            }
        }
        // The point: a turn offers the values it touched, not all of them (offering all 8 every
        // step would count close to 4 × 300 × 8).
        expect(offeredUnchanged < 4 * 300 * 8 / 4, "offered unchanged values \(offeredUnchanged) times")
    }
}

extension PhoneDriver {
    /// Runs a command whether or not the state allows it (a refusal changes nothing).
    mutating func attempt(_ text: String) {
        events += node.handle(commandText: text, now: now).actions.events
        advance(.zero)
    }
}
