/// Terminal colours, applied only when the caller decided colour is wanted (a terminal, or
/// `--color always` through the launcher's pipe).
enum ANSI {
    static func wrap(_ text: String, _ code: String) -> String { "\u{1B}[\(code)m\(text)\u{1B}[0m" }
    static func dim(_ text: String) -> String { wrap(text, "2") }
    static func bold(_ text: String) -> String { wrap(text, "1") }
    static func yellow(_ text: String) -> String { wrap(text, "33") }
    static func red(_ text: String) -> String { wrap(text, "31") }
    static func cyan(_ text: String) -> String { wrap(text, "36") }
    static func magenta(_ text: String) -> String { wrap(text, "35") }
}
