import GRDB
import PairSimCore

/// A node's WatchConnectivity session (schema v4, R: X1): its outstanding transfers, what waits
/// for its app, and the application context both ways, so they survive a restart. Payloads are
/// the app's dictionaries, kept in their JSON spelling.
extension StateTables {
    static func watchConnectivityRows(_ value: JSON) throws -> [StateRows] {
        let key = "wc"
        func text(_ member: String) -> String? { value[member]?.objectValue.map { JSONWriter.string(.object($0)) } }
        return [
            .single("wc_session", ["awaiting_first_unlock", "foreground", "random_state", "context_pending", "context_seq", "context_sent",
                                   "received_context", "received_context_stream", "received_context_seq"],
                    [value["awaitingFirstUnlock"]?.boolValue ?? false, value["foreground"]?.boolValue ?? false, try int(value, "random", key),
                     text("contextPending"), value["contextSeq"]?.intValue, text("contextSent"), text("receivedContext"),
                     value["receivedContextStream"]?.stringValue, value["receivedContextSeq"]?.intValue]),
            // Queues: taken from the front, added at the back; a row is its transfer (by id) or delivery (by stream and seq).
            .keyed("wc_outgoing", key: ["id"], order: "position", ["id", "kind", "payload", "name", "size", "created_ms", "seq", "stalled_until"],
                   try (value["outgoing"]?.arrayValue ?? []).map { transfer -> [DatabaseValueConvertible?] in
                       [try string(transfer, "id", key), try string(transfer, "kind", key), JSONWriter.string(transfer["payload"] ?? .object([:])),
                        transfer["name"]?.stringValue, transfer["size"]?.intValue, try int(transfer, "createdAt", key), transfer["seq"]?.intValue,
                        transfer["stalledUntil"]?.intValue]
                   }),
            .keyed("wc_inbox", key: ["stream", "seq"], order: "position", ["stream", "seq", "kind", "id", "payload", "name", "size", "wants_reply", "sent_ms"],
                   try (value["inbox"]?.arrayValue ?? []).map { item -> [DatabaseValueConvertible?] in
                       [try string(item, "stream", key), try int(item, "seq", key), try string(item, "kind", key), try string(item, "id", key),
                        JSONWriter.string(item["payload"] ?? .object([:])), item["name"]?.stringValue, item["size"]?.intValue,
                        item["reply"]?.boolValue ?? false, try int(item, "sentAt", key)]
                   }),
        ]
    }

    /// The session as `WCSessionCore.json` spells it (same members, same order), or nil.
    static func readWatchConnectivity(_ db: Database) throws -> JSON? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM wc_session") else { return nil }
        func object(_ column: String) throws -> JSON {
            guard let text = row[column] as String? else { return .null }
            return try JSONParser().parse(text)
        }
        func optionalInt(_ row: Row, _ column: String) -> JSON { (row[column] as Int64?).map(JSON.int) ?? .null }
        func optionalText(_ row: Row, _ column: String) -> JSON { (row[column] as String?).map(JSON.string) ?? .null }
        var o: JSONObject = ["awaitingFirstUnlock": .bool(row["awaiting_first_unlock"]), "foreground": .bool(row["foreground"])]
        o.append("random", .int(row["random_state"]))
        o.append("contextPending", try object("context_pending"))
        o.append("contextSeq", optionalInt(row, "context_seq"))
        o.append("contextSent", try object("context_sent"))
        o.append("receivedContext", try object("received_context"))
        o.append("receivedContextStream", optionalText(row, "received_context_stream"))
        o.append("receivedContextSeq", optionalInt(row, "received_context_seq"))
        let outgoing = try Row.fetchAll(db, sql: "SELECT * FROM wc_outgoing ORDER BY position").map { t -> JSON in
            var item: JSONObject = ["id": .string(t["id"]), "kind": .string(t["kind"]), "payload": try JSONParser().parse(t["payload"] as String)]
            item.append("name", optionalText(t, "name"))
            item.append("size", optionalInt(t, "size"))
            item.append("createdAt", .int(t["created_ms"]))
            item.append("seq", optionalInt(t, "seq"))
            item.append("stalledUntil", optionalInt(t, "stalled_until"))
            return .object(item)
        }
        o.append("outgoing", .array(outgoing))
        let inbox = try Row.fetchAll(db, sql: "SELECT * FROM wc_inbox ORDER BY position").map { r -> JSON in
            var item: JSONObject = ["kind": .string(r["kind"]), "id": .string(r["id"]), "payload": try JSONParser().parse(r["payload"] as String)]
            item.append("name", optionalText(r, "name"))
            item.append("size", optionalInt(r, "size"))
            item.append("reply", .bool(r["wants_reply"]))
            item.append("sentAt", .int(r["sent_ms"]))
            item.append("stream", .string(r["stream"]))
            item.append("seq", .int(r["seq"]))
            return .object(item)
        }
        o.append("inbox", .array(inbox))
        return .object(o)
    }
}
