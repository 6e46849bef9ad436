import Foundation
import Synchronization

/// A unit (`HKUnit`), from its string (`HKUnit(from: "count/min")`, `"mL/(kg*min)"`) or a factory
/// (`HKUnit.count().unitDivided(by: .minute())`), with arithmetic, as HealthKit's. Units of the same
/// kind convert (`ms` and `s`, `kg` and `lb`, `kcal` and `kJ`, `degC` and `degF`); asking a
/// quantity for a unit of another kind traps, as HealthKit raises.
/// Differs: a struct, where Apple's is a class: the same calls, equal units compare equal by value.
public struct HKUnit: Hashable, Sendable, CustomStringConvertible {
    /// The unit's HealthKit string, e.g. `count/min`.
    public let unitString: String
    /// Factor to the base units, and the exponent of each base kind.
    let scale: Double
    let dimension: Dimension
    /// Degrees Celsius and Fahrenheit: an offset, not only a factor.
    let offset: Double

    init(unitString: String, scale: Double, dimension: Dimension, offset: Double = 0) {
        self.unitString = unitString
        self.scale = scale
        self.dimension = dimension
        self.offset = offset
    }

    /// A unit from HealthKit's string form. A string HealthKit would refuse traps, as it raises.
    public init(from unitString: String) {
        if let known = Self.parsed.withLock({ $0[unitString] }) {
            self = known
            return
        }
        var parser = UnitParser(unitString)
        guard let parsed = parser.parse() else {
            preconditionFailure("HKUnit(from: \"\(unitString)\"): not a unit string HealthKit reads")
        }
        self.init(unitString: unitString, scale: parsed.scale, dimension: parsed.dimension, offset: parsed.offset)
        let unit = self
        Self.parsed.withLock { if $0.count < Self.parsedLimit { $0[unitString] = unit } }
    }

    /// Units already parsed, by string (at most `parsedLimit`): every sample handed to an app made
    /// its unit from its string, and parsing it was 17 % of a simulated week whose watch app's live
    /// builder gets a sample every 5 s (perf, `pairsim-bench simulate`).
    static let parsed = Mutex<[String: HKUnit]>([:])
    static let parsedLimit = 1_024

    public var description: String { unitString }

    public func unitMultiplied(by unit: HKUnit) -> HKUnit {
        HKUnit(unitString: "\(unitString)*\(unit.unitString)", scale: scale * unit.scale, dimension: dimension * unit.dimension)
    }

    public func unitDivided(by unit: HKUnit) -> HKUnit {
        // A byte scan: `String.contains("*")` is Foundation's substring search, 2.9 % of a simulated week.
        let compound = unit.unitString.utf8.contains { $0 == UInt8(ascii: "*") || $0 == UInt8(ascii: "/") }
        let denominator = compound ? "(\(unit.unitString))" : unit.unitString
        return HKUnit(unitString: "\(unitString)/\(denominator)", scale: scale / unit.scale, dimension: dimension * unit.dimension.raised(to: -1))
    }

    public func unitRaised(toPower power: Int) -> HKUnit {
        HKUnit(unitString: "\(unitString)^\(power)", scale: pow(scale, Double(power)), dimension: dimension.raised(to: power))
    }

    public func reciprocal() -> HKUnit {
        HKUnit(unitString: "1/\(unitString)", scale: 1 / scale, dimension: dimension.raised(to: -1))
    }

    /// The unitless unit (`count` divided by itself).
    public func isNull() -> Bool { dimension.isEmpty && scale == 1 && unitString != "count" && unitString != "%" }

    public static func == (lhs: HKUnit, rhs: HKUnit) -> Bool {
        lhs.dimension == rhs.dimension && abs(lhs.scale - rhs.scale) <= 1e-12 * max(abs(lhs.scale), abs(rhs.scale)) && lhs.offset == rhs.offset
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(dimension) }
}

/// Metric prefixes (`HKMetricPrefix`), with Apple's raw values.
public enum HKMetricPrefix: Int, Sendable {
    case none = 0, pico, nano, micro, milli, centi, deci, deca, hecto, kilo, mega, giga, tera, femto

