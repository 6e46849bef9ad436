#if canImport(Glibc)
import Glibc
#endif
import PairSimCore
import Synchronization

/// Emulated time that a launcher steps and both nodes read: one `Int64` of milliseconds in a file
/// that every process maps shared (the stepped clock, docs/SCENARIOS.md#stepped-time).
///
/// One value read by both nodes, rather than each node told the time by a message: a frame the
/// watch sends at the new instant may reach the phone before the phone's own message would, and
/// it must be stamped with the same instant there.
public final class SharedClock: @unchecked Sendable {
    // @unchecked: the mapping is written only through `Atomic` loads and stores.
    let path: String
    let value: UnsafeMutablePointer<Atomic<Int64>>

    /// Maps the clock at `path`; `create` makes the file (at zero) first, as the launcher does.
    public init(path: String, create: Bool = false) throws {
        self.path = path
        let fd = open(path, O_RDWR | O_CLOEXEC | (create ? O_CREAT | O_TRUNC : 0), 0o644)
        guard fd >= 0 else { throw RuntimeError("cannot open the stepped clock \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        if create, ftruncate(fd, 8) != 0 {
            throw RuntimeError("cannot size the stepped clock \(path): \(String(cString: strerror(errno)))")
        }
        guard fstat(fd, &info) == 0, info.st_size == 8 else {
            throw RuntimeError("\(path) is not a stepped clock (8 bytes written by the launcher)")
        }
        guard let mapped = mmap(nil, 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), mapped != MAP_FAILED else {
            throw RuntimeError("cannot map the stepped clock \(path): \(String(cString: strerror(errno)))")
        }
        value = mapped.bindMemory(to: Atomic<Int64>.self, capacity: 1)
    }

    deinit { munmap(UnsafeMutableRawPointer(value), 8) }

    /// The current emulated instant.
    public var now: EmulatedInstant { EmulatedInstant(milliseconds: value.pointee.load(ordering: .acquiring)) }

    /// The raw value: used as an epoch file (`--epoch-file`), Unix milliseconds of emulated time
    /// zero, 0 until the launcher knows it.
    public var raw: Int64 { value.pointee.load(ordering: .acquiring) }

    /// Sets the raw value once (the launcher, for an epoch file).
    public func store(raw: Int64) { value.pointee.store(raw, ordering: .releasing) }

    /// Moves the clock to `instant` (the launcher only; never backwards).
    public func set(_ instant: EmulatedInstant) {
        precondition(instant >= now, "Invalid state: the stepped clock moved back from \(now) to \(instant)")
        value.pointee.store(instant.milliseconds, ordering: .releasing)
    }
}
