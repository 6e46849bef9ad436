import Testing
import TestSupport
@testable import PairSimCore

@Suite("Emulated time")
struct TimeTests {
    @Test("parses the duration grammar", arguments: [
        ("250ms", 250), ("5s", 5_000), ("1.5m", 90_000), ("2h", 7_200_000), ("1d", 86_400_000),
        ("1h30m", 5_400_000), ("0", 0), (" 10s ", 10_000),
    ] as [(String, Int64)])
    func parses(text: String, milliseconds: Int64) {
        expectEqual(EmulatedDuration(parsing: text)?.milliseconds, milliseconds)
    }

    @Test("refuses bad durations", arguments: ["", "5", "s", "5x", "1h-", "abc", "1e400s"])
    func refuses(text: String) {
        expectEqual(EmulatedDuration(parsing: text), nil)
    }

    @Test("prints durations in the shortest exact form")
    func printsDurations() {
        expectEqual(EmulatedDuration.seconds(90).description, "1m30s")
        expectEqual(EmulatedDuration.zero.description, "0s")
        expectEqual(EmulatedDuration.milliseconds(1_250).description, "1s250ms")
        expectEqual(EmulatedDuration.milliseconds(-90_061_001).description, "-1d1h1m1s1ms")
        expectEqual(EmulatedDuration.milliseconds(Int64.min).description, "-106751991167d7h12m55s808ms")
        expectEqual(EmulatedDuration.milliseconds(Int64.max).description, "106751991167d7h12m55s807ms")
        // Every spelling reads back as the duration it names (the grammar reads through a Double: up to 2^50 ms).
        var random = SplitMix64(seed: 9)
        for _ in 0..<5_000 {
            let duration = EmulatedDuration.milliseconds(Int64(bitPattern: random.next()) >> Int64(13 + random.next() % 51))
            let text = duration.description
            expectEqual(EmulatedDuration(parsingSigned: text), duration, "\(text)")
        }
    }

    @Test("prints instants as clock time with a day prefix")
    func printsInstants() {
        expectEqual(EmulatedInstant(milliseconds: 3_723_004).description, "01:02:03.004")
        expectEqual((EmulatedInstant.zero + .days(1) + .hours(7)).description, "1d 07:00:00.000")
        expectEqual(EmulatedInstant(milliseconds: 1_234_567_890).description, "14d 06:56:07.890")
        expectEqual(EmulatedInstant(milliseconds: 45_296_070).description, "12:34:56.070")
        expectEqual(EmulatedInstant(milliseconds: -1_500).description, "-00:00:01.500")
        expectEqual(EmulatedInstant.zero.description, "00:00:00.000")
    }
}
