import PairSimCore

/// A node's WatchConnectivity session (schema v4, R: X1): its outstanding transfers, what waits
/// for its app, and the application context both ways, so they survive a restart. Payloads are
/// the app's dictionaries, kept in their JSON spelling.
extension StateTables {
    static func watchConnectivityRows(_ session: WCSessionCore.Snapshot) -> [StateRows] {
        func text(_ object: JSONObject?) -> String? { object.map { JSONWriter.string(.object($0)) } }
        return [
            .single("wc_session", ["awaiting_first_unlock", "foreground", "random_state", "context_pending", "context_seq", "context_sent",
                                   "received_context", "received_context_stream", "received_context_seq"],
                    [session.awaitingFirstUnlock, session.foreground, Int64(bitPattern: session.random), text(session.contextPending),
                     session.contextSeq.map { Int64($0) }, text(session.contextSent), text(session.receivedContext), session.receivedContextStream,
                     session.receivedContextSeq.map { Int64($0) }]),
            // Queues: taken from the front, added at the back; a row is its transfer (by id) or delivery (by stream and seq).
            .keyed("wc_outgoing", key: ["id"], order: "position", ["id", "kind", "payload", "name", "size", "created_ms", "seq", "stalled_until"],
                   session.outgoing.map { transfer -> [DatabaseValueConvertible?] in
                       [transfer.id, transfer.kind.rawValue, JSONWriter.string(.object(transfer.payload)), transfer.file?.name,
                        transfer.file.map { Int64($0.size) }, transfer.createdAt.milliseconds, transfer.seq.map { Int64($0) },
                        transfer.stalledUntil?.milliseconds]
                   }),
            .keyed("wc_inbox", key: ["stream", "seq"], order: "position",
                   ["stream", "seq", "kind", "id", "payload", "name", "size", "wants_reply", "sent_ms", "is_data"],
                   session.inbox.map { item -> [DatabaseValueConvertible?] in
                       [item.stream, Int64(item.seq), item.kind.rawValue, item.id, JSONWriter.string(.object(item.payload)), item.file?.name,
                        item.file.map { Int64($0.size) }, item.wantsReply, item.sentAt.milliseconds, item.isData]
                   }),
        ]
    }

    /// The session as `WCSessionCore.snapshot` made it, or nil.
    static func readWatchConnectivity(_ db: Database) throws -> WCSessionCore.Snapshot? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM wc_session") else { return nil }
        func object(_ row: Row, _ column: String) throws -> JSONObject? {
            guard let text = row[column] as String? else { return nil }
            guard let object = try JSONParser().parse(text).objectValue else { throw RuntimeError("wc: \(column) is not an object") }
            return object
        }
        func kind(_ row: Row, _ table: String) throws -> MessageKind {
            let name: String = row["kind"]
            guard let kind = MessageKind(rawValue: name) else { throw RuntimeError("\(table).kind: unknown kind \(name)") }
            return kind
        }
        func file(_ row: Row) -> WCFile? {
            (row["name"] as String?).map { WCFile(name: $0, size: Int(row["size"] as Int64? ?? 0)) }
        }
        var session = WCSessionCore.Snapshot()
        session.awaitingFirstUnlock = row["awaiting_first_unlock"]
        session.foreground = row["foreground"]
        session.random = UInt64(bitPattern: row["random_state"])
        session.contextPending = try object(row, "context_pending")
        session.contextSeq = (row["context_seq"] as Int64?).map { UInt64($0) }
        session.contextSent = try object(row, "context_sent")
        session.receivedContext = try object(row, "received_context")
        session.receivedContextStream = row["received_context_stream"]
        session.receivedContextSeq = (row["received_context_seq"] as Int64?).map { UInt64($0) }
        session.outgoing = try Row.fetchAll(db, sql: "SELECT * FROM wc_outgoing ORDER BY position").map { t in
            var stage = WCTransfer.Stage.queued
            if let seq = t["seq"] as Int64? {
                stage = .sending(seq: UInt64(seq))
            } else if let until = t["stalled_until"] as Int64? {
                stage = .stalled(until: try WCSessionCore.stalledUntil(until, path: "wc_outgoing.stalled_until"))
            }
            return WCTransfer(id: t["id"], kind: try kind(t, "wc_outgoing"), payload: try object(t, "payload") ?? JSONObject(), file: file(t),
                              createdAt: EmulatedInstant(milliseconds: t["created_ms"]), stage: stage)
        }
        session.inbox = try Row.fetchAll(db, sql: "SELECT * FROM wc_inbox ORDER BY position").map { r in
            WCReceived(kind: try kind(r, "wc_inbox"), id: r["id"], payload: try object(r, "payload") ?? JSONObject(), file: file(r),
                       wantsReply: r["wants_reply"], sentAt: EmulatedInstant(milliseconds: r["sent_ms"]), stream: r["stream"], seq: UInt64(r["seq"] as Int64),
                       isData: r["is_data"])
        }
        return session
    }
}
