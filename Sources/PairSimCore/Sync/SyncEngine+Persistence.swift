/// The sync engine's small state (streams, sequence counters, receive windows) for persistence;
/// outbox messages are persisted one by one through `PersistOp`.
extension SyncEngine {
    public var json: JSON {
        var object = JSONObject()
        for channel in Channel.allCases {
            let out = outbound[channel]!
            let windows = (streamOrder[channel] ?? []).compactMap { inbound[channel]?[$0] }.map { window -> JSON in
                .object(["stream": .string(window.stream), "cumulative": .int(Int64(window.cumulative)),
                         "above": .array(window.above.sorted().map { .int(Int64($0)) })])
            }
            object.append(channel.rawValue, .object([
                "stream": .string(out.stream), "nextSeq": .int(Int64(out.nextSeq)), "inbound": .array(windows),
            ]))
        }
        return .object(object)
    }

    /// Restores streams, counters, windows and the outbox; outbox messages go again at once.
    public mutating func restore(json: JSON, outbox: [Channel: [OutboxRecord]], now: EmulatedInstant) throws(DecodeError) {
        guard let object = json.objectValue else { throw DecodeError(path: "sync", reason: "expected an object") }
        for channel in Channel.allCases {
            guard let entry = object[channel.rawValue]?.objectValue else { continue }
            let reader = FieldReader(entry, path: "sync.\(channel)")
            var windows: [InboundWindow] = []
            for item in try reader.objects("inbound", limit: 1_000, { (r) throws(DecodeError) -> InboundWindow in
                var above: Set<UInt64> = []
                for value in try r.array("above", limit: 10_000_000) {
                    guard let seq = value.intValue, seq > 0 else { throw DecodeError(path: "\(r.path).above", reason: "bad seq") }
                    above.insert(UInt64(seq))
                }
                return InboundWindow(stream: try r.string("stream"), cumulative: UInt64(try r.int("cumulative", min: 0)), above: above)
            }) { windows.append(item) }
            restore(channel, stream: try reader.string("stream"), nextSeq: UInt64(try reader.int("nextSeq", min: 1)),
                    outbox: outbox[channel] ?? [], windows: windows, now: now)
        }
    }
}