    var symbol: String {
        switch self {
        case .none: ""
        case .pico: "p"
        case .nano: "n"
        case .micro: "mc"
        case .milli: "m"
        case .centi: "c"
        case .deci: "d"
        case .deca: "da"
        case .hecto: "h"
        case .kilo: "k"
        case .mega: "M"
        case .giga: "G"
        case .tera: "T"
        case .femto: "f"
        }
    }
}

extension HKUnit {
    public static func count() -> HKUnit { HKUnit(from: "count") }
    public static func percent() -> HKUnit { HKUnit(from: "%") }
    public static func second() -> HKUnit { HKUnit(from: "s") }
    public static func secondUnit(with prefix: HKMetricPrefix) -> HKUnit { HKUnit(from: prefix.symbol + "s") }
    public static func minute() -> HKUnit { HKUnit(from: "min") }
    public static func hour() -> HKUnit { HKUnit(from: "hr") }
    public static func day() -> HKUnit { HKUnit(from: "d") }
    public static func gram() -> HKUnit { HKUnit(from: "g") }
    public static func gramUnit(with prefix: HKMetricPrefix) -> HKUnit { HKUnit(from: prefix.symbol + "g") }
    public static func pound() -> HKUnit { HKUnit(from: "lb") }
    public static func ounce() -> HKUnit { HKUnit(from: "oz") }
    public static func stone() -> HKUnit { HKUnit(from: "st") }
    public static func meter() -> HKUnit { HKUnit(from: "m") }
    public static func meterUnit(with prefix: HKMetricPrefix) -> HKUnit { HKUnit(from: prefix.symbol + "m") }
    public static func inch() -> HKUnit { HKUnit(from: "in") }
    public static func foot() -> HKUnit { HKUnit(from: "ft") }
    public static func yard() -> HKUnit { HKUnit(from: "yd") }
    public static func mile() -> HKUnit { HKUnit(from: "mi") }
    public static func liter() -> HKUnit { HKUnit(from: "L") }
    public static func literUnit(with prefix: HKMetricPrefix) -> HKUnit { HKUnit(from: prefix.symbol + "L") }
    public static func fluidOunceUS() -> HKUnit { HKUnit(from: "fl_oz_us") }
    public static func cupUS() -> HKUnit { HKUnit(from: "cup_us") }
    public static func pintUS() -> HKUnit { HKUnit(from: "pt_us") }
    public static func joule() -> HKUnit { HKUnit(from: "J") }
    public static func jouleUnit(with prefix: HKMetricPrefix) -> HKUnit { HKUnit(from: prefix.symbol + "J") }
    public static func kilocalorie() -> HKUnit { HKUnit(from: "kcal") }
    public static func largeCalorie() -> HKUnit { HKUnit(from: "Cal") }
    public static func smallCalorie() -> HKUnit { HKUnit(from: "cal") }
    public static func degreeCelsius() -> HKUnit { HKUnit(from: "degC") }
    public static func degreeFahrenheit() -> HKUnit { HKUnit(from: "degF") }
    public static func kelvin() -> HKUnit { HKUnit(from: "K") }
    public static func pascal() -> HKUnit { HKUnit(from: "Pa") }
    public static func pascalUnit(with prefix: HKMetricPrefix) -> HKUnit { HKUnit(from: prefix.symbol + "Pa") }
    public static func millimeterOfMercury() -> HKUnit { HKUnit(from: "mmHg") }
    public static func centimeterOfWater() -> HKUnit { HKUnit(from: "cmAq") }
    public static func atmosphere() -> HKUnit { HKUnit(from: "atm") }
    public static func inchesOfMercury() -> HKUnit { HKUnit(from: "inHg") }
    public static func hertz() -> HKUnit { HKUnit(from: "Hz") }
    public static func hertzUnit(with prefix: HKMetricPrefix) -> HKUnit { HKUnit(from: prefix.symbol + "Hz") }
    public static func volt() -> HKUnit { HKUnit(from: "V") }
    public static func voltUnit(with prefix: HKMetricPrefix) -> HKUnit { HKUnit(from: prefix.symbol + "V") }
    public static func watt() -> HKUnit { HKUnit(from: "W") }
    public static func wattUnit(with prefix: HKMetricPrefix) -> HKUnit { HKUnit(from: prefix.symbol + "W") }
    public static func siemen() -> HKUnit { HKUnit(from: "S") }
    public static func lux() -> HKUnit { HKUnit(from: "lx") }
    public static func decibelAWeightedSoundPressureLevel() -> HKUnit { HKUnit(from: "dBASPL") }
    public static func decibelHearingLevel() -> HKUnit { HKUnit(from: "dBHL") }
    public static func internationalUnit() -> HKUnit { HKUnit(from: "IU") }
    public static func diopter() -> HKUnit { HKUnit(from: "D") }
    public static func radianAngle() -> HKUnit { HKUnit(from: "rad") }
    public static func degreeAngle() -> HKUnit { HKUnit(from: "deg") }
    public static func appleEffortScore() -> HKUnit { HKUnit(from: "appleEffortScore") }
}

