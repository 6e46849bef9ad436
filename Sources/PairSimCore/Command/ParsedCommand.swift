import Foundation

/// A command as typed: on a node's stdin, through its control socket, or in a scenario timeline.
public struct ParsedCommand: Hashable, Sendable {
    /// The verb, e.g. `start-workout`.
    public var verb: String
    /// Positional arguments in order.
    public var arguments: [String]
    /// `--name value` options (a bare `--flag` has the value "true").
    public var options: [String: String]

    public init(verb: String, arguments: [String] = [], options: [String: String] = [:]) {
        self.verb = verb
        self.arguments = arguments
        self.options = options
    }

    /// Splits `text` into words (single or double quotes group words) and options.
    public init(parsing text: String) throws(CommandError) {
        var words: [String] = []
        var current = ""
        var quote: Character?
        var inWord = false
        for character in text {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "\"" || character == "'" {
                quote = character
                inWord = true
            } else if character.isWhitespace {
                if inWord { words.append(current); current = ""; inWord = false }
            } else {
                current.append(character)
                inWord = true
            }
        }
        if quote != nil { throw CommandError("unterminated quote in \"\(text)\"") }
        if inWord { words.append(current) }
        guard let verb = words.first else { throw CommandError("empty command (try 'help')") }
        var arguments: [String] = []
        var options: [String: String] = [:]
        var index = 1
        while index < words.count {
            let word = words[index]
            if word.hasPrefix("--"), word.count > 2 {
                let name = String(word.dropFirst(2))
                if let equals = name.firstIndex(of: "=") {
                    options[String(name[..<equals])] = String(name[name.index(after: equals)...])
                } else if index + 1 < words.count, !words[index + 1].hasPrefix("--") {
                    options[name] = words[index + 1]
                    index += 1
                } else {
                    options[name] = "true"
                }
            } else {
                arguments.append(word)
            }
            index += 1
        }
        self.init(verb: verb.lowercased(), arguments: arguments, options: options)
    }

    /// Verbs whose first argument names a file (`import-health export.zip`).
    public static let pathVerbs: Set<String> = ["import-health"]

    /// The command with a relative file argument made absolute against `directory` (the scenario
    /// file's folder, or the working directory of whoever typed it), so a node finds the file
    /// whatever its own working directory.
    public func resolvingPaths(relativeTo directory: String) -> ParsedCommand {
        guard Self.pathVerbs.contains(verb), let path = arguments.first, !path.hasPrefix("/") else { return self }
        var resolved = self
        resolved.arguments[0] = path.hasPrefix("~") ? (path as NSString).expandingTildeInPath
            : ((directory + "/" + path) as NSString).standardizingPath
        return resolved
    }

    /// `word` as one word of a command line: quoted when it has spaces or quotes (single quotes
    /// around a word with double quotes in it, like a JSON payload, and the other way round). The
    /// grammar has no escapes, but quoted pieces next to each other make one word, so a word with
    /// both kinds is single-quoted with each `'` written as `'"'"'` (as a shell would).
    public static func quote(_ word: String) -> String {
        guard word.isEmpty || word.contains(where: { $0.isWhitespace || $0 == "\"" || $0 == "'" }) else { return word }
        if !word.contains("'") { return "'" + word + "'" }
        if !word.contains("\"") { return "\"" + word + "\"" }
        return "'" + word.replacingOccurrences(of: "'", with: "'\"'\"'") + "'"
    }

    /// The text form, re-parseable.
    public var text: String {
        var parts = [verb] + arguments.map(Self.quote)
        for key in options.keys.sorted() { parts.append("--\(key)=" + Self.quote(options[key]!)) }
        return parts.joined(separator: " ")
    }
}

/// A command that could not be understood or carried out; the text is the reply.
public struct CommandError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// One entry of a node's command grammar, for `help` and docs/COMMANDS.md.
public struct CommandSpec: Hashable, Sendable {
    public var verb: String
    /// Arguments as shown in help, e.g. `<activity> [exercise…]`.
    public var usage: String
    public var summary: String
    /// The options the usage names (`[--every D]` → `every`), found once: every command is
    /// checked against them, and matching a regex per command was ~20 % of a simulated week.
    public let options: Set<String>

    public init(_ verb: String, _ usage: String, _ summary: String) {
        self.verb = verb
        self.usage = usage
        self.summary = summary
        var options: Set<String> = []
        let bytes = Array(usage.utf8)
        var index = 0
        while index + 2 < bytes.count {
            if bytes[index] == 0x2D, bytes[index + 1] == 0x2D, index == 0 || bytes[index - 1] != 0x2D {
                var end = index + 2
                func allowed(_ c: UInt8, first: Bool) -> Bool { (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || (!first && c == 0x2D) }
                while end < bytes.count, allowed(bytes[end], first: end == index + 2) { end += 1 }
                if end > index + 2 { options.insert(String(decoding: bytes[(index + 2)..<end], as: UTF8.self)) }
                index = end
            } else {
                index += 1
            }
        }
        self.options = options
    }
}

/// Argument checking shared by the node grammars, with messages that name the command.
public struct ArgumentReader {
    public let line: ParsedCommand
    public let spec: CommandSpec

    public init(_ line: ParsedCommand, _ spec: CommandSpec) {
        self.line = line
        self.spec = spec
    }

    var usage: String { "usage: \(spec.verb)\(spec.usage.isEmpty ? "" : " " + spec.usage)" }

