import PairSimCore

/// How the export writes what it holds: Apple's date and number spellings, the document's opening, and the buffering of the output.
extension HealthExportGenerator {
    /// `yyyy-MM-dd HH:mm:ss ±HHMM` for local seconds since 1970-01-01.
    func date(_ local: Int64) -> String {
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let seconds = Int(local - days * 86_400)
        let (y, m, d) = CivilDate.date(days)
        return "\(y)-\(Self.pad(m, 2))-\(Self.pad(d, 2)) \(Self.pad(seconds / 3_600, 2)):\(Self.pad(seconds / 60 % 60, 2)):\(Self.pad(seconds % 60, 2)) \(offset)"
    }

    static func pad(_ value: Int, _ width: Int) -> String { CivilDate.pad(value, width) }

    /// A number as the export writes it: no exponent, no trailing zeros.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return String(value) }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        var text = String(value)
        // Only where an Int64 holds it: a value of 1e19 in a message was a trap (R: E4).
        if text.contains("e"), abs(value) < 9e18 { text = String(Int64(value.rounded())) }
        return text
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
