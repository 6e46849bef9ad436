import Foundation
internal import PairSimCore

/// The app's clock: emulated time, the same in a real node and in the simulator (R: A5). Read
/// `now` instead of `Date()`, and sleep on it instead of `Task.sleep`.
public struct AppClock: Clock, Sendable {
    /// A point in emulated time.
    public struct Instant: InstantProtocol, Sendable {
        /// Milliseconds since the topology's epoch.
        public let milliseconds: Int64
        public func advanced(by duration: Duration) -> Instant {
            Instant(milliseconds: milliseconds + Int64(duration.components.seconds) * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000)
        }
        public func duration(to other: Instant) -> Duration { .milliseconds(other.milliseconds - milliseconds) }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.milliseconds < rhs.milliseconds }
        /// As a `Date`: what the device's clock reads at this instant (its offset and drift,
        /// docs/TOPOLOGY.md#device-clocks), as `Date()` would have then; the epoch is 1 January 1970.
        public var date: Date {
            let reading = AppRuntime.current?.clock.reading(at: EmulatedInstant(milliseconds: milliseconds)).milliseconds ?? milliseconds
            return Date(timeIntervalSince1970: TimeInterval(reading) / 1_000)
        }
    }

    public init() {}

    public var now: Instant { Instant(milliseconds: AppRuntime.require("AppClock.now").now.milliseconds) }
    /// Now, as a `Date`.
    public var date: Date { now.date }
    public var minimumResolution: Duration { .milliseconds(1) }

    /// Suspends the task until emulated time reaches `deadline` (cancellation ends it early).
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let runtime = AppRuntime.require("AppClock.sleep")
        let box = TimerBox()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                box.continuation = continuation
                box.id = runtime.schedule(at: EmulatedInstant(milliseconds: deadline.milliseconds)) {
                    box.resume(with: .success(()))
                }
            }
        } onCancel: {
            box.resume(with: .failure(CancellationError()))
        }
    }

    /// Runs `body` after `delay` of emulated time (closure style, like `DispatchQueue.asyncAfter`).
    /// Returns a handle for `cancel`.
    @discardableResult
    public func schedule(after delay: Duration, _ body: @escaping () -> Void) -> Int {
        let runtime = AppRuntime.require("AppClock.schedule")
        return runtime.schedule(at: EmulatedInstant(milliseconds: now.advanced(by: delay).milliseconds), body)
    }

    /// Cancels a `schedule(after:_:)` that has not run yet.
    public func cancel(_ handle: Int) { AppRuntime.require("AppClock.cancel").cancelTimer(handle) }
}

/// A continuation resumed once, by the timer or by cancellation.
final class TimerBox: @unchecked Sendable {
    // @unchecked: touched on the driver's thread, except `onCancel`, which takes the lock.
    let lock = NSLock()
    var continuation: CheckedContinuation<Void, Error>?
    var id: Int?

    func resume(with result: Result<Void, Error>) {
        lock.lock()
        let continuation = self.continuation
        self.continuation = nil
        lock.unlock()
        continuation?.resume(with: result)
    }
}

/// The app's own log and cost counters (R: A7): events it logs are marked as the app's in
/// PairSim's event log; counters appear in `status`, `node.stopped` and summary.json.
public enum AppLog {
    /// A value in an event's field.
    public enum Value: Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
        case string(String), int(Int), double(Double), bool(Bool), null
        public init(stringLiteral value: String) { self = .string(value) }
        public init(integerLiteral value: Int) { self = .int(value) }
        public init(booleanLiteral value: Bool) { self = .bool(value) }

        /// As the readable log shows it.
        public var text: String { Event.humanValue(json) }

        var json: JSON {
            switch self {
            case .string(let s): .string(s)
            case .int(let i): .int(Int64(i))
            case .double(let d): .double(d)
            case .bool(let b): .bool(b)
            case .null: .null
            }
        }
    }

    /// Logs event `name` with `fields` in this order.
    public static func event(_ name: String, _ fields: KeyValuePairs<String, Value> = [:], warning: Bool = false) {
        event(name, fields.map { ($0.key, $0.value) }, warning: warning)
    }

    /// Logs event `name` with `fields` in this order.
    public static func event(_ name: String, _ fields: [(String, Value)], warning: Bool = false) {
        var object = JSONObject()
        for (key, value) in fields { object.append(key, value.json) }
        AppRuntime.require("AppLog.event").send(.log(name: name, level: warning ? .warning : .info, fields: object))
    }

    /// Adds `amount` to the app's counter `name` (e.g. `refresh.foreground`, `tabReloads`).
    public static func count(_ name: String, _ amount: Int = 1) {
        AppRuntime.require("AppLog.count").send(.count(name, amount))
    }
}