    /// Fails unless the positional count is within `range`, and no unknown option is present.
    /// `flags` are options that take no value (`--json`): `status --json extra` is refused, not
    /// read as `--json=extra`.
    public func expect(_ range: ClosedRange<Int>, options allowed: Set<String> = [], flags: Set<String> = []) throws(CommandError) {
        for key in line.options.keys.sorted() where !allowed.contains(key) && !flags.contains(key) {
            let suggestion = CommandGrammar.closest(key, in: allowed.union(flags))
            throw CommandError("\(spec.verb): unknown option --\(key)" + (suggestion.map { "; did you mean --\($0)?" } ?? "") + " (\(usage))")
        }
        for key in line.options.keys.sorted() where flags.contains(key) && line.options[key] != "true" {
            throw CommandError("\(spec.verb): --\(key) takes no value, got \"\(line.options[key]!.prefix(40))\" (\(usage))")
        }
        if !range.contains(line.arguments.count) {
            let want = range.lowerBound == range.upperBound ? "\(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)"
            throw CommandError("\(spec.verb): expected \(want) argument\(range.upperBound == 1 ? "" : "s"), got \(line.arguments.count) (\(usage))")
        }
    }

    /// An app's user action: only the options its usage names (`[--duration D]`) are taken.
    public static func checkOptions(_ line: ParsedCommand, _ spec: CommandSpec) throws(CommandError) {
        let named = spec.options
        guard !line.options.isEmpty else { return }
        for key in line.options.keys.sorted() where !named.contains(key) {
            let suggestion = CommandGrammar.closest(key, in: named)
            let usage = spec.usage.isEmpty ? spec.verb : "\(spec.verb) \(spec.usage)"
            throw CommandError("\(spec.verb): unknown option --\(key)" + (suggestion.map { "; did you mean --\($0)?" } ?? "") + " (\(usage))")
        }
    }

    public func argument(_ index: Int) -> String? {
        index < line.arguments.count ? line.arguments[index] : nil
    }

    /// Argument `index` as a number within `range`.
    public func number(_ index: Int, name: String, in range: ClosedRange<Double>) throws(CommandError) -> Double {
        guard let text = argument(index) else { throw CommandError("\(spec.verb): missing \(name) (\(usage))") }
        guard let value = Double(text), value.isFinite else {
            throw CommandError("\(spec.verb): \(name) must be a number, got \"\(text)\"")
        }
        guard range.contains(value) else {
            throw CommandError("\(spec.verb): \(name) \(text) is outside \(Self.show(range.lowerBound))…\(Self.show(range.upperBound))")
        }
        return value
    }

    /// Argument `index` as a positive integer within `range`.
    public func integer(_ index: Int, name: String, in range: ClosedRange<Int>) throws(CommandError) -> Int {
        guard let text = argument(index) else { throw CommandError("\(spec.verb): missing \(name) (\(usage))") }
        guard let value = Int(text), range.contains(value) else {
            throw CommandError("\(spec.verb): \(name) must be a whole number in \(range.lowerBound)…\(range.upperBound), got \"\(text)\"")
        }
        return value
    }

    /// Argument `index` as one of `choices`.
    public func choice(_ index: Int, name: String, from choices: [String]) throws(CommandError) -> String {
        guard let text = argument(index) else {
            throw CommandError("\(spec.verb): missing \(name) (one of: \(choices.joined(separator: ", ")))")
        }
        guard choices.contains(text) else {
            throw CommandError("\(spec.verb): unknown \(name) \"\(text)\" (one of: \(choices.joined(separator: ", ")))")
        }
        return text
    }

    /// Option `--name` as a duration.
    public func duration(option name: String) throws(CommandError) -> EmulatedDuration? {
        guard let text = line.options[name] else { return nil }
        guard let duration = EmulatedDuration(parsing: text) else {
            throw CommandError("\(spec.verb): --\(name) must be a duration like 30s, 5m or 1h, got \"\(text)\"")
        }
        return duration
    }

    static func show(_ value: Double) -> String {
        value.rounded() == value ? String(Int64(value)) : String(value)
    }
}

/// Looks up a verb in a grammar, suggesting the closest spelling for typos.
public enum CommandGrammar {
    public static func spec(for verb: String, in specs: [CommandSpec], node: NodeName) throws(CommandError) -> CommandSpec {
        if let spec = specs.first(where: { $0.verb == verb }) { return spec }
        let suggestion = specs.map(\.verb).min { editDistance($0, verb) < editDistance($1, verb) }
        var message = "unknown \(node) command \"\(verb)\""
        if let suggestion, editDistance(suggestion, verb) <= 3 { message += "; did you mean \"\(suggestion)\"?" }
        throw CommandError(message + " (try 'help')")
    }

    /// The `help` text for a grammar.
    public static func help(_ specs: [CommandSpec], node: NodeName) -> String {
        let width = specs.map { ($0.verb + " " + $0.usage).count }.max() ?? 0
        var lines = ["\(node) commands:"]
        for spec in specs {
            let head = spec.usage.isEmpty ? spec.verb : "\(spec.verb) \(spec.usage)"
            lines.append("  " + head + String(repeating: " ", count: max(1, width - head.count + 2)) + spec.summary)
        }
        return lines.joined(separator: "\n")
    }

    /// The closest of `candidates` to `word`, when close enough to suggest.
    static func closest(_ word: String, in candidates: Set<String>) -> String? {
        let best = candidates.sorted().min { editDistance($0, word) < editDistance($1, word) }
        return best.flatMap { editDistance($0, word) <= 3 ? $0 : nil }
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

/// What a command did: the reply text for the user, and the model's actions.
public struct CommandResult: Hashable, Sendable {
    public var ok: Bool
    public var reply: String
    public var actions: [NodeAction]

    public init(ok: Bool, reply: String, actions: [NodeAction] = []) {
        self.ok = ok
        self.reply = reply
        self.actions = actions
    }

    public static func failure(_ error: CommandError) -> CommandResult {
        CommandResult(ok: false, reply: error.message)
    }
}
