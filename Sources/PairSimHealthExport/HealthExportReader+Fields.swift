import CExportScan
import Foundation
import PairSimCore

/// The export's spellings, read straight from the scanner's bytes (no String per record: a
/// five-year export has millions of records).
extension HealthExportReader {
    /// The attributes of the tag the scanner just read; values with references come decoded.
    struct Attributes {
        let reader: HealthExportReader

        subscript(name: StaticString) -> UnsafeBufferPointer<UInt8>? {
            let scanner = reader.scanner
            let count = Int(scanner.pointee.attribute_count)
            let found: pxs_attribute? = withUnsafePointer(to: &scanner.pointee.attributes) { tuple in
                tuple.withMemoryRebound(to: pxs_attribute.self, capacity: Int(PXS_MAX_ATTRIBUTES)) { attributes in
                    for index in 0..<count where attributes[index].name_length == name.utf8CodeUnitCount
                        && memcmp(attributes[index].name, name.utf8Start, name.utf8CodeUnitCount) == 0 {
                        return attributes[index]
                    }
                    return nil
                }
            }
            guard let found else { return nil }
            let raw = UnsafeBufferPointer(start: found.value, count: found.value_length)
            guard found.has_reference != 0 else { return raw }
            let decoded = HealthExportReader.decodeReferences(raw)
            reader.decoded.append(decoded)
            return UnsafeBufferPointer(decoded)
        }
    }

