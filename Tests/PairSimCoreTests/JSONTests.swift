import Testing
import TestSupport
@testable import PairSimCore

@Suite("JSON reader and writer")
struct JSONTests {
    @Test("round-trips values with escapes, unicode and numbers")
    func roundTrip() throws {
        let value: JSON = .object([
            "s": "quote \" backslash \\ newline \n tab \t é 😀", "i": .int(-42), "d": .double(72.5),
            "big": .int(Int64.max), "a": [1, 2.25, true, nil], "o": .object(["k": "v"]),
        ])
        let parsed = try JSONParser().parse(JSONWriter.bytes(value))
        expectEqual(parsed, value)
    }

    @Test("a string's quote, escape, control character or non-ASCII byte is found wherever it falls in an eight-byte word")  // R: S7
    func stringsReadWordByWord() throws {
        let parser = JSONParser()
        for length in 0..<40 {
            let plain = String(repeating: "a", count: length)
            try expectEqual(parser.parse("\"\(plain)\""), .string(plain))
            for position in 0...length {
                let head = String(plain.prefix(position)), tail = String(plain.dropFirst(position))
                // An escape, a two-byte and a four-byte character at every offset.
                try expectEqual(parser.parse("\"\(head)\\n\(tail)\""), .string(head + "\n" + tail))
                try expectEqual(parser.parse("\"\(head)é\(tail)😀\""), .string(head + "é" + tail + "😀"))
                // A raw control character is refused at its own offset; the string ends at its quote.
                do {
                    _ = try parser.parse(Array("\"\(head)\u{01}\(tail)\"".utf8))
                    Issue.record("a control character at \(position) of \(length) was accepted")
                } catch {
                    expectEqual(error.offset, 1 + position)
                }
                try expectEqual(parser.parse("[\"\(head)\",\"\(tail)\"]"), [.string(head), .string(tail)])
            }
        }
        // Invalid UTF-8 past the first word is still refused.
        #expect(throws: JSONError.self) { try parser.parse(Array("\"abcdefghij".utf8) + [0xC3, 0x28, 0x22]) }
    }

    @Test("integers are written whole at the edges of Int64, and doubles as before")  // R: S7
    func integerEdges() {
        for value: Int64 in [0, 7, -7, 10, -10, 99, 100, 1_000_000_000_000, Int64.max, Int64.min, Int64.min + 1] {
            expectEqual(JSONWriter.string(.int(value)), String(value))
        }
        expectEqual(JSONWriter.string(.array([.double(1e15), .double(-0.5), .double(0.0005), .double(1e12 + 0.5), .double(-0.0)])),
                    "[1000000000000000.0,-0.5,0.0005,1000000000000.5,0]")
    }

