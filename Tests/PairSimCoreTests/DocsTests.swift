import Foundation
import Testing
import TestSupport
@testable import PairSimCore

/// The docs are user contracts: every event, command and topic in the code is documented.
@Suite("Documentation matches the code")
struct DocsTests {
    static func doc(_ name: String) throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent("docs/\(name)"), encoding: .utf8)
    }

    @Test("every event name is in docs/EVENTS.md")  // R: P5
    func events() throws {
        let text = try Self.doc("EVENTS.md")
        for name in EventName.allCases {
            expect(text.contains("`\(name.rawValue)`"), "\(name.rawValue) is not documented")
        }
    }

    @Test("every command is in docs/COMMANDS.md")  // R: P3
    func commands() throws {
        let text = try Self.doc("COMMANDS.md")
        for spec in WatchModel.commands + PhonePlatform.commands {
            expect(text.contains("`\(spec.verb)"), "\(spec.verb) is not documented")
        }
    }

    @Test("every topic and rejection code is in docs/PROTOCOL.md")  // R: S7
    func protocolDoc() throws {
        let text = try Self.doc("PROTOCOL.md")
        for topic in Topic.all { expect(text.contains("`\(topic.topic)`")) }
        for code in WireError.Code.allCases { expect(text.contains("`\(code.rawValue)`")) }
    }
}
