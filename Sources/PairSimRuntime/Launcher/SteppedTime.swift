#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PairSimCore
import ZeroMQ

/// Stepped time on real processes (`topology run --clock stepped`, docs/SCENARIOS.md#stepped-time):
/// both nodes read a `SharedClock` that only this launcher moves. It moves the clock to the next
/// instant anything is due — a node's next deadline or the timeline's next command — once the
/// pair is quiet: both nodes idle (nothing due now, nothing unread) and every frame one published
/// taken by the other. So a scenario's timing is what its topology says, however slow or busy
/// the machine: real sockets, storage and processes, with the simulator's notion of time.
///
/// "Every frame taken" is counted: each node reports the frames it published and received
/// (`clock-status`). ZeroMQ drops what a node publishes before its peer subscribes, and what is
/// on its way when a process is killed; after a start, a kill or a restart the launcher takes the
/// counts as they stand, once they have stood still with both nodes idle for `settleMilliseconds`,
/// as the new balance. A frame lost any other way would leave the counts apart for good: after
/// `stallMilliseconds` with nothing moving, the balance is taken again and the run notes it.
final class SteppedTime {
    /// One node's `clock-status` reply (docs/COMMANDS.md).
    struct Status: Equatable {
        var now: EmulatedInstant
        var next: EmulatedInstant?
        var idle: Bool
        var published: Int
        var received: Int
        var subscribed: Bool
    }

    let clock: SharedClock
    let endpoints: [NodeName: String]
    let context: Context
    /// One REQ socket per live node, kept open across the thousands of questions a run asks.
    private var sockets: [NodeName: Socket] = [:]
    /// Nodes whose process is running.
    private(set) var alive: Set<NodeName> = []
    /// Frames published minus frames taken, each way, when nothing is in flight (nil: take it anew).
    private var balance: (watchToPhone: Int, phoneToWatch: Int)?
    /// Times the balance had to be taken again because counts stayed apart (a frame lost).
    private(set) var stalls = 0
    /// Steps taken (instants the clock moved to).
    private(set) var steps = 0

    static let settleMilliseconds = 20.0
    static let stallMilliseconds = 2_000.0
    /// A pair that never becomes quiet (a node busy at one instant for ever) ends the run.
    static let hangSeconds = 120.0

    init(clock: SharedClock, endpoints: [NodeName: String], context: Context) {
        self.clock = clock
        self.endpoints = endpoints
        self.context = context
    }

    var now: EmulatedInstant { clock.now }

    /// A node's process is up and answering: count it in, and take the balance anew once the pair
    /// has found each other.
    func started(_ node: NodeName) {
        alive.insert(node)
        balance = nil
    }

    /// A node's process was killed: frames on their way to or from it are gone.
    func killed(_ node: NodeName) {
        alive.remove(node)
        sockets[node]?.close()
        sockets[node] = nil
        balance = nil
    }

    /// Moves the clock forward, deadline by deadline, until `target`, letting the pair go quiet at
    /// each instant.
    func advance(to target: EmulatedInstant) throws {
        var statuses = try quiet()
        while clock.now < target {
            let next = alive.compactMap { statuses[$0]?.next }.reduce(target) { min($0, $1) }
            clock.set(max(next, clock.now))
            steps += 1
            statuses = try quiet()
        }
    }

