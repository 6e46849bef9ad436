import HeapModule

/// Timers of one model, fired in time order; equal times fire in the order they were set, so a
/// run is deterministic. Cancelling is by token.
public struct TimerQueue<Kind: Hashable & Sendable>: Sendable {
    struct Entry: Comparable, Sendable {
        var at: EmulatedInstant
        var order: UInt64
        var kind: Kind
        static func < (lhs: Entry, rhs: Entry) -> Bool { (lhs.at, lhs.order) < (rhs.at, rhs.order) }
        static func == (lhs: Entry, rhs: Entry) -> Bool { lhs.at == rhs.at && lhs.order == rhs.order }
    }

    var heap = Heap<Entry>()
    var nextOrder: UInt64 = 0
    var cancelled: Set<UInt64> = []

    public init() {}

    /// Sets a timer; returns a token for `cancel`.
    @discardableResult
    public mutating func schedule(_ kind: Kind, at: EmulatedInstant) -> UInt64 {
        nextOrder += 1
        heap.insert(Entry(at: at, order: nextOrder, kind: kind))
        return nextOrder
    }

    public mutating func cancel(_ token: UInt64) { cancelled.insert(token) }

    /// The earliest deadline (possibly a cancelled timer's: firing it is then a no-op).
    public var peekDeadline: EmulatedInstant? { heap.min?.at }

    /// Removes and returns the earliest timer due at or before `now`.
    public mutating func popDue(_ now: EmulatedInstant) -> (kind: Kind, at: EmulatedInstant)? {
        dropCancelled()
        guard let first = heap.min, first.at <= now else { return nil }
        heap.removeMin()
        return (first.kind, first.at)
    }

    mutating func dropCancelled() {
        while let first = heap.min, cancelled.contains(first.order) {
            heap.removeMin()
            cancelled.remove(first.order)
        }
    }

}