/// The app's user defaults (`UserDefaults.standard` on a device): kept by the platform across
/// launches and node restarts, for property-list values — strings, numbers, booleans, `Data`,
/// `Date`, and arrays and dictionaries of them — with `UserDefaults`' methods. (Linux's Foundation
/// has a `UserDefaults` of its own, shared by every process of the user: PairSim's name cannot be
/// Apple's here; docs/APPS.md.)
public struct AppDefaults: Sendable {
    public static let standard = AppDefaults()

    var values: JSONObject { AppRuntime.require("AppDefaults").defaults }

    public func object(forKey key: String) -> Any? { values[key].flatMap(Self.plist) }
    public func string(forKey key: String) -> String? { values[key]?.stringValue }
    public func integer(forKey key: String) -> Int { Int(values[key]?.intValue ?? 0) }
    public func double(forKey key: String) -> Double { values[key]?.doubleValue ?? 0 }
    public func bool(forKey key: String) -> Bool { values[key]?.boolValue ?? false }
    public func data(forKey key: String) -> Data? { object(forKey: key) as? Data }
    public func array(forKey key: String) -> [Any]? { object(forKey: key) as? [Any] }
    public func stringArray(forKey key: String) -> [String]? { object(forKey: key) as? [String] }
    public func dictionary(forKey key: String) -> [String: Any]? { object(forKey: key) as? [String: Any] }

    public func set(_ value: String?, forKey key: String) { store(value.map(JSON.string), key) }
    public func set(_ value: Int, forKey key: String) { store(.int(Int64(value)), key) }
    public func set(_ value: Double, forKey key: String) { store(.double(value), key) }
    public func set(_ value: Bool, forKey key: String) { store(.bool(value), key) }
    /// Any property-list value; anything else is refused (`app.misbehaved kind=unsupported`), as
    /// `UserDefaults` refuses a non-property-list object.
    public func set(_ value: Any?, forKey key: String) {
        guard let value else { return store(nil, key) }
        guard let json = Self.json(value) else {
            return AppRuntime.require("AppDefaults.set").report("unsupported", "AppDefaults.set: \(type(of: value)) is not a property-list value (key \(key))")
        }
        store(json, key)
    }
    public func removeObject(forKey key: String) { store(nil, key) }

    func store(_ value: JSON?, _ key: String) {
        let runtime = AppRuntime.require("AppDefaults.set")
        runtime.defaults[key] = value
        runtime.send(.setDefault(key: key, value: value))
    }

    /// A property-list value as JSON: `Data` and `Date` as one-member objects naming them.
    static func json(_ value: Any) -> JSON? {
        switch value {
        case let value as String: return .string(value)
        case let value as Bool: return .bool(value)
        case let value as Int: return .int(Int64(value))
        case let value as Int64: return .int(value)
        case let value as Double: return .double(value)
        case let value as Float: return .double(Double(value))
        case let value as Data: return .object(["$data": .string(value.base64EncodedString())])
        case let value as Date: return .object(["$date": .double(value.timeIntervalSince1970)])
        case let value as [Any]:
            var items: [JSON] = []
            for item in value { guard let json = json(item) else { return nil }; items.append(json) }
            return .array(items)
        case let value as [String: Any]:
            var object = JSONObject()
            for key in value.keys.sorted() { guard let json = json(value[key]!) else { return nil }; object.append(key, json) }
            return .object(object)
        default: return nil
        }
    }

    static func plist(_ json: JSON) -> Any? {
        switch json {
        case .string(let s): return s
        case .int(let i): return Int(i)
        case .double(let d): return d
        case .bool(let b): return b
        case .null: return nil
        case .array(let items): return items.compactMap(plist)
        case .object(let object):
            if object.count == 1, let text = object["$data"]?.stringValue { return Data(base64Encoded: text) }
            if object.count == 1, let seconds = object["$date"]?.doubleValue { return Date(timeIntervalSince1970: seconds) }
            var dictionary: [String: Any] = [:]
            for member in object.members { dictionary[member.key] = plist(member.value) }
            return dictionary
        }
    }
}

/// What a notification says (`UNNotificationContent`): a class, as Apple's is, so the content a
/// request holds is a copy taken when the request was made.
open class UNNotificationContent: @unchecked Sendable {
    // @unchecked: as Apple's NSObject subclass, it is not made for sharing across threads.
    public internal(set) var title = ""
    public internal(set) var subtitle = ""
    public internal(set) var body = ""
    /// Extra values, shown (as text) in the `notification.posted` event (e.g. `["uuid": …]`).
    public internal(set) var userInfo: [AnyHashable: Any] = [:]

    public init() {}

