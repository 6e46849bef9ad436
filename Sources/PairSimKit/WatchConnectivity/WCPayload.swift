import Foundation
internal import PairSimCore

/// Property-list dictionaries ⇄ JSON (R: F6): strings, numbers, booleans, arrays, dictionaries,
/// dates and data cross and arrive as what was sent — a date as `{"$date": seconds since 1970}`,
/// data as `{"$data": base64}` on the wire; anything else (`NSNull`, `UUID`, your own types) is
/// refused with `payloadUnsupportedTypes`, as WatchConnectivity refuses it on a device.
enum WCPayload {
    static func json(_ dictionary: [String: Any]) -> JSONObject? {
        var object = JSONObject()
        for key in dictionary.keys.sorted() {
            guard let value = value(dictionary[key]!) else { return nil }
            object.append(key, value)
        }
        return object
    }

    static func value(_ any: Any) -> JSON? {
        switch any {
        case let text as String: return .string(text)
        case let flag as Bool: return .bool(flag)
        case let number as Int: return .int(Int64(number))
        case let number as Int64: return .int(number)
        case let number as Double: return .double(number)
        case let date as Date: return .object(["$date": .double(date.timeIntervalSince1970)])
        case let data as Data: return .object(["$data": .string(data.base64EncodedString())])
        case let array as [Any]:
            var items: [JSON] = []
            for item in array {
                guard let json = value(item) else { return nil }
                items.append(json)
            }
            return .array(items)
        case let dictionary as [String: Any]: return json(dictionary).map(JSON.object)
        default: return nil
        }
    }

    static func dictionary(_ object: JSONObject) -> [String: Any] {
        var result: [String: Any] = [:]
        for member in object.members { result[member.key] = any(member.value) }
        return result
    }

    /// The bytes of a data message's `{"data": base64}`.
    static func data(_ object: JSONObject) -> Data {
        object["data"]?.stringValue.flatMap { Data(base64Encoded: $0) } ?? Data()
    }

    /// A file's metadata: nil when there was none.
    static func metadata(_ object: JSONObject) -> [String: Any]? {
        object.count == 0 ? nil : dictionary(object)
    }

    static func any(_ json: JSON) -> Any {
        switch json {
        case .null: return NSNull()
        case .bool(let flag): return flag
        case .int(let number): return Int(number)
        case .double(let number): return number
        case .string(let text): return text
        case .array(let items): return items.map(any)
        case .object(let object):
            if object.count == 1, let seconds = object["$date"]?.doubleValue { return Date(timeIntervalSince1970: seconds) }
            if object.count == 1, let base64 = object["$data"]?.stringValue, let data = Data(base64Encoded: base64) { return data }
            return dictionary(object)
        }
    }
}
