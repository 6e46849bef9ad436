import Foundation
import Testing
import TestSupport
@testable import PairSimCore

/// What docs/PROTOCOL.md answers for a client written from it alone (R: K5): each test feeds a
/// phone what a sentence of the page allows or forbids, written by hand as such a client would.
@Suite("docs/PROTOCOL.md's answers for a foreign client")
struct ProtocolAnswersTests {
    /// A phone taking frames; `code` is the refusal's, nil when the frame was taken.
    struct Phone {
        var platform = PhonePlatform(topology: CommandGrammarTests.topology, boot: "p1")
        var now = EmulatedInstant(milliseconds: 5_000)

        mutating func code(_ topic: String, _ envelope: String) -> String? {
            code([Array(topic.utf8), Array(envelope.utf8)])
        }

        mutating func code(_ frames: [[UInt8]]) -> String? {
            now += .milliseconds(1)
            for case .emit(let event) in platform.receive(frames: frames, now: now) where event.name == EventName.wireRejected.rawValue {
                return event["code"]?.stringValue
            }
            return nil
        }
    }

    static let workout = #"{"uuid":"6F1C2B7E-0D8A-4C55-9E3B-2A1D4C5E6F70","activity":"running","start":0,"end":600000,"activeDuration":600000,"activeEnergy":null,"source":"watch-app"}"#

    static func objects(stream: String = "w.hk", seq: String = "1", body: String = #"{"workouts":[\#(workout)]}"#, extra: String = "") -> String {
        #"{"v":1,"from":"watch","stream":"\#(stream)","seq":\#(seq),"sentAt":0,"channel":"healthkit","kind":"objects"\#(extra),"body":\#(body)}"#
    }

    static func ack(_ body: String) -> String {
        #"{"v":1,"from":"watch","stream":"p1.hk","seq":0,"sentAt":0,"channel":"healthkit","kind":"ack","body":\#(body)}"#
    }

