import Foundation
import PairSimCore
import Testing
@testable import PairSimRuntime

/// A changed value writes only its rows that changed (R: K7).
@Suite("Small state written as differences")
struct StateRowsTests {
    static func defaults(_ keys: [String]) -> JSON {
        var object = JSONObject()
        for key in keys { object.append(key, .string("value of \(key)")) }
        return .object(object)
    }

    @Test("a changed value writes only the rows that differ, and reads back in its order; unknown previous rows are written whole")  // R: K7
    func onlyChangedRows() throws {
        let path = SQLiteStorageTests.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let storage = try SQLiteStorage(path: path)
        var keys = (0..<20).map { "key\($0)" }
        func commit(_ value: JSON) throws -> Int {
            let before = storage.rowsWritten
            try storage.commit([], values: ["watch.appDefaults": value])
            let read = try storage.queue.read { db in try StateTables.read(db) }
            #expect(read["watch.appDefaults"] == value)
            return storage.rowsWritten - before
        }
        // First commit of this connection: nothing known before it, 20 rows written.
        #expect(try commit(Self.defaults(keys)) == 20)
        // One value changed: one row, updated where it is.
        var changed = Self.defaults(keys).objectValue!
        changed["key7"] = .int(7)
        #expect(try commit(.object(changed)) == 1)
        // Taken from the front, added at the back: one delete, one insert.
        keys.removeFirst()
        keys.append("key20")
        var queue = Self.defaults(keys).objectValue!
        queue["key7"] = .int(7)
        #expect(try commit(.object(queue)) == 2)
        // Reordered: the order would not read back from positions, so the rows are written whole.
        keys.swapAt(0, 1)
        #expect(try commit(Self.defaults(keys)) == 40)
        // A new connection does not know what the last one wrote: whole again, once.
        let reopened = try SQLiteStorage(path: path)
        try reopened.commit([], values: ["watch.appDefaults": Self.defaults(keys)])
        #expect(reopened.rowsWritten == 40)
    }
}
