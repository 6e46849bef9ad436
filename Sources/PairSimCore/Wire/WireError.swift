/// Why a frame from the wire was refused. Reported as a `wire.rejected` event with `code` and
/// `reason`; the node keeps running.
public struct WireError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The class of fault, stable for counters and tests.
    public enum Code: String, Hashable, Sendable, CaseIterable {
        /// Not exactly two frames.
        case frameCount = "frame-count"
        /// Topic frame not one of the documented topics.
        case unknownTopic = "unknown-topic"
        /// Envelope larger than the configured limit.
        case oversized
        /// Envelope is not valid JSON (includes truncated frames).
        case notJSON = "not-json"
        /// Envelope `v` is not a version this node speaks.
        case unsupportedVersion = "unsupported-version"
        /// A required envelope field is missing or malformed.
        case badEnvelope = "bad-envelope"
        /// The body does not match its kind (bad UUID, negative time, too many items…).
        case badBody = "bad-body"
    }

    public var code: Code
    /// What and where, e.g. `body.samples[3].uuid: invalid UUID "x"`.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

/// Limits on what a node accepts from the wire.
public struct WireLimits: Hashable, Sendable {
    /// Largest envelope frame, in bytes.
    public var maxEnvelopeBytes: Int
    /// Most items (samples, workouts, records, deletions) in one message.
    public var maxItemsPerMessage: Int

    public init(maxEnvelopeBytes: Int = 4 << 20, maxItemsPerMessage: Int = 20_000) {
        self.maxEnvelopeBytes = maxEnvelopeBytes
        self.maxItemsPerMessage = maxItemsPerMessage
    }

    public static let `default` = WireLimits()
}