    @Test("\"Every object's keys are the ones this page lists for it\": an unknown key is refused, in the envelope as bad-envelope, in a body or an item as bad-body")  // R: K5
    func unknownKeys() {
        var phone = Phone()
        expectEqual(phone.code("hk.objects", Self.objects(stream: "a.hk")), nil, "the page's own keys are taken")
        expectEqual(phone.code("hk.objects", Self.objects(stream: "b.hk", extra: #","priority":1"#)), "bad-envelope")
        expectEqual(phone.code("hk.objects", Self.objects(stream: "c.hk", body: #"{"workouts":[],"note":"x"}"#)), "bad-body")
        let item = Self.workout.replacingOccurrences(of: #""source""#, with: #""color":"red","source""#)
        expectEqual(phone.code("hk.objects", Self.objects(stream: "d.hk", body: #"{"workouts":[\#(item)]}"#)), "bad-body")
        expectEqual(phone.code("ack.hk", Self.ack(#"{"upTo":0,"extra":true}"#)), "bad-body")
    }

    @Test("\"Strings are compared after JSON unescaping, by Unicode canonical equivalence; text is kept as written\"")  // R: K5
    func canonicalEquivalence() {
        var phone = Phone()
        // \u escapes are JSON: "\u006fbjects" is "objects", "workout\u0073" is "workouts".
        expectEqual(phone.code("hk.objects", Self.objects(stream: "a.hk").replacingOccurrences(of: #""kind":"objects""#, with: #""kind":"\u006fbjects""#)), nil)
        expectEqual(phone.code("hk.objects", Self.objects(stream: "b.hk", body: #"{"workout\u0073":[]}"#)), nil)
        // "watch" followed by a combining acute accent is another string, not "watch".
        expectEqual(phone.code("hk.objects", Self.objects(stream: "c.hk").replacingOccurrences(of: #""from":"watch""#, with: #""from":"watch\u0301""#)), "bad-envelope")
        // A stream named "café" precomposed and one named "cafe" + U+0301 are one stream: the second
        // message with the same seq is a duplicate, and its workout is not applied.
        let first = Self.workout.replacingOccurrences(of: "6F1C2B7E", with: "6F1C2B7F")
        let second = Self.workout.replacingOccurrences(of: "6F1C2B7E", with: "6F1C2B80").replacingOccurrences(of: "running", with: "cafe\u{0301}")
        expectEqual(phone.code("hk.objects", Self.objects(stream: "caf\u{00E9}", body: #"{"workouts":[\#(first)]}"#)), nil)
        expectEqual(phone.code("hk.objects", Self.objects(stream: "cafe\u{0301}", body: #"{"workouts":[\#(second)]}"#)), nil)
        expect(!phone.platform.store.workouts.contains { $0.uuid.text.hasPrefix("6F1C2B80") }, "a duplicate of seq 1 on the same stream")
        // Text is stored as written (the activity's bytes are the decomposed ones).
        let third = second.replacingOccurrences(of: "6F1C2B80", with: "6F1C2B81")
        expectEqual(phone.code("hk.objects", Self.objects(stream: "d.hk", body: #"{"workouts":[\#(third)]}"#)), nil)
        let stored = phone.platform.store.workouts.first { $0.uuid.text.hasPrefix("6F1C2B81") }
        expectEqual(stored.map { Array($0.activity.utf8) }, Array("cafe\u{0301}".utf8))
    }

    @Test("\"Every length limit counts UTF-8 bytes of the unescaped string\": a stream of 32 é (64 bytes) is taken, 33 are refused")  // R: K5
    func limitsCountBytes() {
        var phone = Phone()
        expectEqual(phone.code("hk.objects", Self.objects(stream: String(repeating: "é", count: 32))), nil)
        expectEqual(phone.code("hk.objects", Self.objects(stream: String(repeating: "é", count: 33))), "bad-envelope")
        // Written as escapes, the same: \u00e9 is two bytes once unescaped.
        expectEqual(phone.code("hk.objects", Self.objects(stream: String(repeating: "\\u00e9", count: 33))), "bad-envelope")
    }

    @Test("\"seq is an integer 0 … 2^50\"; an ack's selective is optional, each 1 … 2^50")  // R: K5
    func sequenceBounds() {
        var phone = Phone()
        expectEqual(phone.code("hk.objects", Self.objects(stream: "a.hk", seq: "1125899906842624")), nil)
        expectEqual(phone.code("hk.objects", Self.objects(stream: "b.hk", seq: "1125899906842625")), "bad-envelope")
        expectEqual(phone.code("hk.objects", Self.objects(stream: "c.hk", seq: "18446744073709551616")), "bad-envelope")
        expectEqual(phone.code("ack.hk", Self.ack(#"{"upTo":0}"#)), nil, "selective left out")
        expectEqual(phone.code("ack.hk", Self.ack(#"{"upTo":0,"selective":null}"#)), "bad-body", "left out is not null")
        expectEqual(phone.code("ack.hk", Self.ack(#"{"upTo":0,"selective":[1125899906842625]}"#)), "bad-body")
        expectEqual(phone.code("ack.hk", Self.ack(#"{"upTo":1125899906842625}"#)), "bad-body")
    }

    @Test("\"UUIDs: any version\": v1, v4, v7 and the nil UUID in either case are taken; braces, a URN or the 32-digit form are refused")  // R: K5
    func uuidVersions() {
        var phone = Phone()
        let taken = ["6ba7b810-9dad-11d1-80b4-00c04fd430c8", "6F1C2B7E-0D8A-4C55-9E3B-2A1D4C5E6F71", "019ca6b6-5147-7797-be9b-d99045a883a3",
                     "00000000-0000-0000-0000-000000000000"]
        for (index, uuid) in taken.enumerated() {
            let item = Self.workout.replacingOccurrences(of: "6F1C2B7E-0D8A-4C55-9E3B-2A1D4C5E6F70", with: uuid)
            expectEqual(phone.code("hk.objects", Self.objects(stream: "t\(index).hk", body: #"{"workouts":[\#(item)]}"#)), nil, "\(uuid)")
        }
        for (index, uuid) in ["{6F1C2B7E-0D8A-4C55-9E3B-2A1D4C5E6F72}", "urn:uuid:6F1C2B7E-0D8A-4C55-9E3B-2A1D4C5E6F72",
                              "6F1C2B7E0D8A4C559E3B2A1D4C5E6F72"].enumerated() {
            let item = Self.workout.replacingOccurrences(of: "6F1C2B7E-0D8A-4C55-9E3B-2A1D4C5E6F70", with: uuid)
            expectEqual(phone.code("hk.objects", Self.objects(stream: "r\(index).hk", body: #"{"workouts":[\#(item)]}"#)), "bad-body", "\(uuid)")
        }
    }

    @Test("\"When several codes apply, the first in the table's order is given\" — an envelope that is not an object, or has no v, is bad-envelope")  // R: K5
    func codePrecedence() {
        var phone = Phone()
        let huge = String(repeating: " ", count: WireLimits.default.maxEnvelopeBytes + 1)
        expectEqual(phone.code([Array("hk.objects".utf8)]), "frame-count")
        expectEqual(phone.code("hk.nope", huge + "not json"), "unknown-topic", "unknown topic before oversized")
        expectEqual(phone.code("hk.objects", huge + "not json"), "oversized", "oversized before not-json")
        expectEqual(phone.code("hk.objects", "[1]"), "bad-envelope")
        expectEqual(phone.code("hk.objects", #"{"from":"watch"}"#), "bad-envelope", "no v")
        expectEqual(phone.code("hk.objects", #"{"v":2,"from":"nobody","extra":1}"#), "unsupported-version", "the version before the envelope's fields")
        expectEqual(phone.code("hk.objects", Self.objects(stream: "a.hk", seq: "0", body: #"{"workouts":"no"}"#)), "bad-envelope", "the envelope before the body")
    }

    @Test("\"The envelope frame is at most wire.maxEnvelopeBytes (4194304 by default)\": exactly that many is taken, one more is oversized")  // R: K5
    func largestEnvelope() {
        var phone = Phone()
        let envelope = Self.objects(stream: "a.hk")
        let limit = WireLimits.default.maxEnvelopeBytes
        expectEqual(limit, 4_194_304)
        let padded = envelope.dropLast() + String(repeating: " ", count: limit - envelope.utf8.count) + "}"
        expectEqual(padded.utf8.count, limit)
        expectEqual(phone.code("hk.objects", String(padded)), nil)
        expectEqual(phone.code("hk.objects", Self.objects(stream: "b.hk") + " " + String(repeating: " ", count: limit - envelope.utf8.count)), "oversized")
    }
}
