import Foundation
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
    static func writeSync(_ new: SyncEngine.Snapshot, previous old: SyncEngine.Snapshot, _ db: Database) throws {
        guard new.channels.map(\.channel) == old.channels.map(\.channel) else { return try writeAllSync(new, db) }
        for (entry, before) in zip(new.channels, old.channels) where entry != before {
            let channel = entry.channel.rawValue
            if entry.stream != before.stream || entry.nextSeq != before.nextSeq {
                try db.cachedStatement(sql: "UPDATE sync_channels SET stream = ?, next_seq = ? WHERE channel = ?")
                    .execute(arguments: [entry.stream, Int64(entry.nextSeq), channel])
            }
            let windows = entry.inbound, windowsBefore = before.inbound
            guard windows != windowsBefore else { continue }
            let onlyCumulative = windows.count == windowsBefore.count && zip(windows, windowsBefore).allSatisfy {
                $0.stream == $1.stream && $0.above == $1.above
            }
            if onlyCumulative {
                let update = try db.cachedStatement(sql: "UPDATE sync_windows SET cumulative = ? WHERE channel = ? AND position = ?")
                for (position, (window, windowBefore)) in zip(windows, windowsBefore).enumerated() where window != windowBefore {
                    try update.execute(arguments: [Int64(window.cumulative), channel, position])
                }
            } else {
                try db.cachedStatement(sql: "DELETE FROM sync_windows WHERE channel = ?").execute(arguments: [channel])
                try db.cachedStatement(sql: "DELETE FROM sync_windows_above WHERE channel = ?").execute(arguments: [channel])
                try insertWindows(channel, windows, db)
            }
        }
    }

    static func writeAllSync(_ snapshot: SyncEngine.Snapshot, _ db: Database) throws {
        for table in ["sync_channels", "sync_windows", "sync_windows_above"] { try db.cachedStatement(sql: "DELETE FROM \(table)").execute() }
        let channels = try db.cachedStatement(sql: "INSERT INTO sync_channels (channel, stream, next_seq) VALUES (?, ?, ?)")
        for entry in snapshot.channels {
            try channels.execute(arguments: [entry.channel.rawValue, entry.stream, Int64(entry.nextSeq)])
            try insertWindows(entry.channel.rawValue, entry.inbound, db)
        }
    }

    static func insertWindows(_ channel: String, _ inbound: [InboundWindow], _ db: Database) throws {
        let above = try db.cachedStatement(sql: "INSERT INTO sync_windows_above (channel, stream, seq) VALUES (?, ?, ?)")
        let windows = try db.cachedStatement(sql: "INSERT INTO sync_windows (channel, position, stream, cumulative) VALUES (?, ?, ?, ?)")
        for (position, window) in inbound.enumerated() {
            try windows.execute(arguments: [channel, position, window.stream, Int64(window.cumulative)])
            for seq in window.above.sorted() { try above.execute(arguments: [channel, window.stream, Int64(seq)]) }
        }
    }

    static func readSync(_ db: Database) throws -> SyncEngine.Snapshot? {
        let channels = try Row.fetchAll(db, sql: "SELECT channel, stream, next_seq FROM sync_channels ORDER BY rowid")
        guard !channels.isEmpty else { return nil }
        return SyncEngine.Snapshot(channels: try channels.map { row in
            let name: String = row["channel"]
            guard let channel = Channel(rawValue: name) else { throw RuntimeError("sync_channels.channel: unknown channel \(name)") }
            let windows = try Row.fetchAll(db, sql: "SELECT stream, cumulative FROM sync_windows WHERE channel = ? ORDER BY position",
                                           arguments: [name]).map { window in
                let above = try Int64.fetchAll(db, sql: "SELECT seq FROM sync_windows_above WHERE channel = ? AND stream = ? ORDER BY seq",
                                               arguments: [name, window["stream"] as String])
                return InboundWindow(stream: window["stream"], cumulative: UInt64(window["cumulative"] as Int64), above: Set(above.map { UInt64($0) }))
            }
            return SyncEngine.Snapshot.ChannelState(channel: channel, stream: row["stream"], nextSeq: UInt64(row["next_seq"] as Int64), inbound: windows)
        })
    }
}
