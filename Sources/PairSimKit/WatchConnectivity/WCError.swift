import Foundation
internal import PairSimCore

/// `WCErrorDomain`: the domain of WatchConnectivity's `NSError`s.
public let WCErrorDomain = "WCErrorDomain"

/// A WatchConnectivity error (`WCError`), shaped as Apple's: a `CustomNSError` whose `Code` has
/// Apple's numbers (WCError.h: 7001 …), catchable as `catch let error as WCError` and compared as
/// `error.code == .notReachable` or `(error as NSError).code == WCError.notReachable.rawValue`.
public struct WCError: CustomNSError, Hashable, CustomStringConvertible, Sendable {
    /// `WCError.Code`, with Apple's numbers.
    public enum Code: Int, Hashable, Sendable {
        case genericError = 7001, sessionNotSupported = 7002, sessionMissingDelegate = 7003, sessionNotActivated = 7004
        case deviceNotPaired = 7005, watchAppNotInstalled = 7006, notReachable = 7007, invalidParameter = 7008
        case payloadTooLarge = 7009, payloadUnsupportedTypes = 7010, messageReplyFailed = 7011, messageReplyTimedOut = 7012
        case fileAccessDenied = 7013, deliveryFailed = 7014, insufficientSpace = 7015, sessionInactive = 7016
        case transferTimedOut = 7017, companionAppNotInstalled = 7018, watchOnlyApp = 7019
    }

    public let code: Code
    let message: String

    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        message = userInfo[NSLocalizedDescriptionKey] as? String ?? Self.defaultMessage(code)
    }

    /// An `NSError` of `WCErrorDomain` as a `WCError`.
    public init(_nsError error: NSError) {
        precondition(error.domain == WCErrorDomain, "Invalid state: \(error.domain) is not WatchConnectivity's error domain")
        self.init(Code(rawValue: error.code) ?? .genericError, userInfo: error.userInfo)
    }

    /// The platform's error by its code's name (`notReachable`, …); `transferCancelled` (a
    /// cancelled transfer: Apple names no code for it) is not one — see `cancelled(_:)`.
    static func platform(_ name: String) -> Error {
        let code: Code? = switch name {
        case "notReachable": .notReachable
        case "deliveryFailed": .deliveryFailed
        case "messageReplyTimedOut": .messageReplyTimedOut
        case "sessionNotActivated": .sessionNotActivated
        case "payloadTooLarge": .payloadTooLarge
        case "payloadUnsupportedTypes": .payloadUnsupportedTypes
        default: nil
        }
        if let code { return WCError(code) }
        if name == "transferCancelled" { return CocoaError(.userCancelled) }
        return WCError(.genericError, userInfo: [NSLocalizedDescriptionKey: name])
    }

    public static var errorDomain: String { WCErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message] }
    public var localizedDescription: String { message }
    public var description: String { "WCError.\(code) (\(code.rawValue)): \(message)" }

    public static func == (lhs: WCError, rhs: WCError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    static func defaultMessage(_ code: Code) -> String {
        switch code {
        case .notReachable: "WatchConnectivity session on paired device is not reachable."
        case .sessionNotActivated: "WatchConnectivity session has not been activated."
        case .payloadTooLarge: "Payload is too large."
        case .payloadUnsupportedTypes: "Payload contains unsupported type."
        case .messageReplyTimedOut: "Message reply took too long."
        case .deliveryFailed: "Delivery to the paired device failed."
        default: "WatchConnectivity error \(code.rawValue)"
        }
    }

    // `WCError.notReachable` and the like, as the static members Apple's type has.
    public static var genericError: Code { .genericError }
    public static var sessionNotSupported: Code { .sessionNotSupported }
    public static var sessionMissingDelegate: Code { .sessionMissingDelegate }
    public static var sessionNotActivated: Code { .sessionNotActivated }
    public static var deviceNotPaired: Code { .deviceNotPaired }
    public static var watchAppNotInstalled: Code { .watchAppNotInstalled }
    public static var notReachable: Code { .notReachable }
    public static var invalidParameter: Code { .invalidParameter }
    public static var payloadTooLarge: Code { .payloadTooLarge }
    public static var payloadUnsupportedTypes: Code { .payloadUnsupportedTypes }
    public static var messageReplyFailed: Code { .messageReplyFailed }
    public static var messageReplyTimedOut: Code { .messageReplyTimedOut }
    public static var fileAccessDenied: Code { .fileAccessDenied }
    public static var deliveryFailed: Code { .deliveryFailed }
    public static var insufficientSpace: Code { .insufficientSpace }
    public static var sessionInactive: Code { .sessionInactive }
    public static var transferTimedOut: Code { .transferTimedOut }
    public static var companionAppNotInstalled: Code { .companionAppNotInstalled }
    public static var watchOnlyApp: Code { .watchOnlyApp }
}
