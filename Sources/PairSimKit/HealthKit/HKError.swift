import Foundation
internal import PairSimCore

/// `HKErrorDomain`: the domain of HealthKit's `NSError`s.
public let HKErrorDomain = "com.apple.healthkit"

/// A HealthKit error (`HKError`), shaped as Apple's: a `CustomNSError` with `Code`, catchable as
/// `catch let error as HKError` and comparable as `error.code == .errorDatabaseInaccessible`.
public struct HKError: CustomNSError, Hashable, Sendable {
    /// `HKError.Code`, with Apple's numbers.
    public enum Code: Int, Hashable, Sendable {
        case noError = 0
        case errorHealthDataUnavailable = 1
        case errorHealthDataRestricted = 2
        case errorInvalidArgument = 3
        case errorAuthorizationDenied = 4
        case errorAuthorizationNotDetermined = 5
        case errorDatabaseInaccessible = 6
        case errorUserCanceled = 7
        case errorAnotherWorkoutSessionStarted = 8
        case errorUserExitedWorkoutSession = 9
        case errorRequiredAuthorizationDenied = 10
        case errorNoData = 11
        case errorWorkoutActivityNotAllowed = 12
        case errorDataSizeExceeded = 13
        case errorBackgroundWorkoutSessionNotAllowed = 14
        case errorNotPermissibleForGuestUserMode = 15
    }

    public let code: Code
    let message: String

    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        message = userInfo[NSLocalizedDescriptionKey] as? String ?? Self.defaultMessage(code)
    }

    /// An `NSError` of `HKErrorDomain` as an `HKError`.
    public init(_nsError error: NSError) {
        precondition(error.domain == HKErrorDomain, "Invalid state: \(error.domain) is not HealthKit's error domain")
        self.init(Code(rawValue: error.code) ?? .errorInvalidArgument, userInfo: error.userInfo)
    }

    /// The platform's error by its code's name (`errorDatabaseInaccessible`, …).
    init(_ name: String) {
        let code: Code = switch name {
        case "errorDatabaseInaccessible": .errorDatabaseInaccessible
        case "errorAuthorizationDenied": .errorAuthorizationDenied
        case "errorAuthorizationNotDetermined": .errorAuthorizationNotDetermined
        case "errorNoData": .errorNoData
        case "errorHealthDataUnavailable": .errorHealthDataUnavailable
        case "errorAnotherWorkoutSessionStarted": .errorAnotherWorkoutSessionStarted
        default: .errorInvalidArgument
        }
        self.code = code
        message = code == .errorInvalidArgument && name != "errorInvalidArgument" ? name : Self.defaultMessage(code)
    }

    public static var errorDomain: String { HKErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message] }
    public var localizedDescription: String { message }

    public static func == (lhs: HKError, rhs: HKError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    static func defaultMessage(_ code: Code) -> String {
        switch code {
        case .errorDatabaseInaccessible: "Protected health data is inaccessible"
        case .errorAuthorizationDenied: "Authorization is denied"
        case .errorAuthorizationNotDetermined: "Authorization is not determined"
        case .errorNoData: "No data available for the specified predicate."
        case .errorHealthDataUnavailable: "Health data is unavailable on this device"
        case .errorInvalidArgument: "Invalid argument"
        default: "HealthKit error \(code.rawValue)"
        }
    }

    // `HKError.errorDatabaseInaccessible` and the like, as the static members Apple's type has.
    public static var errorHealthDataUnavailable: Code { .errorHealthDataUnavailable }
    public static var errorHealthDataRestricted: Code { .errorHealthDataRestricted }
    public static var errorInvalidArgument: Code { .errorInvalidArgument }
    public static var errorAuthorizationDenied: Code { .errorAuthorizationDenied }
    public static var errorAuthorizationNotDetermined: Code { .errorAuthorizationNotDetermined }
    public static var errorDatabaseInaccessible: Code { .errorDatabaseInaccessible }
    public static var errorUserCanceled: Code { .errorUserCanceled }
    public static var errorNoData: Code { .errorNoData }
}

extension HKError: CustomStringConvertible {
    public var description: String { message }
}

extension QueryResult {
    /// Samples and workouts as public objects, or the error.
    var objects: Result<[HKSample], HKError> {
        switch self {
        case .objects(let samples, let workouts), .anchored(let samples, let workouts, _, _):
            return .success(workouts.map { HKWorkout(core: $0) } + samples.map { HKSample.of($0) })
        case .failed(let name):
            return .failure(HKError(name))
        }
    }
}