/// An amount with a unit (`HKQuantity`).
/// Differs: a struct, where Apple's is a class: the same calls.
public struct HKQuantity: Hashable, Sendable, CustomStringConvertible {
    let value: Double
    let unit: HKUnit

    public init(unit: HKUnit, doubleValue value: Double) {
        self.unit = unit
        self.value = value
    }

    /// The amount in `unit`: a unit of the same kind (HealthKit raises for another, this traps).
    public func doubleValue(for unit: HKUnit) -> Double {
        precondition(self.unit.dimension == unit.dimension,
                     "HKQuantity.doubleValue(for: \(unit)): \(self.unit) and \(unit) measure different things")
        // Same scale (the same unit however spelled): the value as stored, so 62 count/min reads
        // back as 62 and not 61.99999999999999; otherwise the ratio first, then the offsets.
        if self.unit.scale == unit.scale && self.unit.offset == unit.offset { return value }
        if self.unit.offset == 0 && unit.offset == 0 { return value * (self.unit.scale / unit.scale) }
        let base = value * self.unit.scale + self.unit.offset
        return (base - unit.offset) / unit.scale
    }

    /// True when `unit` measures what this quantity does.
    public func `is`(compatibleWith unit: HKUnit) -> Bool { self.unit.dimension == unit.dimension }

    /// Orders two quantities of the same kind.
    public func compare(_ quantity: HKQuantity) -> ComparisonResult {
        let other = quantity.doubleValue(for: unit)
        return value < other ? .orderedAscending : value > other ? .orderedDescending : .orderedSame
    }

    public var description: String { "\(Self.number(value)) \(unit)" }

    static func number(_ value: Double) -> String { value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value) }

    public static func == (lhs: HKQuantity, rhs: HKQuantity) -> Bool {
        lhs.unit.dimension == rhs.unit.dimension && lhs.compare(rhs) == .orderedSame
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(unit.dimension) }
}

/// Reads HealthKit's unit grammar: atoms with metric prefixes, `*`, `/`, `^power`, parentheses.
struct UnitParser {
    let text: [Character]
    var index = 0

    init(_ text: String) { self.text = Array(text.filter { !$0.isWhitespace }) }

    typealias Value = (scale: Double, dimension: HKUnit.Dimension, offset: Double)

    mutating func parse() -> Value? {
        guard let value = product(), index == text.count else { return nil }
        return value
    }

    mutating func product() -> Value? {
        guard var result = factor() else { return nil }
        while index < text.count, text[index] == "*" || text[index] == "/" {
            let dividing = text[index] == "/"
            index += 1
            guard let next = factor() else { return nil }
            result = dividing ? (result.scale / next.scale, result.dimension * next.dimension.raised(to: -1), 0)
                : (result.scale * next.scale, result.dimension * next.dimension, 0)
        }
        return result
    }

    mutating func factor() -> Value? {
        var base: Value
        if index < text.count, text[index] == "(" {
            index += 1
            guard let inner = product(), index < text.count, text[index] == ")" else { return nil }
            index += 1
            base = inner
        } else {
            let start = index
            while index < text.count, !"*/()^".contains(text[index]) { index += 1 }
            guard index > start, let atom = Self.atom(String(text[start..<index])) else { return nil }
            base = atom
        }
        if index < text.count, text[index] == "^" {
            index += 1
            let start = index
            if index < text.count, text[index] == "-" { index += 1 }
            while index < text.count, text[index].isNumber { index += 1 }
            guard let power = Int(String(text[start..<index])) else { return nil }
            base = (pow(base.scale, Double(power)), base.dimension.raised(to: power), 0)
        }
        return base
    }

