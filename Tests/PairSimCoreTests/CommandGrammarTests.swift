import Testing
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
        #expect(line.verb == "start-workout")
        #expect(line.arguments == ["strength", "Bench Press", "squat"])
        #expect(line.options == ["no-builder": "true", "at": "5m"])
    }

    @Test("a quoted word parses back to itself: JSON payloads, names with spaces or apostrophes")  // R: P3, X1
    func quoteRoundTrip() throws {
        for word in [#"{"event":"hello","n":[1,2]}"#, "Bench Press", "it's", "", "plain", #"{"a":"b c"}"#, #"{"note":"it's"}"#] {
            let line = try ParsedCommand(parsing: "wc-send " + ParsedCommand.quote(word))
            #expect(line.arguments == [word], "\(word) → \(ParsedCommand.quote(word))")
        }
        for text in [#"wc-send '{"a":1}' --no-reply"#, #"wc-file run.gpx --metadata '{"k":"v w"}' --size 10"#] {
            let parsed = try ParsedCommand(parsing: text)
            #expect(try ParsedCommand(parsing: parsed.text) == parsed, "\(text) → \(parsed.text)")
        }
    }

    @Test("refuses empty input and open quotes", arguments: ["", "   ", "say \"hello"])
    func refusesBadText(text: String) {
        #expect(throws: CommandError.self) { try ParsedCommand(parsing: text) }
    }

    @Test("an unknown command suggests the closest one")  // R: P3
    func suggests() {
        var watch = WatchModel(topology: Self.topology, boot: "b")
        let result = watch.handle(commandText: "fnish-workout", now: .zero)
        #expect(!result.ok)
        #expect(result.reply.contains("did you mean \"finish-workout\""))
    }

    // R: P3
    @Test("bad arguments get a clear error naming the command", arguments: [
        ("start-workout", "expected"),
        ("start-workout swim", "unknown activity \"swim\""),
        ("pause", "no running session"),
        ("finish-workout", "no session in progress"),
        ("finish-workout now", "expected 0 arguments"),
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
        #expect(!result.ok)
        #expect(result.reply.contains(expected), "reply was: \(result.reply)")
        #expect(result.actions.isEmpty)
    }

    @Test("help lists every command of the grammar")
    func help() {
        var watch = WatchModel(topology: Self.topology, boot: "b")
        let reply = watch.handle(commandText: "help", now: .zero).reply
        for spec in WatchModel.commands { #expect(reply.contains(spec.verb)) }
    }
}
