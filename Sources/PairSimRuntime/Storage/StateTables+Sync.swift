import Foundation
import GRDB
import PairSimCore

/// The sync engine's state (`sync`): per channel its stream and next sequence number, and the
/// inbound windows of what it has received, in `sync_channels`, `sync_windows` and
/// `sync_windows_above`.
extension StateTables {
    /// Written every turn that sends or receives, so every statement is cached: compiling them each
    /// time was a fifth of a single-sample turn's commit on the phone (~45 µs of ~200; bench.sh sync).
    /// With the previous value known, only the channels that changed are written, and a window
    /// that only moved its cumulative point is one UPDATE: a single-sample turn on the phone went
    /// from rewriting every row of three tables (~30 µs and three more pages to commit) to one row.
    static func writeSync(_ value: JSON, previous: JSON?, _ db: Database) throws {
        guard let new = value.objectValue, let old = previous?.objectValue, new.keys == old.keys else {
            return try writeAllSync(value, db)
        }
        for member in new.members {
            let channel = member.key, entry = member.value, before = old[channel]!
            guard entry != before else { continue }
            if entry["stream"] != before["stream"] || entry["nextSeq"] != before["nextSeq"] {
                try db.cachedStatement(sql: "UPDATE sync_channels SET stream = ?, next_seq = ? WHERE channel = ?")
                    .execute(arguments: [try string(entry, "stream", "sync"), try int(entry, "nextSeq", "sync"), channel])
            }
            let windows = entry["inbound"]?.arrayValue ?? [], windowsBefore = before["inbound"]?.arrayValue ?? []
            guard windows != windowsBefore else { continue }
            let onlyCumulative = windows.count == windowsBefore.count && zip(windows, windowsBefore).allSatisfy {
                $0["stream"] == $1["stream"] && $0["above"] == $1["above"]
            }
            if onlyCumulative {
                let update = try db.cachedStatement(sql: "UPDATE sync_windows SET cumulative = ? WHERE channel = ? AND position = ?")
                for (position, (window, windowBefore)) in zip(windows, windowsBefore).enumerated() where window != windowBefore {
                    try update.execute(arguments: [try int(window, "cumulative", "sync"), channel, position])
                }
            } else {
                try db.cachedStatement(sql: "DELETE FROM sync_windows WHERE channel = ?").execute(arguments: [channel])
                try db.cachedStatement(sql: "DELETE FROM sync_windows_above WHERE channel = ?").execute(arguments: [channel])
                try insertWindows(channel, windows, db)
            }
        }
    }

    static func writeAllSync(_ value: JSON, _ db: Database) throws {
        for table in ["sync_channels", "sync_windows", "sync_windows_above"] { try db.cachedStatement(sql: "DELETE FROM \(table)").execute() }
        let channels = try db.cachedStatement(sql: "INSERT INTO sync_channels (channel, stream, next_seq) VALUES (?, ?, ?)")
        for member in value.objectValue?.members ?? [] {
            let channel = member.key, entry = member.value
            try channels.execute(arguments: [channel, try string(entry, "stream", "sync"), try int(entry, "nextSeq", "sync")])
            try insertWindows(channel, entry["inbound"]?.arrayValue ?? [], db)
        }
    }

    static func insertWindows(_ channel: String, _ inbound: [JSON], _ db: Database) throws {
        let above = try db.cachedStatement(sql: "INSERT INTO sync_windows_above (channel, stream, seq) VALUES (?, ?, ?)")
        let windows = try db.cachedStatement(sql: "INSERT INTO sync_windows (channel, position, stream, cumulative) VALUES (?, ?, ?, ?)")
        for (position, window) in inbound.enumerated() {
            let stream = try string(window, "stream", "sync")
            try windows.execute(arguments: [channel, position, stream, try int(window, "cumulative", "sync")])
            for seq in window["above"]?.arrayValue ?? [] { try above.execute(arguments: [channel, stream, seq.intValue]) }
        }
    }

    static func readSync(_ db: Database) throws -> JSON? {
        let channels = try Row.fetchAll(db, sql: "SELECT channel, stream, next_seq FROM sync_channels ORDER BY rowid")
        guard !channels.isEmpty else { return nil }
        var object = JSONObject()
        for channel in channels {
            let name: String = channel["channel"]
            let windows = try Row.fetchAll(db, sql: "SELECT stream, cumulative FROM sync_windows WHERE channel = ? ORDER BY position",
                                           arguments: [name]).map { window -> JSON in
                let above = try Int64.fetchAll(db, sql: "SELECT seq FROM sync_windows_above WHERE channel = ? AND stream = ? ORDER BY seq",
                                               arguments: [name, window["stream"] as String])
                return .object(["stream": .string(window["stream"]), "cumulative": .int(window["cumulative"]), "above": .array(above.map(JSON.int))])
            }
            object.append(name, .object(["stream": .string(channel["stream"]), "nextSeq": .int(channel["next_seq"]), "inbound": .array(windows)]))
        }
        return .object(object)
    }
}
