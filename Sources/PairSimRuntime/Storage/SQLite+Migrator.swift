/// The schema's migrations, each run once, in order, in its own transaction, and recorded in
/// `grdb_migrations` as GRDB's `DatabaseMigrator` records them (databases it migrated open as before).
struct DatabaseMigrator {
    private var registered: [(identifier: String, migrate: (Database) throws -> Void)] = []

    mutating func registerMigration(_ identifier: String, migrate: @escaping (Database) throws -> Void) {
        precondition(!migrations.contains(identifier), "migration \(identifier) registered twice")
        registered.append((identifier, migrate))
    }

    /// The identifiers, in order.
    var migrations: [String] { registered.map(\.identifier) }

    /// Every migration recorded as applied, known to this build or not.
    func appliedIdentifiers(_ db: Database) throws -> Set<String> {
        guard try db.tableExists("grdb_migrations") else { return [] }
        return try String.fetchSet(db, sql: "SELECT identifier FROM grdb_migrations")
    }

    /// Runs the migrations not applied yet, up to `target` (included; nil: all).
    func migrate(_ queue: DatabaseQueue, upTo target: String? = nil) throws {
        let last = target.map { target in
            guard let index = migrations.firstIndex(of: target) else { preconditionFailure("no migration \(target)") }
            return index
        } ?? registered.count - 1
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            let applied = try appliedIdentifiers(db)
            for migration in registered.prefix(last + 1) where !applied.contains(migration.identifier) {
                try db.inTransaction("BEGIN IMMEDIATE") { db in
                    try migration.migrate(db)
                    try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [migration.identifier])
                }
            }
        }
    }
}