    /// `&lt;`, `&amp;`, `&#8217;`… in an attribute value, as bytes (the scanner checked them).
    static func decodeReferences(_ raw: UnsafeBufferPointer<UInt8>) -> UnsafeMutableBufferPointer<UInt8> {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var index = 0
        while index < raw.count {
            guard raw[index] == UInt8(ascii: "&"), let semicolon = raw[index...].firstIndex(of: UInt8(ascii: ";")) else {
                out.append(raw[index])
                index += 1
                continue
            }
            let name = String(decoding: raw[(index + 1)..<semicolon], as: UTF8.self)
            switch name {
            case "lt": out.append(UInt8(ascii: "<"))
            case "gt": out.append(UInt8(ascii: ">"))
            case "amp": out.append(UInt8(ascii: "&"))
            case "quot": out.append(UInt8(ascii: "\""))
            case "apos": out.append(UInt8(ascii: "'"))
            default:
                let number = name.hasPrefix("#x") ? UInt32(name.dropFirst(2), radix: 16) : UInt32(name.dropFirst(), radix: 10)
                out += Array(String(Character(Unicode.Scalar(number ?? 0xFFFD) ?? "\u{FFFD}")).utf8)
            }
            index = semicolon + 1
        }
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, out.count))
        _ = buffer.initialize(from: out)
        return UnsafeMutableBufferPointer(rebasing: buffer[..<out.count])
    }


    static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        bytes.count == name.utf8CodeUnitCount && memcmp(bytes.baseAddress!, name.utf8Start, bytes.count) == 0
    }

    static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ other: [UInt8]) -> Bool {
        bytes.count == other.count && other.withUnsafeBufferPointer { memcmp(bytes.baseAddress!, $0.baseAddress!, bytes.count) == 0 }
    }

    /// Byte-wise `a < b` (dates as `YYYY-MM-DD` compare this way).
    static func less(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        a.lexicographicallyPrecedes(b)
    }

    static let sampleTypes: [(StaticString, SampleType)] = [
        ("HKQuantityTypeIdentifierHeartRate", .heartRate),
        ("HKQuantityTypeIdentifierHeartRateVariabilitySDNN", .heartRateVariabilitySDNN),
        ("HKQuantityTypeIdentifierRestingHeartRate", .restingHeartRate),
        ("HKCategoryTypeIdentifierSleepAnalysis", .sleepAnalysis),
        ("HKQuantityTypeIdentifierStepCount", .stepCount),
        ("HKQuantityTypeIdentifierBodyMass", .bodyMass),
        ("HKQuantityTypeIdentifierBodyFatPercentage", .bodyFatPercentage),
        ("HKQuantityTypeIdentifierBodyMassIndex", .bodyMassIndex),
        ("HKQuantityTypeIdentifierActiveEnergyBurned", .activeEnergyBurned),
    ]

    static func sampleType(_ bytes: UnsafeBufferPointer<UInt8>) -> SampleType? {
        sampleTypes.first { equals(bytes, $0.0) }?.1
    }

    static let sleepValues: [(StaticString, SleepStage)] = [
        ("HKCategoryValueSleepAnalysisInBed", .inBed), ("HKCategoryValueSleepAnalysisAsleepUnspecified", .asleepUnspecified),
        ("HKCategoryValueSleepAnalysisAsleep", .asleepUnspecified), ("HKCategoryValueSleepAnalysisAwake", .awake),
        ("HKCategoryValueSleepAnalysisAsleepCore", .asleepCore), ("HKCategoryValueSleepAnalysisAsleepDeep", .asleepDeep),
        ("HKCategoryValueSleepAnalysisAsleepREM", .asleepREM),
    ]

    static func sleepStage(_ bytes: UnsafeBufferPointer<UInt8>) -> SleepStage? {
        sleepValues.first { equals(bytes, $0.0) }?.1
    }

    /// What a value in `unit` is multiplied by to be in the type's PairSim unit; nil: not converted.
    static func unitFactor(_ type: SampleType, _ unit: UnsafeBufferPointer<UInt8>?) -> Double? {
        guard let unit else { return nil }
        for (name, factor) in type.exportUnitFactors where equals(unit, name) { return factor }
        return nil
    }

    /// A decimal number as docs/HEALTH-EXPORT.md gives its grammar — `-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    /// (`72`, `-0.5`, `0.215`, `1e3`) — finite, nothing else around it: not `0x48`, `+72`, `72.`,
    /// `.5`, `1e` or whitespace (what strtod alone would take).
    static func number(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        guard bytes.count > 0, bytes.count < 64, isDecimal(bytes) else { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer -> Double? in
            let base = buffer.baseAddress!
            memcpy(base, bytes.baseAddress!, bytes.count)
            base[bytes.count] = 0
            var end: UnsafeMutablePointer<CChar>?
            let value = strtod(base, &end)
            guard end == base + bytes.count, value.isFinite, !(bytes[0] == 0x20 || bytes[0] == 0x09) else { return nil }
            return value
        }
    }

    static func isDecimal(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        func digits() -> Bool {
            let from = i
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
            return i > from
        }
        if i < b.count, b[i] == 0x2D { i += 1 }
        guard digits() else { return false }
        if i < b.count, b[i] == 0x2E { i += 1; guard digits() else { return false } }
        if i < b.count, b[i] == 0x65 || b[i] == 0x45 {
            i += 1
            if i < b.count, b[i] == 0x2B || b[i] == 0x2D { i += 1 }
            guard digits() else { return false }
        }
        return i == b.count
    }

    /// Bytes below 0x20 or 0x7F: never in a name or a source an export may give.
    static func hasControlCharacter(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.contains { $0 < 0x20 || $0 == 0x7F }
    }

    /// At most 64 bytes of input for a message (cut at a character, marked `…`): a quoted value
    /// can never make an unbounded message or event.
    static func quote(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        // Control characters shown as `\u{1B}`: a quote never carries an escape sequence to a terminal.
        guard bytes.count > 64 else { return Event.visible(String(decoding: bytes, as: UTF8.self)) }
        var end = 64
        while end > 0, bytes[end] & 0xC0 == 0x80 { end -= 1 } // not inside a character
        return Event.visible(String(decoding: UnsafeBufferPointer(rebasing: bytes[..<end]), as: UTF8.self)) + "…"
    }

    static let maxUnknownNames = 100

    /// `yyyy-MM-dd HH:mm:ss ±HHMM`: Unix ms, the local day's midnight (Unix ms) and the offset.
    static func date(_ b: UnsafeBufferPointer<UInt8>) -> (unixMs: Int64, dayStart: Int64, offset: Int32)? {
        guard b.count == 25, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x20, b[13] == 0x3A, b[16] == 0x3A, b[19] == 0x20,
              b[20] == 0x2B || b[20] == 0x2D else { return nil }
        var bad = false
        func digits(_ from: Int, _ count: Int) -> Int {
            var value = 0
            for index in from..<(from + count) {
                let digit = Int(b[index]) - 48
                if digit < 0 || digit > 9 { bad = true }
                value = value * 10 + digit
            }
            return value
        }
        let year = digits(0, 4), month = digits(5, 2), day = digits(8, 2)
        let hour = digits(11, 2), minute = digits(14, 2), second = digits(17, 2)
        let offsetHours = digits(21, 2), offsetMinutes = digits(23, 2)
        guard !bad, CivilDate.isValid(year, month, day), hour < 24, minute < 60, second < 60,
              offsetHours <= 14, offsetMinutes < 60 else { return nil }
        let offset = Int32((offsetHours * 60 + offsetMinutes) * (b[20] == 0x2D ? -1 : 1))
        let dayStart = CivilDate.days(year, month, day) * 86_400_000 - Int64(offset) * 60_000
        return (dayStart + Int64(hour * 3_600 + minute * 60 + second) * 1_000, dayStart, offset)
    }

    /// `HKWorkoutActivityTypeRunning` → `running`: PairSim's own names where it has the activity
    /// (`…HighIntensityIntervalTraining` → `hiit`, `…TraditionalStrengthTraining` → `strength`),
    /// else the HealthKit name without its prefix (`…Elliptical` → `elliptical`).
    static func activity(_ type: String) -> String {
        let prefix = "HKWorkoutActivityType"
        guard type.hasPrefix(prefix), type.count > prefix.count else { return type }
        let name = String(type.dropFirst(prefix.count))
        switch name {
        case "HighIntensityIntervalTraining": return "hiit"
        case "TraditionalStrengthTraining", "FunctionalStrengthTraining": return "strength"
        default: return name.prefix(1).lowercased() + name.dropFirst()
        }
    }
}

extension SampleType {
    /// The type an export's `type` attribute names (`HKQuantityTypeIdentifierHeartRate`), if PairSim models it.
    public init?(exportName: String) {
        guard let match = HealthExportReader.sampleTypes.first(where: { "\($0.0)" == exportName }) else { return nil }
        self = match.1
    }

    /// The export's `type` attribute for this type.
    var exportName: String {
        "\(HealthExportReader.sampleTypes.first { $0.1 == self }!.0)"
    }

    /// Units the export writes this type in, and the factor to PairSim's unit.
    var exportUnitFactors: [(StaticString, Double)] {
        switch self {
        case .heartRate, .restingHeartRate: [("count/min", 1)]
        case .heartRateVariabilitySDNN: [("ms", 1)]
        case .sleepAnalysis: []
        case .stepCount, .bodyMassIndex: [("count", 1)]
        case .bodyMass: [("kg", 1), ("lb", 0.453_592_37), ("g", 0.001)]
        case .bodyFatPercentage: [("%", 1)]
        case .activeEnergyBurned: [("kcal", 1), ("Cal", 1), ("kJ", 1 / 4.184)]
        }
    }

    var exportUnits: [String] { exportUnitFactors.map { "\($0.0)" } }
}
