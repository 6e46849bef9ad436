import CExportScan
import Foundation
import PairSimCore

/// A large export.xml read in two halves at once (`SecondHalf` reads the second), joined so that
/// nothing about the result shows it; and the read-back of what a pass staged.
extension HealthExportReader {
    /// The start of a line near the middle of the file where a child of the root element begins
    /// (`\n <Record …`), or nil.
    static func splitPoint(_ fd: Int32, size: Int) -> Int? {
        var window = [UInt8](repeating: 0, count: 1 << 16)
        let got = window.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 1 << 16, off_t(size / 2)) }
        guard got > 3 else { return nil }
        for index in 0..<(got - 3) where window[index] == 0x0A && window[index + 1] == 0x20 && window[index + 2] == 0x3C
            && ((0x41...0x5A).contains(window[index + 3]) || (0x61...0x7A).contains(window[index + 3])) {
            return size / 2 + index + 1
        }
        return nil
    }

    /// The first half is read: if it ended between two children of the root (as it does unless
    /// the middle of the file is inside a comment or CDATA), what the other thread read follows it;
    /// if not, this reader reads on through the second half itself.
    func handOver() throws(HealthExportError) {
        guard let second else { return }
        self.second = nil
        limit = nil
        let clean = scanner.pointee.start == scanner.pointee.end && scanner.pointee.depth == 1 && scanner.pointee.pending_end == 0
            && depth == 1 && workout == nil
        guard clean else { second.cancel(); return }
        guard let other = second.finish() else { throw fail(second.openError ?? HealthExportError("\(name): the second half could not be read")) }
        let firstLine = Int(scanner.pointee.line)
        if let error = other.failure {
            // Its lines count from the line it started on (line 2 after its "<HealthData>" prefix).
            if let (what, line, column) = other.located {
                let shifted = firstLine + line - 2
                throw fail(HealthExportError("\(name) line \(shifted), column \(column): \(what)", line: shifted, column: column))
            }
            throw fail(error)
        }
        // What the other thread read is in its temporary file; if that could not be written (no
        // room in the temporary directory), this reader reads the second half itself, as one pass.
        guard let otherStaged = other.staged, !otherStaged.failed,
              let rest = otherStaged.cursor(tally: HealthExportTally(), fingerprint: fingerprint) else { return }
        for index in taken.indices { taken[index] += other.taken[index] }
        filtered += other.filtered
        for (type, count) in other.unknown { unknown[type, default: 0] += count }
        if let day = other.earliestDay, day.start < earliestDay?.start ?? .max { earliestDay = day }
        skippedCount += other.skippedCount
        skippedRecords += other.skippedRecords.prefix(max(0, Self.maxSkippedListed - skippedRecords.count))
        secondCursor = rest
        readInHalves = true
        if let mine = staged, !mine.failed { halves = (mine, otherStaged) }
        staged = nil
        ended = true
    }

    public func rewound() -> (any HealthExportCursor)? {
        guard ended, failure == nil, pending.isEmpty else { return nil }
        if let (first, second) = halves {
            halves = nil
            guard let a = first.cursor(tally: tally, fingerprint: fingerprint), let b = second.cursor(tally: tally, fingerprint: fingerprint) else { return nil }
            return ChainedCursor([a, b], tally: tally, fingerprint: fingerprint)
        }
        guard let staged else { return nil }
        self.staged = nil
        return staged.cursor(tally: tally, fingerprint: fingerprint)
    }
}
