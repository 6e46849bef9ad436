import PairSimCore

/// A node's storage: `state.sqlite` (`SQLiteStorage`) behind a turn journal (`TurnJournal`).
///
/// A small turn — the phone taking one sample, the watch sending one — is durable once appended
/// to the journal, and is written to SQLite later, together with the turns after it, when the
/// node has nothing else to do (`settle`) or the journal holds `maxUnsettledTurns`. A large turn,
/// or one with an operation the journal does not carry, is committed to SQLite directly, after
/// the journal's turns, in the same transaction. Each SQLite commit records the last turn it holds
/// (`journal_mark`): entries up to it are never applied again.
///
/// Power loss. With `sync.durability: power` each turn's entry is synced before the turn returns,
/// so a power loss takes nothing committed. By default (`kill`) the journal is never synced, and
/// neither is a settle (WAL, `synchronous = NORMAL`).
/// The journal keeps every turn since the last synced SQLite commit, so whatever a power loss
/// takes from SQLite's unsynced settles is still in the journal, or gone from both the same way:
/// the node restarts from the state after one of its turns. A commit the journal does not hold
/// (a large turn) is synced, and only after a synced commit does the journal start again at its
/// beginning — otherwise a power loss could keep entries written after a commit it undid, and the
/// node would refuse its files ("the journal belongs to another state.sqlite"), as the faulty
/// disk's power loss found (FaultyDiskTests). Syncing each settle instead would be simpler but
/// puts an fsync (~150 µs here) into the node loop each time it goes idle, for data the journal
/// already keeps. Measured, it made no difference to the single-sample latency: p50 medians
/// 131 µs (this) and 135 µs (synced settles), 6 interleaved pairs of `pairsim-bench sync`.
///
/// Measured on the phone's one-sample turn (release build): the SQLite commit took ~105 µs of
/// CPU before the acknowledgement could leave; encoding and appending the turn here takes ~12 µs
/// (wall, median of 2,000 turns).
final class JournaledStorage: NodeStorage {
    let database: SQLiteStorage
    let journal: TurnJournal
    /// Journaled turns not yet in SQLite: their operations in order, their values merged (each
    /// value is whole, so the latest of a key is the one to keep).
    private var operations: [PersistOp] = []
    private var values = NodeValues()
    private(set) var unsettledTurns = 0
    /// The number of the last turn committed (turns count up across restarts).
    private var turn: UInt64 = 0
    /// The salt of the journal's current entries (`TurnJournal.checksum`).
    private var salt: UInt64 = 0
    private var loaded = false

    static let maxUnsettledTurns = 256

    /// Syncs each turn's journal entry before the turn returns (`sync.durability: power`).
    let syncsTurns: Bool

    /// Opens `<directory>/state.sqlite` and `<directory>/turns.journal` (the journal's entries
    /// through the simulator's faulty `disk`, when given; SQLite reaches it through its VFS).
    /// `syncsTurns`: a committed turn survives a power loss, not only a kill.
    init(directory: String, disk: OpaquePointer? = nil, syncsTurns: Bool = false) throws {
        database = try SQLiteStorage(path: directory + "/state.sqlite")
        journal = try TurnJournal(path: directory + "/turns.journal", disk: disk)
        self.syncsTurns = syncsTurns
    }

    /// Writes the journal's turns that are not in SQLite yet into it, then reads everything back.
    func load() throws -> PersistedState {
        let through = try database.journaledThrough()
        salt = try database.journalSalt()
        let entries = try journal.entries(after: through, salt: salt)
        for entry in entries { hold(entry.operations, entry.values) }
        turn = entries.last?.turn ?? through
        try settle(synced: true)
        try database.compactDeletedSamples()
        loaded = true
        return try database.load()
    }

    func commit(_ operations: [PersistOp], values: NodeValues) throws {
        // Before `load`, the journal may hold turns not yet in SQLite that this would overwrite.
        precondition(loaded, "Invalid state: a turn committed before the node's storage was loaded")
        turn += 1
        if var entry = TurnJournal.Entry.encode(turn: turn, salt: salt, operations: operations, values: values) {
            // The settle holds the turns before this one: this one is appended after it.
            if unsettledTurns >= Self.maxUnsettledTurns { try settle(synced: false, through: turn - 1) }
            // The journal starts again only after a synced commit (see above), with a new salt.
            if journal.end + entry.count > TurnJournal.mappedBytes {
                try settle(synced: true, through: turn - 1)
                entry = TurnJournal.Entry.encode(turn: turn, salt: salt, operations: operations, values: values)!
            }
            try journal.append(entry)
            if syncsTurns { try journal.sync() }
            hold(operations, values)
            return
        }
        let next = Self.newSalt()
        var merged = self.values
        merged.merge(values)
        try database.commit(self.operations + operations, values: merged, throughTurn: turn, synced: true, salt: next)
        forgetSettled()
        startJournal(salt: next)
    }

    /// Writes the journal's turns into SQLite (not synced: the journal keeps them).
    func settle() throws { try settle(synced: false) }

    /// `synced`: the commit is synced and the journal starts again; it holds turns through
    /// `through` (default: the last), even when none waits.
    private func settle(synced: Bool, through: UInt64? = nil) throws {
        let next = synced ? Self.newSalt() : nil
        if unsettledTurns > 0 || synced {
            try database.commit(operations, values: values, throughTurn: through ?? turn, synced: synced, salt: next)
        }
        forgetSettled()
        if let next { startJournal(salt: next) }
    }

    /// The journal starts again at its beginning, its entries checksummed with `salt` from now on.
    private func startJournal(salt: UInt64) {
        self.salt = salt
        journal.restart()
    }

    /// A salt for the journal's next entries: any value but the last will do, so a random one.
    static func newSalt() -> UInt64 { UInt64.random(in: 1...UInt64.max) }

    /// A durable turn not yet in SQLite.
    private func hold(_ operations: [PersistOp], _ values: NodeValues) {
        self.operations += operations
        self.values.merge(values)
        unsettledTurns += 1
    }

    private func forgetSettled() {
        operations = []
        values = NodeValues()
        unsettledTurns = 0
    }
}
