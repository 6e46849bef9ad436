/// How the export writes what it holds: Apple's date and number spellings, calendar arithmetic,
/// the document's opening, and the buffering of the output.
extension HealthExportGenerator {
    /// `yyyy-MM-dd HH:mm:ss ±HHMM` for local seconds since 1970-01-01.
    func date(_ local: Int64) -> String {
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let seconds = Int(local - days * 86_400)
        let (y, m, d) = Self.civil(days)
        return "\(y)-\(Self.pad(m, 2))-\(Self.pad(d, 2)) \(Self.pad(seconds / 3_600, 2)):\(Self.pad(seconds / 60 % 60, 2)):\(Self.pad(seconds % 60, 2)) \(offset)"
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    /// A number as the export writes it: no exponent, no trailing zeros.
    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        var text = String(value)
        if text.contains("e") { text = String(Int64(value.rounded())) }
        return text
    }

    /// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's algorithm).
    public static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * Int64(month > 2 ? month - 3 : month + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date of a day since 1970-01-01.
    public static func civil(_ days: Int64) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = Int(doy - (153 * mp + 2) / 5 + 1)
        let m = Int(mp < 10 ? mp + 3 : mp - 9)
        return (Int(yoe + era * 400) + (m <= 2 ? 1 : 0), m, d)
    }

    /// The XML declaration, the DTD Apple's export starts with (abridged to the elements written
    /// here) and the root element's opening tag.
    static let header = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE HealthData [
        <!-- HealthKit Export Version: 14 -->
        <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*)>
        <!ATTLIST HealthData
          locale CDATA #REQUIRED
        >
        <!ELEMENT ExportDate EMPTY>
        <!ATTLIST ExportDate
          value CDATA #REQUIRED
        >
        <!ELEMENT Me EMPTY>
        <!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
        <!ATTLIST Record
          type          CDATA #REQUIRED
          unit          CDATA #IMPLIED
          value         CDATA #IMPLIED
          sourceName    CDATA #REQUIRED
          sourceVersion CDATA #IMPLIED
          device        CDATA #IMPLIED
          creationDate  CDATA #IMPLIED
          startDate     CDATA #REQUIRED
          endDate       CDATA #REQUIRED
        >
        <!ELEMENT MetadataEntry EMPTY>
        <!ATTLIST MetadataEntry
          key   CDATA #REQUIRED
          value CDATA #REQUIRED
        >
        <!ELEMENT Workout ((MetadataEntry|WorkoutEvent|WorkoutRoute|WorkoutStatistics)*)>
        <!ATTLIST Workout
          workoutActivityType   CDATA #REQUIRED
          duration              CDATA #IMPLIED
          durationUnit          CDATA #IMPLIED
          sourceName            CDATA #REQUIRED
          sourceVersion         CDATA #IMPLIED
          device                CDATA #IMPLIED
          creationDate          CDATA #IMPLIED
          startDate             CDATA #REQUIRED
          endDate               CDATA #REQUIRED
        >
        <!ELEMENT WorkoutEvent EMPTY>
        <!ELEMENT WorkoutStatistics EMPTY>
        <!ELEMENT ActivitySummary EMPTY>
        ]>
        <HealthData locale="en_US">

        """
}

/// Collects output into large pieces before handing them on (one write per ~1 MB, not per line).
struct ExportOut {
    let write: (String) throws -> Void
    var buffer = ""

    init(write: @escaping (String) throws -> Void) {
        self.write = write
        buffer.reserveCapacity(1 << 20)
    }

    mutating func put(_ text: String) throws {
        buffer += text
        if buffer.utf8.count >= 1 << 20 { try flush() }
    }

    mutating func flush() throws {
        guard !buffer.isEmpty else { return }
        try write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
