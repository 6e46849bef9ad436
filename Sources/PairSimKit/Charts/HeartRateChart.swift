/// Draws a heart-rate series as a small terminal chart, readable without colour:
///
/// ```
///  171 ┤           ▂▄▆█▇▇▆▇█▇▆▅
///  150 ┤      ▂▅▇█████████████████▅▃
///  129 ┤   ▃▆██████████████████████████▄
///  108 ┤▁▅████████████████████████████████▆▂
///      └────────────────────────────────────
///       0m                              30m
/// ```
public enum HeartRateChart {
    static let blocks: [Character] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    /// The chart's lines, `rows` tall and at most `width` columns of data.
    public static func render(_ summary: HeartRateDetail.Summary, durationMilliseconds: Int64, rows: Int = 4, width: Int = 48) -> [String] {
        guard !summary.values.isEmpty, rows > 0, width > 0 else { return [] }
        let columns = min(width, summary.values.count)
        var column = [Double](repeating: 0, count: columns)
        var counts = [Int](repeating: 0, count: columns)
        let span = max(durationMilliseconds, 1)
        for (offset, value) in zip(summary.offsets, summary.values) {
            let index = min(columns - 1, Int(Double(offset) / Double(span) * Double(columns)))
            column[index] += value
            counts[index] += 1
        }
        var last = summary.values[0]
        for i in 0..<columns {
            if counts[i] > 0 { column[i] /= Double(counts[i]); last = column[i] } else { column[i] = last }
        }
        let low = (summary.minimum / 10).rounded(.down) * 10
        let high = max(low + 10, (summary.maximum / 10).rounded(.up) * 10)
        let levels = Double(rows * 8)
        var lines: [String] = []
        for row in stride(from: rows - 1, through: 0, by: -1) {
            let label = Int((low + (high - low) * Double(row + 1) / Double(rows)).rounded())
            var text = String(repeating: " ", count: max(0, 4 - String(label).count)) + "\(label) ┤"
            for value in column {
                let filled = Int(((value - low) / (high - low) * levels).rounded())
                let inRow = min(8, max(0, filled - row * 8))
                text.append(blocks[inRow])
            }
            lines.append(text)
        }
        lines.append("     └" + String(repeating: "─", count: columns))
        let endLabel = "\(durationMilliseconds / 60_000)m"
        lines.append("      0m" + String(repeating: " ", count: max(1, columns - 2 - endLabel.count)) + endLabel)
        return lines
    }
}