    /// Asks both nodes until the pair is quiet at the current instant; returns what they said.
    /// Asking is also what wakes a node to run what the clock's move made due.
    @discardableResult
    func quiet() throws -> [NodeName: Status] {
        // Stillness and the hang guard are counted as `Patience` counts: a machine that ran nothing
        // of PairSim for a while (a loaded host, a paused VM) did not see the pair stand still for
        // that long. A frame on its way while both nodes were stopped is still on its way; timed
        // by the wall clock, a 2 s stop would have passed for a lost frame, and the clock would
        // have moved on without it. A step counts for at most a quarter of the settle time, so
        // settling takes at least four questions, and stalling at least four hundred.
        func stillness(_ milliseconds: Double) -> Patience {
            Patience(seconds: milliseconds / 1_000, longestStep: Self.settleMilliseconds / 4_000)
        }
        var hang = Patience(seconds: Self.hangSeconds)
        var last: [NodeName: Status] = [:]
        var settled = stillness(Self.settleMilliseconds), stalled = stillness(Self.stallMilliseconds)
        var pauseMicroseconds: UInt32 = 0
        while true {
            var statuses: [NodeName: Status] = [:]
            for node in NodeName.allCases where alive.contains(node) { statuses[node] = try status(node) }
            let idle = statuses.values.allSatisfy(\.idle)
            let counts = statuses.mapValues { Status(now: .zero, next: nil, idle: $0.idle, published: $0.published, received: $0.received, subscribed: $0.subscribed) }
            if counts != last {
                last = counts
                settled = stillness(Self.settleMilliseconds)
                stalled = stillness(Self.stallMilliseconds)
            } else {
                settled.count()
                stalled.count()
            }
            if idle {
                guard let watch = statuses[.watch], let phone = statuses[.phone] else {
                    // One node alone: what it sends goes nowhere; quiet once it is idle and still.
                    if !settled.remains { return statuses }
                    continue
                }
                let difference = (watchToPhone: watch.published - phone.received, phoneToWatch: phone.published - watch.received)
                if let balance, difference == balance { return statuses }
                if watch.subscribed, phone.subscribed, !(balance == nil ? settled : stalled).remains {
                    if balance != nil { stalls += 1 }
                    balance = difference
                    return statuses
                }
            }
            guard hang.count() else {
                throw RuntimeError("the pair did not go quiet at \(clock.now) within \(Int(Self.hangSeconds)) s: "
                                   + statuses.map { "\($0.key) \($0.value)" }.sorted().joined(separator: "; "))
            }
            // Frames are on their way: ask again soon, a little later each time.
            if pauseMicroseconds > 0 { usleep(pauseMicroseconds) }
            pauseMicroseconds = min(pauseMicroseconds * 2 + 50, 2_000)
        }
    }

    /// Waits until both live nodes hear each other (their peer subscribed), so nothing sent from
    /// here on is dropped by ZeroMQ for want of a listener.
    func waitUntilPaired(seconds: Double = 30) throws {
        try Self.waitUntilPaired(seconds: seconds, while: { alive.count == 2 }) { try status($0).subscribed }
    }

    /// Polls until each node's peer has subscribed to it (`clock-status`'s `subscribed`), while
    /// `going` holds; throws after `seconds`, saying so and then `then`.
    static func waitUntilPaired(seconds: Double = 30, while going: () -> Bool = { true }, then: String = "",
                                subscribed: (NodeName) throws -> Bool) throws {
        var patience = Patience(seconds: seconds)
        while going(), try !NodeName.allCases.allSatisfy(subscribed) {
            guard patience.wait(microseconds: 2_000) else { throw RuntimeError("the nodes did not connect to each other within \(Int(seconds)) s" + then) }
        }
    }

    /// One node's `clock-status`.
    func status(_ node: NodeName) throws -> Status {
        let socket = try self.socket(node)
        do {
            _ = try socket.send("clock-status")
            guard let frames = try socket.receiveMultipart(), frames.count == 2 else {
                throw RuntimeError("\(node) did not answer clock-status within 30 s")
            }
            let json = try JSONParser().parse(frames[1])
            guard let now = json["now"]?.intValue, let idle = json["idle"]?.boolValue, let published = json["published"]?.intValue,
                  let received = json["received"]?.intValue, let subscribed = json["subscribed"]?.boolValue else {
                throw RuntimeError("\(node) answered clock-status with \(String(decoding: frames[1], as: UTF8.self))")
            }
            return Status(now: EmulatedInstant(milliseconds: now), next: json["next"]?.intValue.map { EmulatedInstant(milliseconds: $0) },
                          idle: idle, published: Int(published), received: Int(received), subscribed: subscribed)
        } catch {
            // A REQ socket that missed its reply cannot ask again: the next question opens another.
            socket.close()
            sockets[node] = nil
            throw error
        }
    }

    private func socket(_ node: NodeName) throws -> Socket {
        if let socket = sockets[node] { return socket }
        let socket = try Socket(context, .req)
        try socket.setReceiveTimeout(milliseconds: 30_000)
        try socket.setSendTimeout(milliseconds: 30_000)
        try socket.connect(endpoints[node]!)
        sockets[node] = socket
        return socket
    }

    func close() {
        for socket in sockets.values { socket.close() }
        sockets = [:]
    }
}
