/// Sample arguments shared by both nodes' `write-sample` and the watch's `write-samples`.
extension ArgumentReader {
    /// Argument `index` as a sample type (`hrv`, `heartRateVariabilitySDNN`…).
    public func sampleType(_ index: Int) throws(CommandError) -> SampleType {
        let name = argument(index) ?? ""
        guard let type = SampleType(name: name) else {
            throw CommandError("\(spec.verb): unknown type \"\(name)\" (one of: \(SampleType.allCases.map(\.shortName).joined(separator: ", ")))")
        }
        return type
    }

    /// `<type> <value> [--duration D]`: the type, its value (a sleep stage for sleep) and how long
    /// the sample lasts (sleep defaults to an hour, everything else is instantaneous).
    public func sampleValue() throws(CommandError) -> (type: SampleType, value: Double, duration: EmulatedDuration) {
        let type = try sampleType(0)
        let value: Double
        if type == .sleepAnalysis {
            value = Double(SleepStage(name: try choice(1, name: "sleep stage", from: SleepStage.allCases.map(\.name)))!.rawValue)
        } else {
            value = try number(1, name: "\(type.shortName) value (\(type.unit))", in: type.validRange)
        }
        let duration = try self.duration(option: "duration") ?? (type == .sleepAnalysis ? .hours(1) : .zero)
        return (type, value, duration)
    }
}
