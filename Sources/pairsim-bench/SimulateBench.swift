import ArgumentParser

struct SimulateBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "A week of a pair's life in virtual time: emulated seconds per wall second and events per second.")

    func run() throws {
        throw BenchError("the simulator is not built yet")
    }
}
