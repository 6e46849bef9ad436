/// Proleptic Gregorian calendar arithmetic on days since 1970-01-01 (Howard Hinnant's algorithms):
/// the Health export's dates, written by the generator and read by the importer, without
/// Foundation's Calendar on the hot path.
public enum CivilDate {
    /// Days since 1970-01-01 of a date.
    public static func days(_ year: Int, _ month: Int, _ day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * Int64(month > 2 ? month - 3 : month + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date of a day since 1970-01-01.
    public static func date(_ days: Int64) -> (year: Int, month: Int, day: Int) {
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

    /// Days in a month of a year (February: 28 or 29).
    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Whether year, month and day name a real date (2024-02-30 does not).
    public static func isValid(_ year: Int, _ month: Int, _ day: Int) -> Bool {
        (1...12).contains(month) && day >= 1 && day <= daysIn(month: month, year: year)
    }

    /// `YYYY-MM-DD` as year, month and day, when it names a real date.
    public static func parse(_ text: String) -> (year: Int, month: Int, day: Int)? {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == 0x2D, bytes[7] == 0x2D,
              [0, 1, 2, 3, 5, 6, 8, 9].allSatisfy({ (48...57).contains(bytes[$0]) }),
              let year = Int(text.prefix(4)), let month = Int(text.dropFirst(5).prefix(2)), let day = Int(text.suffix(2)),
              isValid(year, month, day) else { return nil }
        return (year, month, day)
    }

    /// `YYYY-MM-DD` of a day since 1970-01-01.
    public static func text(_ days: Int64) -> String {
        let (y, m, d) = date(days)
        return pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2)
    }

    public static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
