import CExportScan
import Foundation
import PairSimCore
@testable import PairSimHealthExport
import Testing
import TestSupport

/// The checking XML scanner behind import-health (R: E1, E3): what it accepts, what it refuses
/// and where, and that where the input is cut into chunks changes nothing.
@Suite("The export's XML scanner")
struct ExportScanTests {
    enum Outcome: Equatable {
        case events([String])
        case error(String, line: UInt64, column: UInt64)
    }

    /// Feeds `text` in chunks of `chunk` bytes; the events as `+name(attributes)@line:column` and `-name`.
    static func scan(_ text: String, chunk: Int = 1 << 16) -> Outcome {
        let bytes = Array(text.utf8)
        var scanner = pxs_scanner()
        pxs_init(&scanner)
        defer { pxs_free(&scanner) }
        var fed = 0
        var events: [String] = []
        while true {
            switch pxs_next(&scanner) {
            case Int32(PXS_START):
                let name = String(decoding: UnsafeBufferPointer(start: scanner.name, count: scanner.name_length), as: UTF8.self)
                let attributes = withUnsafePointer(to: &scanner.attributes) { tuple in
                    tuple.withMemoryRebound(to: pxs_attribute.self, capacity: Int(PXS_MAX_ATTRIBUTES)) { list in
                        (0..<Int(scanner.attribute_count)).map { index -> String in
                            let a = list[index]
                            return String(decoding: UnsafeBufferPointer(start: a.name, count: a.name_length), as: UTF8.self) + "="
                                + String(decoding: UnsafeBufferPointer(start: a.value, count: a.value_length), as: UTF8.self)
                        }
                    }
                }
                events.append("+\(name)(\(attributes.joined(separator: ",")))@\(scanner.event_line):\(scanner.event_column)")
            case Int32(PXS_END):
                events.append("-")
            case Int32(PXS_NEED):
                if fed == bytes.count {
                    pxs_finish(&scanner)
                } else {
                    let count = min(chunk, bytes.count - fed)
                    let space = pxs_space(&scanner, count)!
                    bytes.withUnsafeBufferPointer { _ = memcpy(space, $0.baseAddress! + fed, count) }
                    pxs_commit(&scanner, count)
                    fed += count
                }
            case Int32(PXS_DONE):
                return .events(events)
            default:
                let message = withUnsafeBytes(of: scanner.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                return .error(message, line: scanner.error_line, column: scanner.error_column)
            }
        }
    }

    @Test("cutting the input anywhere gives the same events, positions included")  // R: E1
    func chunkBoundaries() throws {
        var data = Data()
        _ = try HealthExportGenerator(.init(days: 1, seed: 4)).write { data.append(contentsOf: Array($0.utf8)) }
        let text = String(decoding: data.prefix(60_000), as: UTF8.self)
        let cut = String(text[..<text.range(of: "\n", options: .backwards)!.lowerBound]) + "\n</HealthData>\n"
        let whole = Self.scan(cut)
        guard case .events(let events) = whole else { Issue.record("\(whole)"); return }
        expect(events.count > 100)
        for chunk in [1, 2, 3, 7, 64, 1_000, 4_093] { expectEqual(Self.scan(cut, chunk: chunk), whole, "chunks of \(chunk)") }
    }

    @Test("well-formed XML of every kind it meets is read")  // R: E1
    func accepts() {
        let documents: [(String, [String])] = [
            ("<a/>", ["+a()@1:1", "-"]),
            ("\u{FEFF}<a/>", ["+a()@1:4", "-"]),
            ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- c -->\n<!DOCTYPE a [\n<!ATTLIST a b CDATA '>' >\n]>\n<a b = 'x' c=\"y\" ></a >\n",
             ["+a(b=x,c=y)@6:1", "-"]),
            ("<a x=\"&#233;&#x1F600;&amp;&lt;&gt;&quot;&apos;\">text &amp; <![CDATA[ <not> & a tag ]]><?pi x?><!-- <b> --></a>",
             ["+a(x=&#233;&#x1F600;&amp;&lt;&gt;&quot;&apos;)@1:1", "-"]),
            ("<HealthData>\n <Record type=\"t\"\n   value=\"1\"/>\n <Workout><WorkoutStatistics sum=\"2\"/></Workout>\n</HealthData>",
             ["+HealthData()@1:1", "+Record(type=t,value=1)@2:2", "-", "+Workout()@4:2", "+WorkoutStatistics(sum=2)@4:11", "-", "-", "-"]),
        ]
        for (text, expected) in documents { expectEqual(Self.scan(text), .events(expected), "\(text)") }
    }

    @Test("malformed XML is refused with what is wrong and its line and column", arguments: [
        ("<a><b></a>", "does not match <b>", 1, 7),
        ("<a x=1/>", "without quotes", 1, 6),
        ("<a x='1' x='2'/>", "given twice", 1, 10),
        ("<a x=\"1\"y=\"2\"/>", "expected whitespace", 1, 9),
        ("<a>&foo;</a>", "undefined entity reference in text", 1, 4),
        ("<a x=\"&#0;\"/>", "bad or undefined entity reference in an attribute value", 1, 7),
        ("<a>&#xD800;</a>", "undefined entity reference in text", 1, 4),
        ("<a>&amp</a>", "undefined entity reference in text", 1, 4),
        ("<a x=\"a<b\"/>", "'<' inside an attribute value", 1, 8),
        ("<a/><b/>", "extra content after the root element", 1, 5),
        ("<a></a>x", "extra content after the root element", 1, 8),
        ("<a>\n <b>", "ends inside <b> (truncated?)", 2, 5),
        ("<a><b x=\"1", "ends inside a tag (truncated?)", 1, 4),
        ("", "no root element", 1, 1),
        ("hello", "text before the root element", 1, 1),
        ("<a><!-- x", "ends inside a comment", 1, 4),
        ("<!DOCTYPE a [ <!ELEMENT a ANY> ", "DOCTYPE never ends", 1, 1),
        ("<a>\n  <b x=1/>\n</a>", "without quotes", 2, 8),
        ("<a>\n</b>", "does not match <a>", 2, 1),
        ("<a><!X></a>", "unknown markup", 1, 4),
        ("<a>< b/></a>", "not followed by a name", 1, 5),
    ] as [(String, String, UInt64, UInt64)])  // R: E3
    func refuses(_ text: String, _ says: String, _ line: UInt64, _ column: UInt64) {
        for chunk in [1, 1 << 16] {
            guard case .error(let message, let atLine, let atColumn) = Self.scan(text, chunk: chunk) else {
                Issue.record("\(text): accepted")
                continue
            }
            expect(message.contains(says), "\(text): \(message)")
            expect(atLine == line && atColumn == column, "\(text): line \(atLine), column \(atColumn)")
        }
    }
}
