import Foundation
import Testing
import TestSupport
@testable import PairSimCore

/// UUID text read eight digits at a time (`UUIDText.parse(bytes:)`) against the plain reader,
/// one digit at a time (`UUIDText.parseSlow`): the wire's UUIDs (R: H1, S6) are read the first way.
@Suite("UUID text")
struct UUIDTextTests {
    static func parse(_ bytes: [UInt8]) -> UUID? { bytes.withUnsafeBufferPointer { UUIDText.parse(bytes: $0) } }
    static func slow(_ bytes: [UInt8]) -> UUID? { UUIDText.parseSlow(String(decoding: bytes, as: UTF8.self)) }

    @Test("every byte value at every position of a UUID reads as the plain reader reads it")  // R: H1
    func everyByteEverywhere() {
        var random = SplitMix64(seed: 48)
        var disagreements: [String] = []
        var accepted = 0
        for round in 0..<4 {
            let uuid = UUID(uuid: withUnsafeBytes(of: (random.next(), random.next())) { raw in
                raw.load(as: uuid_t.self)
            })
            var text = Array(uuid.text.utf8)
            // Mixed case on odd rounds: both cases are read.
            if round % 2 == 1 {
                for index in text.indices where index % 3 == 0 && (65...70).contains(text[index]) { text[index] += 32 }
            }
            expectEqual(Self.parse(text), uuid)
            for position in 0..<36 {
                for byte in 0...255 {
                    var mutated = text
                    mutated[position] = UInt8(byte)
                    let fast = Self.parse(mutated), plain = Self.slow(mutated)
                    if fast != nil { accepted += 1 }
                    if fast != plain { disagreements.append("byte \(byte) at \(position): \(String(describing: fast)) vs \(String(describing: plain))") }
                }
            }
        }
        expectEqual(disagreements.prefix(5).joined(separator: "; "), "")
        // Per position, the 22 hex digits (or the hyphen) are accepted, and nothing else.
        expectEqual(accepted, 4 * (32 * 22 + 4 * 1))
    }

    @Test("random UUIDs round-trip in either case; other lengths are refused")  // R: H1
    func roundTrips() {
        var random = SplitMix64(seed: 7)
        for _ in 0..<10_000 {
            let uuid = UUID(uuid: withUnsafeBytes(of: (random.next(), random.next())) { $0.load(as: uuid_t.self) })
            expectEqual(Self.parse(Array(uuid.text.utf8)), uuid)
            expectEqual(Self.parse(Array(uuid.text.lowercased().utf8)), uuid)
            expectEqual(UUID(text: uuid.uuidString), uuid)
        }
        let text = Array(UUID().text.utf8)
        for count in [0, 35, 37, 72] {
            let bytes = Array((text + text).prefix(count))
            expect(Self.parse(bytes) == nil, "\(count) bytes")
        }
    }
}
