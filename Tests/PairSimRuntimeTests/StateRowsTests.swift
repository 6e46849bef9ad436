import Foundation
import PairSimCore
import Testing
import TestSupport
@testable import PairSimRuntime

/// A changed value writes only its rows that changed (R: K7).
@Suite("Small state written as differences")
struct StateRowsTests {
    static func defaults(_ keys: [String]) -> JSONObject {
        var object = JSONObject()
        for key in keys { object.append(key, .string("value of \(key)")) }
        return object
    }

    @Test("a changed value writes only the rows that differ, and reads back in its order; unknown previous rows are written whole")  // R: K7
    func onlyChangedRows() throws {
        let path = SQLiteStorageTests.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let storage = try SQLiteStorage(path: path)
        var keys = (0..<20).map { "key\($0)" }
        func commit(_ defaults: JSONObject) throws -> Int {
            let before = storage.rowsWritten
            try storage.commit([], values: [.watchAppDefaults(defaults)])
            let read = try storage.queue.read { db in try StateTables.read(db) }
            expectEqual(read[.watchAppDefaults], .watchAppDefaults(defaults))
            return storage.rowsWritten - before
        }
        // First commit of this connection: nothing known before it, 20 rows written.
        try expectEqual(commit(Self.defaults(keys)), 20)
        // One value changed: one row, updated where it is.
        var changed = Self.defaults(keys)
        changed["key7"] = .int(7)
        try expectEqual(commit(changed), 1)
        // Taken from the front, added at the back: one delete, one insert.
        keys.removeFirst()
        keys.append("key20")
        var queue = Self.defaults(keys)
        queue["key7"] = .int(7)
        try expectEqual(commit(queue), 2)
        // Reordered: the order would not read back from positions, so the rows are written whole.
        keys.swapAt(0, 1)
        try expectEqual(commit(Self.defaults(keys)), 40)
        // A new connection does not know what the last one wrote: whole again, once.
        let reopened = try SQLiteStorage(path: path)
        try reopened.commit([], values: [.watchAppDefaults(Self.defaults(keys))])
        expectEqual(reopened.rowsWritten, 40)
    }
}
