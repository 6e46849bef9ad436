import Foundation
import Testing
import TestSupport
@testable import PairSimCore
@testable import PairSimKit

/// What app code prints is the app's log, in emulated time, and never the node's own output.
@Suite("What the app prints")
struct AppOutputTests {
    @Test("print, debugPrint, dump and stderr become app.print lines at the delivery's instant; an unended line waits for its end")  // R: A14
    func printedLines() {
        var phone = Phone({ ScriptedApp(log: ScriptedApp.Log(), perform: { _, action in
            switch action.verb {
            case "talk":
                print("steps:", 1200, "hr:", 61.5)
                debugPrint("quoted")
                print("part one, ", terminator: "")
                fputs("to stderr\n", stderr)
                dump([1])
                print("unended", terminator: "")
            default:
                print(" part two")
                try await Task.sleep(for: .seconds(5))
                print("after the sleep")
            }
            return "ok"
        }) }, actions: [UserActionSpec("talk", "", ""), UserActionSpec("more", "", "")])
        expect(phone.command("foreground").ok)
        expectEqual(phone.command("talk").reply, "ok")
        phone.advance(.seconds(10))
        _ = phone.command("more")
        phone.advance(.seconds(10))
        let lines = phone.named("app.print").map { "\($0.at.milliseconds / 1000) \($0["stream"]?.stringValue ?? "out") \($0["text"]?.stringValue ?? "")" }
        // A line left unended ends where the other stream writes, as a terminal would show it.
        expectEqual(lines, ["0 out steps: 1200 hr: 61.5", "0 out \"quoted\"", "0 out part one, ", "0 stderr to stderr", "0 out ▿ 1 element", "0 out   - 1",
                          "10 out unended part two", "15 out after the sleep"])
        expect(phone.named("app.print").allSatisfy { $0.byApp })
    }
}