    static func kind(_ name: String) -> HKUnit.Dimension { HKUnit.Dimension(kind: name) }

    /// Units that take metric prefixes, and the rest, with their factor to the base kind.
    static let prefixable: [String: (Double, String)] = [
        "g": (1, "mass"), "m": (1, "length"), "L": (0.001, "length3"), "l": (0.001, "length3"), "s": (1, "time"), "J": (1, "energy"),
        "Pa": (1, "pressure"), "Hz": (1, "frequency"), "V": (1, "voltage"), "W": (1, "power"), "S": (1, "conductance"),
        "mol": (1, "substance"),
    ]
    static let plain: [String: (Double, String?)] = [
        "count": (1, nil), "%": (0.01, nil), "min": (60, "time"), "hr": (3_600, "time"), "d": (86_400, "time"),
        "lb": (453.59237, "mass"), "oz": (28.349523125, "mass"), "st": (6_350.29318, "mass"),
        "in": (0.0254, "length"), "ft": (0.3048, "length"), "yd": (0.9144, "length"), "mi": (1_609.344, "length"),
        "fl_oz_us": (0.0000295735295625, "length3"), "fl_oz_imp": (0.0000284130625, "length3"), "cup_us": (0.0002365882365, "length3"),
        "cup_imp": (0.000284130625, "length3"), "pt_us": (0.000473176473, "length3"), "pt_imp": (0.00056826125, "length3"),
        "kcal": (4_184, "energy"), "Cal": (4_184, "energy"), "cal": (4.184, "energy"),
        "mmHg": (133.322387415, "pressure"), "cmAq": (98.0665, "pressure"), "atm": (101_325, "pressure"), "inHg": (3_386.389, "pressure"),
        "dBASPL": (1, "soundLevel"), "dBHL": (1, "hearingLevel"), "IU": (1, "internationalUnit"), "lx": (1, "illuminance"),
        "D": (1, "diopter"), "rad": (1, "angle"), "deg": (Double.pi / 180, "angle"), "appleEffortScore": (1, "effort"),
        "K": (1, "temperature"), "degC": (1, "temperature"), "degF": (5.0 / 9.0, "temperature"), "bpm": (1.0 / 60, "frequencyCount"),
    ]
    static let prefixes: [(String, Double)] = [
        ("da", 10), ("mc", 1e-6), ("p", 1e-12), ("n", 1e-9), ("m", 1e-3), ("c", 1e-2), ("d", 1e-1), ("h", 1e2), ("k", 1e3),
        ("M", 1e6), ("G", 1e9), ("T", 1e12), ("f", 1e-15), ("µ", 1e-6),
    ]

    static func atom(_ name: String) -> Value? {
        if name == "degC" { return (1, kind("temperature"), 273.15) }
        if name == "degF" { return (5.0 / 9.0, kind("temperature"), 273.15 - 32 * 5.0 / 9.0) }
        if name == "1" { return (1, HKUnit.Dimension(), 0) }
        if let (scale, kindName) = plain[name] {
            if kindName == "frequencyCount" { return (scale, kind("time").raised(to: -1), 0) }
            return (scale, kindName.map(kind) ?? HKUnit.Dimension(), 0)
        }
        if let (scale, kindName) = prefixable[name] { return (scale, dimension(kindName), 0) }
        for (prefix, factor) in prefixes where name.hasPrefix(prefix) {
            if let (scale, kindName) = prefixable[String(name.dropFirst(prefix.count))] { return (scale * factor, dimension(kindName), 0) }
        }
        return nil
    }

    static func dimension(_ name: String) -> HKUnit.Dimension {
        switch name {
        case "length3": kind("length").raised(to: 3)
        case "frequency": kind("time").raised(to: -1)
        default: kind(name)
        }
    }
}
