#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Thin names for libm so core files need not import the platform module everywhere.
@inline(__always) func _log(_ x: Double) -> Double { log(x) }
@inline(__always) func _exp(_ x: Double) -> Double { exp(x) }
@inline(__always) func _cos(_ x: Double) -> Double { cos(x) }
@inline(__always) func _sin(_ x: Double) -> Double { sin(x) }

extension Double {
    /// Rounded to one decimal (heart rates, energies, values as the logs and tabs show them).
    public var roundedToTenth: Double { (self * 10).rounded() / 10 }
}
