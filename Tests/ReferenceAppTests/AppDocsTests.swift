import Foundation
import PairSimApps
import Testing
import TestSupport
@testable import PairSimCore

/// docs/COMMANDS.md and docs/APPS.md are contracts for the apps too.
@Suite("Documentation matches the apps")
struct AppDocsTests {
    static func doc(_ name: String) throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent("docs/\(name)"), encoding: .utf8)
    }

    @Test("every UI action of every app the build knows is in docs/COMMANDS.md; every app is in docs/APPS.md")  // R: A2, P3
    func actions() throws {
        let commands = try Self.doc("COMMANDS.md"), apps = try Self.doc("APPS.md")
        for action in AppCatalog.knownActions { expect(commands.contains("`\(action.verb)"), "\(action.verb) is not documented") }
        for app in AppCatalog.registrations(for: PhoneDriver.topology) { expect(apps.contains("`\(app.name)`"), "\(app.name) is not in APPS.md") }
    }
}
