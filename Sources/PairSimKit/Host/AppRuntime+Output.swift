import CAppClock
internal import PairSimCore

/// What the app prints: kept by CAppClock while its code runs, logged as `app.print` events.
extension AppRuntime {
    /// What the app printed, line by line and in the order printed, as `app.print` events at the
    /// delivery's instant (a line not yet ended waits for its end; one over 16 KiB is cut there).
    func collectOutput() {
        var count: UInt64 = 0
        guard let bytes = pairsim_app_output_take(&count), count > 0 else { return }
        let records = UnsafeRawBufferPointer(start: bytes, count: Int(count))
        var offset = 0
        while offset + 5 <= records.count {
            let stream = Int(records[offset])
            let length = Int(records.loadUnaligned(fromByteOffset: offset + 1, as: UInt32.self))
            let chunk = records[(offset + 5)..<min(records.count, offset + 5 + length)]
            offset += 5 + length
            let other = stream == 2 ? 0 : 1
            // The other stream's unended line ends here, as a terminal shows it.
            if !partialOutput[other].isEmpty { printed(&partialOutput[other], stream: other + 1, flush: true) }
            partialOutput[stream == 2 ? 1 : 0].append(contentsOf: chunk)
            printed(&partialOutput[stream == 2 ? 1 : 0], stream: stream, flush: false)
        }
    }

    private func printed(_ pending: inout [UInt8], stream: Int, flush: Bool) {
        var rest = pending[...]
        while let end = rest.firstIndex(of: 0x0A) ?? (rest.count > 16_384 ? rest.startIndex + 16_384 : (flush && !rest.isEmpty ? rest.endIndex : nil)) {
            var fields: JSONObject = ["text": .string(String(decoding: rest[..<end], as: UTF8.self))]
            if stream == 2 { fields.append("stream", "stderr") }
            enqueue(.log(name: EventName.appPrint.rawValue, level: stream == 2 ? .warning : .info, fields: fields))
            rest = rest[(end < rest.endIndex && rest[end] == 0x0A ? end + 1 : end)...]
        }
        pending = Array(rest)
    }
}
