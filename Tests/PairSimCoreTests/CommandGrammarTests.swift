import Testing
import TestSupport
@testable import PairSimCore

@Suite("Command grammar")
struct CommandGrammarTests {
    static let topology = Topology(name: "t", nodes: [
        .watch: NodeEndpoints(publish: "ipc://w", control: "ipc://wc", data: "w"),
        .phone: NodeEndpoints(publish: "ipc://p", control: "ipc://pc", data: "p"),
    ])

    @Test("splits words, quotes and options")  // R: P3
    func tokenizes() throws {
        let line = try ParsedCommand(parsing: #"start-workout strength "Bench Press" squat --no-builder --at=5m"#)
        expectEqual(line.verb, "start-workout")
        expectEqual(line.arguments, ["strength", "Bench Press", "squat"])
        expectEqual(line.options, ["no-builder": "true", "at": "5m"])
    }

    @Test("a quoted word parses back to itself: JSON payloads, names with spaces or apostrophes")  // R: P3, X1
    func quoteRoundTrip() throws {
        for word in [#"{"event":"hello","n":[1,2]}"#, "Bench Press", "it's", "", "plain", #"{"a":"b c"}"#, #"{"note":"it's"}"#] {
            let line = try ParsedCommand(parsing: "wc-send " + ParsedCommand.quote(word))
            expectEqual(line.arguments, [word], "\(word) → \(ParsedCommand.quote(word))")
        }
        for text in [#"wc-send '{"a":1}' --no-reply"#, #"wc-file run.gpx --metadata '{"k":"v w"}' --size 10"#] {
            let parsed = try ParsedCommand(parsing: text)
            try expectEqual(ParsedCommand(parsing: parsed.text), parsed, "\(text) → \(parsed.text)")
        }
    }

    @Test("refuses empty input and open quotes", arguments: ["", "   ", "say \"hello"])
    func refusesBadText(text: String) {
        #expect(throws: CommandError.self) { try ParsedCommand(parsing: text) }
    }

    @Test("an unknown command suggests the closest one")  // R: P3
    func suggests() {
        var watch = WatchModel(topology: Self.topology, boot: "b")
        let result = watch.handle(commandText: "generate-workout 3", now: .zero)
        expect(!result.ok)
        expect(result.reply.contains("did you mean \"generate-workouts\""))
    }

    // R: P3
    @Test("bad arguments get a clear error naming the command", arguments: [
        ("crash", "no session in progress"),
        ("crash now", "expected 0 arguments"),
        ("write-sample hrv", "expected 2 arguments"),
        ("write-sample caffeine 3", "unknown type \"caffeine\""),
        ("write-sample hrv abc", "must be a number"),
        ("write-sample hrv 9000", "outside"),
        ("write-sample sleep nap", "unknown sleep stage"),
        ("recover", "nothing to recover"),
        ("status --verbose", "unknown option --verbose"),
    ])
    func badArguments(text: String, expected: String) {
        var watch = WatchModel(topology: Self.topology, boot: "b")
        let result = watch.handle(commandText: text, now: .zero)
        expect(!result.ok)
        expect(result.reply.contains(expected), "reply was: \(result.reply)")
        expect(result.actions.isEmpty)
    }

    @Test("help lists every command of the grammar")
    func help() {
        var watch = WatchModel(topology: Self.topology, boot: "b")
        let reply = watch.handle(commandText: "help", now: .zero).reply
        for spec in WatchModel.commands { expect(reply.contains(spec.verb)) }
    }

    /// The options a command's usage names (`[--every D]`).
    static func options(_ spec: CommandSpec) -> [String] {
        spec.usage.matches(of: /--([a-z0-9][a-z0-9-]*)/).map { String($0.output.1) }
    }

    @Test("the command table is the one authority: every option its usage names is taken by the node and documented on its row; any other is refused with a suggestion")  // R: K6
    func tableIsTheAuthority() throws {
        let doc = try DocsTests.doc("COMMANDS.md")
        // The node's own section first, then what both nodes share.
        var sections: [String: [Substring]] = [:]
        for part in doc.components(separatedBy: "\n## ").dropFirst() {
            let title = String(part.prefix { $0 != "\n" })
            sections[title] = part.split(separator: "\n").filter { $0.hasPrefix("| `") }
        }
        func check(_ node: NodeName, _ specs: [CommandSpec], _ run: (String) -> CommandResult) {
            let rows = (sections[node == .watch ? "Watch" : "Phone"] ?? []) + (sections["Both nodes"] ?? []) + (sections["WatchConnectivity (both nodes)"] ?? [])
            expect(!rows.isEmpty, "\(node): no section in docs/COMMANDS.md")
            for spec in specs {
                expectEqual(spec.options, Set(Self.options(spec)), "\(spec.verb): the options found once are the usage's")
                let row = rows.first { row in
                    let cell = row.dropFirst(2).prefix { $0 != "|" }
                    return cell.contains("`\(spec.verb) ") || cell.contains("`\(spec.verb)`")
                }
                expect(row != nil, "\(node) \(spec.verb): no row in docs/COMMANDS.md")
                for option in Self.options(spec) {
                    expectEqual(row?.contains("--\(option)"), true, "\(node) \(spec.verb) --\(option): not on its docs row")
                    let reply = run("\(spec.verb) --\(option)=1").reply
                    expect(!reply.contains("unknown option"), "\(node) \(spec.verb) --\(option): \(reply)")
                }
                let typo = Self.options(spec).first.map { String($0.dropLast()) + "x" } ?? "bogus"
                let refused = run("\(spec.verb) --\(typo)=1")
                expect(!refused.ok && refused.reply.contains("unknown option --\(typo)"), "\(node) \(spec.verb): \(refused.reply)")
                if let first = Self.options(spec).first {
                    expect(refused.reply.contains("did you mean --\(first)?"), "\(node) \(spec.verb): \(refused.reply)")
                }
            }
        }
        check(.watch, WatchModel.commands) { text in
            var watch = WatchModel(topology: Self.topology, boot: "w")
            return watch.handle(commandText: text, now: .zero)
        }
        check(.phone, PhonePlatform.commands) { text in
            var phone = PhonePlatform(topology: Self.topology, boot: "p")
            return phone.handle(commandText: text, now: .zero)
        }
    }
}