    @Test("keeps member order, so output is byte-identical")
    func memberOrder() {
        var object = JSONObject()
        object.append("z", 1)
        object.append("a", 2)
        expectEqual(JSONWriter.string(.object(object)), #"{"z":1,"a":2}"#)
    }

    @Test("decodes \\u escapes including surrogate pairs")
    func unicodeEscapes() throws {
        try expectEqual(JSONParser().parse(#""\u00e9\ud83d\ude00""#), .string("é😀"))
    }

    @Test("refuses malformed text with the byte offset", arguments: [
        "", "{", "[1,", "{\"a\" 1}", "tru", "01", "1.", "\"abc", "\"\\x\"", "\"\\ud800\"", "[1]x", "{\"a\":1,}", "nul",
    ])
    func refusesMalformed(text: String) {
        #expect(throws: JSONError.self) { try JSONParser().parse(text) }
    }

    @Test("numbers past Int64 read as doubles, never trap")  // R: S7
    func hugeNumbers() throws {
        try expectEqual(JSONParser().parse("9999999999999999999"), .double(1e19)) // the nearest Double
        try expectEqual(JSONParser().parse("-9223372036854775808"), .int(Int64.min))
        try expectEqual(JSONParser().parse("999999999999999999"), .int(999_999_999_999_999_999))
        #expect(throws: JSONError.self) { try JSONParser().parse("1e999") }
    }

    @Test("refuses nesting deeper than the limit")
    func depthLimit() {
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(throws: JSONError.self) { try JSONParser().parse(deep) }
    }

    @Test("refuses containers with more elements than the limit")
    func countLimit() {
        var parser = JSONParser()
        parser.maxContainerCount = 3
        #expect(throws: JSONError.self) { try parser.parse("[1,2,3,4]") }
        #expect(throws: Never.self) { try parser.parse("[1,2,3]") }
    }

    @Test("short decimals are written as such and every double reads back exactly")  // R: S7
    func decimalsRoundTrip() throws {
        expectEqual(JSONWriter.string(.array([.double(72.5), .double(-0.05), .double(1.001), .double(0.1), .double(-12.34)])), "[72.5,-0.05,1.001,0.1,-12.34]")
        var random = SplitMix64(seed: 11)
        for _ in 0..<20_000 {
            let units = Double(Int64(random.next() % 2_000_000) - 1_000_000)
            let values = [units / 10, units / 100, units / 1_000, Double(bitPattern: random.next()), units * 1e-7]
            for value in values where value.isFinite {
                let text = JSONWriter.string(.double(value))
                let back = try JSONParser().parse(text)
                expectEqual(back.doubleValue, value, "\(value) written as \(text)")
            }
        }
    }

    @Test("writes integral doubles without a fraction and non-finite ones as null")
    func doubles() {
        expectEqual(JSONWriter.string(.double(72)), "72")
        expectEqual(JSONWriter.string(.double(.nan)), "null")
        expectEqual(JSONWriter.string(.double(0.1)), "0.1")
    }

    @Test("refuses duplicate keys in small and large objects, naming the key")  // R: K3
    func duplicateKeys() throws {
        #expect(throws: JSONError.self) { try JSONParser().parse(#"{"v":1,"v":2}"#) }
        let many = (0..<40).map { "\"k\($0)\":\($0)" }
        try expectEqual(JSONParser().parse("{" + many.joined(separator: ",") + "}").objectValue?.count, 40)
        #expect {
            try JSONParser().parse("{" + (many + ["\"k3\":0"]).joined(separator: ",") + "}")
        } throws: { error in
            (error as? JSONError)?.reason == #"duplicate key "k3""#
        }
        #expect(throws: JSONError.self) { try JSONParser().parse(#"{"a":{"b":1,"b":1}}"#) }
        try expectEqual(JSONParser().parse(#"[{"b":1},{"b":1}]"#).arrayValue?.count, 2)
    }

    @Test("an app's field named like a log line's own key, or twice, still makes one readable line")  // R: A1, K3
    func appFieldsOnALine() throws {
        let fields: JSONObject = {
            var object = JSONObject()
            object.append("tab", "train"); object.append("by", 5); object.append("load", 4); object.append("load", 6)
            return object
        }()
        let event = Event(at: .zero, node: .phone, name: "tab.load.cancelled", fields: fields, byApp: true)
        let read = try Event(jsonLine: event.jsonLine)
        expect(read.byApp)
        expect(read["_by"] == 5 && read["load"] == 6 && read.fields.count == 3)
        expectEqual(read, event)
    }

    @Test("an event's line, written straight into a log, is the JSON writer's bytes for the line's object")  // R: P5
    func lineIsTheWritersObject() {
        let events = [
            Event(at: EmulatedInstant(milliseconds: 123_456_789), node: .watch, .hkSaved, fields: ["kind": "samples", "count": 3, "uuid": "A-1"]),
            Event(at: .zero, node: .phone, name: "tab.load", level: .warning, fields: ["quote": "\"é\"\n\u{07}", "none": nil,
                  "list": [1, 2.5, true, .object(["k": "v"])], "d": .double(72.125), "neg": .int(-5)], byApp: true),
            Event(at: EmulatedInstant(milliseconds: 5), node: .phone, name: "app.crashed", level: .error),
        ]
        var log: [UInt8] = [0x41]
        for event in events {
            var object = JSONObject()
            object.append("t", .int(event.at.milliseconds))
            object.append("time", .string(event.at.description))
            object.append("node", .string(event.node.rawValue))
            object.append("event", .string(event.name))
            if event.byApp { object.append("by", "app") }
            if event.level != .info { object.append("level", .string(event.level.rawValue)) }
            for member in event.fields.members { object.append(member.key, member.value) }
            let expected = JSONWriter.bytes(.object(object))
            expectEqual(String(decoding: event.jsonLine, as: UTF8.self), String(decoding: expected, as: UTF8.self))
            event.writeJSONLine(into: &log)
            log.append(0x0A)
        }
        expectEqual(log.count, 1 + events.map { $0.jsonLine.count + 1 }.reduce(0, +), "appended after what the log held")
    }

    @Test("an app's event is bounded: a megabyte string, a thousand fields, a long list are cut, saying so")  // R: K2
    func appEventsBounded() throws {
        var fields: JSONObject = ["blob": .string(String(repeating: "é", count: 500_000)), "list": .array((0..<1_000).map { .int(Int64($0)) })]
        for index in 0..<1_000 { fields.append("f\(index)", .int(Int64(index))) }
        let event = Event(at: .zero, node: .phone, name: String(repeating: "n", count: 10_000), fields: fields, byApp: true)
        let line = event.jsonLine
        expect(line.count < 20_000, "\(line.count) bytes")
        let read = try Event(jsonLine: line)
        expect(read.name.utf8.count <= Event.maxAppNameBytes)
        let blob = try #require(read["blob"]?.stringValue)
        expect(blob.utf8.count <= Event.maxAppStringBytes && blob.hasSuffix("…(1000000 bytes)") && blob.hasPrefix("éé"))
        expect(read["list"]?.arrayValue?.count == Event.maxAppListItems && read["list"]?.arrayValue?.last == "… 745 more")
        expect(read.fields.count == Event.maxAppFields && read["_truncated"] == "939 more field(s)", "\(read.fields.members.suffix(2))")
        expectEqual(read, event, "reading the line back cuts nothing more")
        // The platform's own events are not touched.
        let own = Event(at: .zero, node: .phone, name: "hk.saved", fields: ["blob": .string(String(repeating: "x", count: 5_000))])
        expectEqual(own["blob"]?.stringValue?.count, 5_000)
    }

    @Test("a human log line shows control characters instead of sending them to the terminal")  // R: E4
    func humanLineEscapes() {
        let event = Event(at: .zero, node: .watch, .commandFailed, fields: ["reason": .string("\u{1B}[2Jwatch-app\n72\u{07}")])
        expectEqual(event.humanLine, "00:00:00.000 command.failed reason=\\u{1B}[2Jwatch-app\\u{A}72\\u{7}")
        expect(!event.humanLine.unicodeScalars.contains { $0.value < 0x20 })
    }
}
