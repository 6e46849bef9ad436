import PairSimCore
import PairSimHealthExport
import PairSimKit

/// A node's process in a simulation: killed (between turns or inside one), restarted on what it
/// committed, and booted through the same code as a node process.
extension Simulator {
    /// kill -9: the process ends between two turns; what it committed stays, the rest is gone
    /// (frames on their way to or from it included).
    /// `midTurn`: it died in the middle of a turn that committed what it had reached.
    mutating func kill(_ node: NodeName, midTurn: Bool = false) {
        guard !downNodes.contains(node) else { return }
        if !midTurn { commitValues(node) }
        let storageFault = disks[node] != nil ? killDisk(node, midTurn: midTurn) : nil
        dying.remove(node)
        downNodes.insert(node)
        kills[node]! += 1
        deliveries.removeAll { $0.to == node }
        var fields: JSONObject = ["kills": .int(Int64(kills[node]!))]
        if midTurn { fields.append("midTurn", .bool(true)) }
        if let storageFault { fields.append("storageFault", .string(storageFault)) }
        events.append(Event(at: now, node: node, .nodeKilled, level: .warning, fields: fields))
    }

    /// `kill-node --mid-turn`: the process dies in its next turn that commits or publishes, right
    /// after the first of those effects in the drivers' order (`NodeTurns.carryOut`) — what a
    /// kill -9 between a commit and a send leaves. Until then its turns commit their values as
    /// the node loop's do, so the image is exactly the loop's.
    mutating func killDuringNextTurn(_ node: NodeName) {
        guard !downNodes.contains(node) else { return }
        commitValues(node)
        dying.insert(node)
    }

    /// A new process on the same data: restore what was committed, start, and meet the peer as
    /// sockets do (each side's XPUB sees the other's SUB: hello and retransmit-all both ways).
    mutating func restart(_ node: NodeName) {
        guard downNodes.contains(node) else { return }
        downNodes.remove(node)
        switch node {
        case .watch: watch = WatchNode(topology: topology, boot: "sim.\(kills[node]! + 1)", exports: HealthExportReader.opener, app: watchApp)
        case .phone: phone = PhoneNode(topology: topology, boot: "sim.\(kills[node]! + 1)", app: app)
        }
        guard let state = committedState(node) else {
            // Its files could not be opened (a storage finding): it stays down.
            downNodes.insert(node)
            return
        }
        guard boot(node, from: state) else { return }
        if !downNodes.contains(node.peer) {
            perform(node == .watch ? watch.peerConnected(now: now) : phone.peerConnected(now: now), from: node)
            perform(node == .watch ? phone.peerConnected(now: now) : watch.peerConnected(now: now), from: node.peer)
        }
        let waiting = postponed[node]!
        postponed[node] = []
        for item in waiting {
            drainDeliveries()
            runCommand(item)
        }
    }

    /// Restores `node` from `state` and starts it, through the same code as a node process.
    @discardableResult
    mutating func boot(_ node: NodeName, from state: PersistedState) -> Bool {
        var turns = NodeTurns()
        let actions: [NodeAction]
        do {
            switch node {
            case .watch: actions = try turns.boot(&watch, from: state, now: now)
            case .phone: actions = try turns.boot(&phone, from: state, now: now)
            }
        } catch {
            failedCommands.append("\(now) \(node) could not restore what it committed: \(error)")
            return false
        }
        self.turns[node] = turns
        perform(actions, from: node)
        // As the node loop commits after its first turn: from here `changedValues()` offers only
        // what changes, and the next kill checks that it offered every change.
        if !downNodes.contains(node) { commitValues(node) }
        return true
    }
}
