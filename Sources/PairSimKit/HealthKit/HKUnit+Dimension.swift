import Foundation

extension HKUnit {
    /// Powers of the base kinds a unit measures, one lane per kind (`Dimension.kinds`). A vector
    /// rather than a dictionary by kind name: a live builder's reading converts its quantity to
    /// the app's unit, and building, combining and comparing those dictionaries was ~2 % of a
    /// simulated week (perf, `pairsim-bench simulate`).
    struct Dimension: Hashable, Sendable {
        /// The base kinds, in lane order.
        static let kinds = ["mass", "length", "time", "energy", "pressure", "voltage", "power", "conductance", "substance",
                            "soundLevel", "hearingLevel", "internationalUnit", "illuminance", "diopter", "angle", "effort",
                            "temperature"]
        var exponents = SIMD32<Int16>()

        init() {}

        /// The kind named `name` to the first power.
        init(kind name: String) {
            guard let lane = Self.kinds.firstIndex(of: name) else { preconditionFailure("Invalid state: no base kind \(name)") }
            exponents[lane] = 1
        }

        var isEmpty: Bool { self == Dimension() }

        // As bytes: SIMD's own `==` and hashing went lane by lane (a quantity's conversion checks
        // its dimension, 1 % of a simulated week).
        static func == (lhs: Dimension, rhs: Dimension) -> Bool {
            withUnsafeBytes(of: lhs.exponents) { a in withUnsafeBytes(of: rhs.exponents) { b in memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 } }
        }

        func hash(into hasher: inout Hasher) { withUnsafeBytes(of: exponents) { hasher.combine(bytes: $0) } }

        /// Each lane of `lhs` and `rhs` through `combine`, written into a new dimension. Over the
        /// lanes' memory: SIMD32's own operators and subscript went through generic code here, a
        /// product took ~1.6 µs (4 % of a simulated week, perf) against ~20 ns this way.
        static func lanes(_ lhs: Dimension, _ rhs: Dimension, _ combine: (_ lane: Int, Int16, Int16) -> Int16) -> Dimension {
            var result = Dimension()
            withUnsafeBytes(of: lhs.exponents) { a in
                withUnsafeBytes(of: rhs.exponents) { b in
                    withUnsafeMutableBytes(of: &result.exponents) { r in
                        let x = a.bindMemory(to: Int16.self), y = b.bindMemory(to: Int16.self), z = r.bindMemory(to: Int16.self)
                        for lane in 0..<kinds.count { z[lane] = combine(lane, x[lane], y[lane]) }
                    }
                }
            }
            return result
        }

        /// A unit whose exponent leaves Int16's range traps (here and in `raised(to:)`).
        static func * (lhs: Dimension, rhs: Dimension) -> Dimension {
            lanes(lhs, rhs) { _, a, b in
                let (sum, overflow) = a.addingReportingOverflow(b)
                if overflow { preconditionFailure("HKUnit: an exponent beyond \(Int16.max) in a product of units") }
                return sum
            }
        }

        /// Each exponent times `power`.
        func raised(to power: Int) -> Dimension {
            Self.lanes(self, self) { lane, exponent, _ in
                guard let value = Int16(exactly: Int(exponent) * power) else {
                    preconditionFailure("HKUnit: \(Self.kinds[lane]) raised to the power \(Int(exponent) * power)")
                }
                return value
            }
        }
    }
}
