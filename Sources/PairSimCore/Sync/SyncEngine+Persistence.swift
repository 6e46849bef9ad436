/// The sync engine's small state (streams, sequence counters, receive windows) for persistence;
/// outbox messages are persisted one by one through `PersistOp`.
extension SyncEngine {
    /// What a restart keeps of the engine (R: K7): per channel, in `Channel.allCases` order.
    public struct Snapshot: Hashable, Sendable {
        public struct ChannelState: Hashable, Sendable {
            public var channel: Channel
            /// This node's stream on the channel, and the next sequence number it sends.
            public var stream: String
            public var nextSeq: UInt64
            /// What it received of each sender stream, oldest stream first.
            public var inbound: [InboundWindow]

            public init(channel: Channel, stream: String, nextSeq: UInt64, inbound: [InboundWindow]) {
                self.channel = channel
                self.stream = stream
                self.nextSeq = nextSeq
                self.inbound = inbound
            }
        }

        public var channels: [ChannelState]

        public init(channels: [ChannelState]) { self.channels = channels }
    }

    public var snapshot: Snapshot {
        Snapshot(channels: Channel.allCases.map { channel in
            let out = outbound[channel]
            return Snapshot.ChannelState(channel: channel, stream: out.stream, nextSeq: out.nextSeq,
                                         inbound: streamOrder[channel].compactMap { inbound[channel][$0] })
        })
    }

    /// Restores streams, counters, windows and the outbox; outbox messages go again at once.
    public mutating func restore(_ snapshot: Snapshot, outbox: [Channel: [OutboxRecord]], now: EmulatedInstant) {
        for state in snapshot.channels {
            restore(state.channel, stream: state.stream, nextSeq: state.nextSeq, outbox: outbox[state.channel] ?? [], windows: state.inbound, now: now)
        }
    }
}

extension SyncEngine.Snapshot {
    /// The turn journal's spelling.
    public var json: JSON {
        var object = JSONObject()
        for state in channels {
            let windows = state.inbound.map { window -> JSON in
                .object(["stream": .string(window.stream), "cumulative": .int(Int64(window.cumulative)),
                         "above": .array(window.above.sorted().map { .int(Int64($0)) })])
            }
            object.append(state.channel.rawValue, .object([
                "stream": .string(state.stream), "nextSeq": .int(Int64(state.nextSeq)), "inbound": .array(windows),
            ]))
        }
        return .object(object)
    }

    /// Appends exactly `JSONWriter.write(json)`'s bytes without building the tree: the sync value
    /// changes with every frame a node takes, and its tree (a dozen objects, arrays and strings)
    /// was the larger part of encoding a one-sample turn's journal entry (perf, `pairsim-bench
    /// turn`). `SyncSnapshotJSONTests` holds the two spellings equal.
    public func writeJSON(into out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for (index, state) in channels.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.writeString(state.channel.rawValue, into: &out)
            JSONWriter.writeRaw(#":{"stream":"#, into: &out)
            JSONWriter.writeString(state.stream, into: &out)
            JSONWriter.writeRaw(#","nextSeq":"#, into: &out)
            JSONWriter.writeInt(Int64(state.nextSeq), into: &out)
            JSONWriter.writeRaw(#","inbound":["#, into: &out)
            for (position, window) in state.inbound.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.writeRaw(#"{"stream":"#, into: &out)
                JSONWriter.writeString(window.stream, into: &out)
                JSONWriter.writeRaw(#","cumulative":"#, into: &out)
                JSONWriter.writeInt(Int64(window.cumulative), into: &out)
                JSONWriter.writeRaw(#","above":["#, into: &out)
                for (order, seq) in window.above.sorted().enumerated() {
                    if order > 0 { out.append(UInt8(ascii: ",")) }
                    JSONWriter.writeInt(Int64(seq), into: &out)
                }
                JSONWriter.writeRaw("]}", into: &out)
            }
            JSONWriter.writeRaw("]}", into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    public init(json: JSON) throws(DecodeError) {
        guard let object = json.objectValue else { throw DecodeError(path: "sync", reason: "expected an object") }
        var channels: [ChannelState] = []
        for member in object.members {
            guard let channel = Channel(rawValue: member.key), let entry = member.value.objectValue else {
                throw DecodeError(path: "sync.\(member.key)", reason: "not a channel's state")
            }
            let reader = FieldReader(entry, path: "sync.\(channel)")
            let windows = try reader.objects("inbound", limit: 1_000) { (r) throws(DecodeError) -> InboundWindow in
                var above: Set<UInt64> = []
                for value in try r.array("above", limit: 10_000_000) {
                    guard let seq = value.intValue, seq > 0 else { throw DecodeError(path: "\(r.path).above", reason: "bad seq") }
                    above.insert(UInt64(seq))
                }
                return InboundWindow(stream: try r.string("stream"), cumulative: UInt64(try r.int("cumulative", min: 0)), above: above)
            }
            channels.append(ChannelState(channel: channel, stream: try reader.string("stream"), nextSeq: UInt64(try reader.int("nextSeq", min: 1)),
                                         inbound: windows))
        }
        self.init(channels: channels)
    }
}
