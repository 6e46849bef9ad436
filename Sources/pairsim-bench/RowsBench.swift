import ArgumentParser
import Foundation
import PairSimApps
import PairSimConfig
import PairSimCore
import PairSimRuntime
import PairSimulation

/// Rows SQLite writes per turn on the real storage over a simulated week (R: K7): each changed
/// value written as its difference from the last commit, against the same week with every changed
/// value's tables written whole (the baseline, same run).
struct RowsBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rows",
        abstract: "Rows SQLite writes per turn over a simulated week on the real storage: values as differences vs written whole.")

    @Option(help: "Scenario.")
    var scenario = "Topologies/scenarios/week-of-normal-life.yaml"

    func run() throws {
        let loaded = try ScenarioLoader.load(path: scenario)
        report("== rows written per turn (\(loaded.name), \(loaded.duration) simulated, the real journal and SQLite, the reference apps)")
        func week(whole: Bool) throws -> [NodeName: (turns: Int, rows: Int)] {
            SimulatedDiskStorage.rewritesValuesWhole = whole
            defer { SimulatedDiskStorage.rewritesValuesWhole = false }
            var simulator = Simulator(scenario: loaded, app: try AppCatalog.registration(named: loaded.topology.phone.app.name, topology: loaded.topology),
                                      watchApp: try AppCatalog.watchApp(for: loaded.topology), realStorage: true)
            simulator.run()
            guard simulator.storageFindings.isEmpty else { throw BenchError("the real storage differed: \(simulator.storageFindings)") }
            return simulator.storageCounts
        }
        let whole = try week(whole: true), diff = try week(whole: false)
        for node in [NodeName.watch, .phone] {
            let (turns, rows) = diff[node]!, baseline = whole[node]!.rows
            report("\(node): \(turns) turns, \(rows) rows = \(format(Double(rows) / Double(max(turns, 1)), 2)) rows/turn; "
                   + "written whole: \(baseline) rows = \(format(Double(baseline) / Double(max(turns, 1)), 2)) rows/turn (\(format(Double(baseline) / Double(max(rows, 1)), 1))×)")
        }
    }
}
