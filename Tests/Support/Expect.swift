import Testing

// `expect(condition)` and `expectEqual(actual, expected)` as plain functions, for PairSim's own tests.
//
// Swift Testing's `#expect` expands at every call into a check with closures that the compiler then
// type-checks. PairSim's tests make 1,600 such calls, and compiling them was over a third of the test targets'
// build. Measured here: compiling the nine test targets took 95.7 s of CPU with the macro and 59.7 s
// with these functions (the type-checking of EndToEndTests alone went from 9.9 s to 4.6 s). That is
// about 18 s of CI's 5 minutes on 2 cores.
//
// What a failure says: `expectEqual` shows both values, as the macro does; `expect` shows its
// comment. Neither shows the subexpressions' values, which the macro does: write a comment, or
// compare with `expectEqual`, where that helps. `#expect(throws:)` and `#require` stay macros (a
// hundred calls).

/// Records an issue at the caller's line when `condition` is false.
public func expect(_ condition: Bool, _ comment: @autoclosure () -> Comment? = nil,
                   fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column) {
    guard !condition else { return }
    var text = "Expectation failed"
    if let comment = comment() { text += ": \(comment.rawValue)" }
    Issue.record(Comment(rawValue: text), sourceLocation: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
}

/// Records an issue at the caller's line, with both values, when `actual` is not `expected`.
public func expectEqual<T: Equatable>(_ actual: T, _ expected: T, _ comment: @autoclosure () -> Comment? = nil,
                                      fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column) {
    guard actual != expected else { return }
    record(String(reflecting: actual), String(reflecting: expected), comment(),
           SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
}

/// `expectEqual` for pairs (tuples are not `Equatable`).
public func expectEqual<A: Equatable, B: Equatable>(_ actual: (A, B), _ expected: (A, B), _ comment: @autoclosure () -> Comment? = nil,
                                                    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column) {
    guard actual != expected else { return }
    record("\(actual)", "\(expected)", comment(), SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
}

private func record(_ actual: String, _ expected: String, _ comment: Comment?, _ location: SourceLocation) {
    var text = "Expectation failed: \(actual) is not \(expected)"
    if let comment { text += ": \(comment.rawValue)" }
    Issue.record(Comment(rawValue: text), sourceLocation: location)
}