    init(copying other: UNNotificationContent) {
        title = other.title
        subtitle = other.subtitle
        body = other.body
        userInfo = other.userInfo
    }
}

/// Content to fill in (`UNMutableNotificationContent`): `let content = UNMutableNotificationContent()`,
/// then set its properties, as Apple's documentation writes it.
open class UNMutableNotificationContent: UNNotificationContent, @unchecked Sendable {
    public override var title: String { get { super.title } set { super.title = newValue } }
    public override var subtitle: String { get { super.subtitle } set { super.subtitle = newValue } }
    public override var body: String { get { super.body } set { super.body = newValue } }
    public override var userInfo: [AnyHashable: Any] { get { super.userInfo } set { super.userInfo = newValue } }

    public override init() { super.init() }
}

/// A notification to post (`UNNotificationRequest`); PairSim posts at once (no trigger).
public final class UNNotificationRequest: @unchecked Sendable {
    public let identifier: String
    public let content: UNNotificationContent
    /// Differs: `trigger` must be nil: PairSim posts at once (no `UNNotificationTrigger`).
    public init(identifier: String, content: UNNotificationContent, trigger: Never? = nil) {
        self.identifier = identifier
        self.content = UNNotificationContent(copying: content)
    }
}

/// The notification centre (`UNUserNotificationCenter`).
public final class UNUserNotificationCenter: Sendable {
    static let shared = UNUserNotificationCenter()
    public static func current() -> UNUserNotificationCenter { shared }

    /// Posts the notification (R: D6): the platform logs `notification.posted`.
    public func add(_ request: UNNotificationRequest, withCompletionHandler completion: ((Error?) -> Void)? = nil) {
        var info = JSONObject()
        let userInfo = request.content.userInfo.map { (key: String(describing: $0.key), value: String(describing: $0.value)) }
        for member in userInfo.sorted(by: { $0.key < $1.key }) { info.append(member.key, .string(member.value)) }
        AppRuntime.require("UNUserNotificationCenter.add").send(.postNotification(title: request.content.title, body: request.content.body, info: info))
        completion?(nil)
    }
}

/// Emulated time as PairSim's logs write it, for an app's own events.
public enum AppTime {
    /// A duration as the logs write it: `1m30s`, `150ms`.
    public static func text(_ duration: Duration) -> String {
        EmulatedDuration.milliseconds(Int64(duration.components.seconds) * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000).description
    }

    /// An instant as the logs write it: `00:02:03.450`, `1d 07:40:00.000`.
    public static func text(_ instant: AppClock.Instant) -> String { EmulatedInstant(milliseconds: instant.milliseconds).description }

    /// Seconds in a duration written as PairSim writes them (`30m`, `1h30m`, `90s`), or nil.
    public static func duration(_ text: String) -> TimeInterval? {
        EmulatedDuration(parsing: text).map { TimeInterval($0.milliseconds) / 1_000 }
    }

    /// A date (emulated) as the logs write it.
    public static func text(_ date: Date) -> String { date.instant.description }
}

/// PairSim's own: the app's settings from the topology (`phone.app.settings`, `watch.app.settings`),
/// so one build of an app can be played with different knobs — a threshold, a delay, a feature
/// flag — from scenarios and topologies alone. Read-only; a missing key reads as nil (or false, 0).
public struct AppSettings: Sendable {
    /// The running app's settings.
    public static var standard: AppSettings { AppSettings() }

    var values: JSONObject { AppRuntime.require("AppSettings").settings }

    /// Every setting by name, as Foundation values (`String`, `Int`, `Double`, `Bool`).
    public func dictionaryRepresentation() -> [String: Any] {
        var all: [String: Any] = [:]
        for member in values.members { all[member.key] = object(forKey: member.key) }
        return all
    }

    public func object(forKey key: String) -> Any? {
        switch values[key] {
        case .string(let text)?: text
        case .int(let number)?: Int(number)
        case .double(let number)?: number
        case .bool(let flag)?: flag
        default: nil
        }
    }

    public func string(forKey key: String) -> String? {
        switch values[key] {
        case .string(let text)?: text
        case .int(let number)?: String(number)
        case .double(let number)?: String(number)
        case .bool(let flag)?: String(flag)
        default: nil
        }
    }

    public func integer(forKey key: String) -> Int {
        switch values[key] {
        case .int(let number)?: Int(number)
        case .double(let number)?: Int(number)
        default: 0
        }
    }

    public func double(forKey key: String) -> Double {
        switch values[key] {
        case .int(let number)?: Double(number)
        case .double(let number)?: number
        default: 0
        }
    }

    public func bool(forKey key: String) -> Bool {
        if case .bool(let flag)? = values[key] { return flag }
        return false
    }
}
