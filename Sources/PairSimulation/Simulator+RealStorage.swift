import Foundation
import PairSimCore
import PairSimRuntime

/// The real storage under the nemesis (R: K8). In a run that plays it, each node commits every
/// turn to the journal and SQLite a node process runs, on a faulty disk (`SimulatedDiskStorage`)
/// in a temporary directory (`SimulatedDiskStorage.temporaryDirectory`), as well as to its in-memory image; it settles when it is idle and
/// restarts from the files. Each kill is a storage fault drawn from the seed:
///
/// - `between writes`: a kill between turns (the page cache keeps every write; none was synced);
/// - `torn write`: a kill inside a turn's commit — the write it was in reaches the file cut short
///   (a torn journal entry, a transaction whose commit never reached the WAL), and the turn is
///   durable or not as the files say;
/// - `torn settle`: a kill while the journal's turns were being written into SQLite;
/// - `power loss`: only for nodes that promise to survive one (`sync.durability: power`) — the
///   writes never synced are undone, but a prefix of each file's, and one may be torn.
///
/// At every start the state read back from the files must be exactly what the image holds: a
/// difference is a finding (`storageFindings`), and the run fails.
/// A storage fault a kill brought (`kind`: `between writes`, `torn write`, `after its commit`, `torn settle`).
public struct StorageFault: Sendable, CustomStringConvertible {
    public var node: NodeName
    public var at: EmulatedInstant
    public var kind: String
    public var description: String { "\(node) at \(at): \(kind)" }
}

extension Simulator {
    /// The simulated kernel writes dirty pages back after this long (Linux: `dirty_expire_centisecs`, 30 s).
    static let writebackInterval = EmulatedDuration.seconds(30)

    mutating func openDisks() {
        let base = SimulatedDiskStorage.temporaryDirectory + "pairsim-disk-\(ProcessInfo.processInfo.globallyUniqueString)"
        do {
            // A node that promises to survive a power loss (`sync.durability: power`) meets them.
            let power = topology.reliability.durability == .power
            idleSettleChance = storageRandom.chance(0.25) ? 0 : 0.5
            for node in [NodeName.watch, .phone] {
                disks[node] = try SimulatedDiskStorage(directory: "\(base)-\(node)", powerLoss: power || powerLossRegardless, syncsTurns: power)
            }
        } catch {
            disks = [:]
            failedCommands.append("the real storage could not be set up in \(base): \(error)")
        }
    }

    /// Makes every kill a power loss on the real storage, whatever the nodes promise (tests: what
    /// one takes from a node with `sync.durability: kill`). Call before `run`.
    mutating func losePowerAtEveryKill() {
        powerLossRegardless = true
        openDisks()
    }

    /// True when this run plays the real storage.
    public var runsRealStorage: Bool { !disks.isEmpty }

    /// Per node on the real storage: turns committed and rows SQLite wrote (`pairsim-bench rows`).
    public var storageCounts: [NodeName: (turns: Int, rows: Int)] { disks.mapValues { ($0.turns, $0.rowsWritten) } }

    /// What a starting node reads: its image, or the real storage's files checked against the image.
    mutating func committedState(_ node: NodeName) -> PersistedState? {
        guard let disk = disks[node] else { return durable[node].load() }
        let state: PersistedState
        do {
            state = try disk.open()
        } catch {
            storageFindings.append("\(now) \(node) could not start from its files: \(error)")
            return nil
        }
        var problems = state.differences(from: durable[node].load())
        if !problems.isEmpty, let turn = inFlight[node] {
            // The turn the process died in reached the files whole after all.
            var with = durable[node]
            with.commit(turn.operations, values: turn.values)
            if state.differences(from: with.load()).isEmpty {
                durable[node] = with
                problems = []
            }
        }
        inFlight[node] = nil
        if !problems.isEmpty {
            storageFindings.append("\(now) \(node) restarted from files that differ from what it committed: " + problems.prefix(3).joined(separator: "; "))
        }
        return state
    }

    /// Commits a turn to the node's real storage; false when its process died in the commit
    /// (armed by a mid-turn kill: `dying`).
    mutating func commitToDisk(_ node: NodeName, _ operations: [PersistOp], _ values: NodeValues, dying: Bool) -> Bool {
        let disk = disks[node]!
        if dying {
            // Somewhere in this commit's first writes, cut anywhere in the write.
            disk.dieAfter(writes: Int(storageRandom.next() % 3), cut: Int(storageRandom.next() % 2_048))
        }
        do {
            if try disk.commit(operations, values: values) { return true }
            inFlight[node] = (operations, values)
        } catch {
            storageFindings.append("\(now) \(node) could not commit a turn: \(error)")
        }
        return false
    }

    /// The node's process is killed: the storage fault it meets. Returns its name for `node.killed`.
    mutating func killDisk(_ node: NodeName, midTurn: Bool) -> String {
        let disk = disks[node]!
        let fault: String
        if midTurn || disk.isDead {
            // Died in the commit (its last write cut short), or right after it.
            fault = inFlight[node] != nil ? "torn write" : "after its commit"
        } else if disk.powerLoss, powerLossRegardless || storageRandom.chance(0.4) {
            fault = "power loss"
            do {
                _ = try disk.loseUnsyncedWrites(random: storageRandom.next())
            } catch {
                storageFindings.append("\(now) \(node) could not lose power: \(error)")
            }
        } else if storageRandom.chance(0.5), disk.unsettledTurns > 0 {
            fault = "torn settle"
            disk.dieAfter(writes: Int(storageRandom.next() % 4), cut: Int(storageRandom.next() % 4_096))
            do {
                _ = try disk.settle()
            } catch {
                storageFindings.append("\(now) \(node) could not settle its journal: \(error)")
            }
        } else {
            fault = "between writes"
        }
        disk.kill()
        storageFaults.append(StorageFault(node: node, at: now, kind: fault))
        return fault
    }

    /// Nothing more happens before `next`: each node that is up settles its journal into SQLite,
    /// as an idle node loop does — or, half the time, is too busy to and settles at a later idle
    /// moment (so kills find turns in the journal to tear a settle of; on a quarter of the seeds it
    /// never does, and settles at the journal's limit) — and the kernel writes back
    /// what is older than its interval (looked at once an emulated second at most).
    mutating func idle(until next: EmulatedInstant) {
        guard !disks.isEmpty else { return }
        for node in [NodeName.watch, .phone] where !downNodes.contains(node) && disks[node]!.unsettledTurns > 0 && storageRandom.chance(idleSettleChance) {
            let disk = disks[node]!
            do {
                _ = try disk.settle()
            } catch {
                storageFindings.append("\(now) \(node) could not settle its journal: \(error)")
            }
        }
        // The writes from here on happen at `next`; what is older than the interval then is written back.
        let writesBack = next - lastWriteback >= .seconds(1)
        if writesBack { lastWriteback = next }
        for disk in disks.values {
            disk.setTime(next.milliseconds)
            if writesBack { disk.writeback(before: (next - Self.writebackInterval).milliseconds) }
        }
    }
}
