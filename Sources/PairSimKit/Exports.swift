// On a device `import HealthKit` (or WatchConnectivity, or WatchKit) brings Foundation along: those
// modules re-export it, so app files that use `Date` or `UUID` often import nothing else.
// `import PairSimKit` does the same (docs/APPS.md), so such a file compiles with only its import
// changed — Examples/FieldBugs/Sources/09-FinishBeforeEndCollection.swift is one.
@_exported import Foundation
