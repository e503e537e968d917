import CSQLite
import Foundation

/// Copies a replan SQLite database into an empty PostgreSQL database (`replan copy-database`):
/// every table, every row, every id and version as it is, in one transaction on the target, so
/// an interrupted copy leaves the target empty and can simply be run again.
///
/// What the copy keeps, and why each matters afterwards:
/// - row versions and changeset images byte for byte, so `undo` of a changeset made before the
///   move finds the versions it recorded and works on the new engine;
/// - the version counter: the target's `version_clock` sequence continues after the source's
///   counter, so no new write ever reuses a recorded version;
/// - ids of runs, user runs, focus sessions and outbox rows, and the outbox's high-water mark
///   (SQLite's `sqlite_sequence`), so a consumer's cursor stays valid across the move;
/// - the order of changesets written in the same second (SQLite's rowid becomes `seq`).
///
/// Columns are read from the source's own table definitions, and the schemas of the two
/// engines have the same columns by design (`PostgresSchema`), so a column added by a later
/// migration is copied without a change here; a table this copier does not know is refused
/// rather than left behind.
package struct DatabaseCopier {
    let source: Database
    let target: PostgresConnection

    package init(from source: Database, to target: PostgresConnection) {
        self.source = source
        self.target = target
    }

    /// Tables in an order that satisfies every foreign key, with the column that orders their
    /// rows (the copy is deterministic, and changesets keep their insertion order).
    package static let tables: [(name: String, order: String)] = [
        ("users", "id"), ("settings", "user_id"), ("tasks", "id"),
        ("occurrence_overrides", "task_id, original_date"), ("series_slides", "task_id, from_date"),
        ("statistics", "user_id, category"), ("statistics_base", "user_id"), ("focus_sessions", "id"),
        ("changesets", "rowid"), ("changeset_edits", "changeset_id, seq"), ("runs", "id"), ("user_runs", "id"),
        ("transcripts", "user_run_id"), ("notification_outbox", "id"), ("model_memory", "user_id"),
    ]
    /// Source tables that are bookkeeping of the engine or of the migrations, not data.
    static let notCopied: Set<String> = ["schema_migrations", "version_clock", "sqlite_sequence"]
    /// Identity columns whose sequences must continue after the copied ids.
    static let identities: [(table: String, column: String)] = [
        ("focus_sessions", "id"), ("runs", "id"), ("user_runs", "id"), ("notification_outbox", "id"),
        ("changesets", "seq"),
    ]
    /// Rows per INSERT: one round trip each, well under PostgreSQL's 65,535 parameters.
    static let rowsPerStatement = 200

    /// What a copy did, for the command's report.
    package struct Report: Sendable, Equatable {
        /// Rows copied, by table.
        package var rows: [String: Int] = [:]
        /// The target's next version will be above this.
        package var versionClock = 0
        package var outboxHighWater = 0

        package var total: Int { rows.values.reduce(0, +) }
    }

    /// Copies everything. - Throws: `.targetNotEmpty` when the target holds any replan data,
    /// `.malformedRow` for a source table this copier does not know; any engine failure (the
    /// target is then left as it was).
    package func copy() throws(StoreError) -> Report {
        let present = Set(
            try source.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'") {
                $0.text(0)
            })
        let known = Set(Self.tables.map(\.name))
        if let unknown = present.subtracting(known).subtracting(Self.notCopied).sorted().first {
            throw StoreError.malformedRow(
                entity: "table", key: unknown, problem: "this replan does not know how to copy it; nothing was copied")
        }
        return try source.read { (_) throws(StoreError) -> Report in
            try target.write { (_) throws(StoreError) -> Report in
                for table in Self.tables.map(\.name) {
                    let rows = try target.queryFirst("SELECT count(*) FROM \(table)") { $0.int(0) } ?? 0
                    if rows > 0 { throw StoreError.targetNotEmpty(server: target.location.description, table: table) }
                }
                var report = Report()
                for (table, order) in Self.tables where present.contains(table) {
                    report.rows[table] = try copyRows(of: table, orderedBy: order)
                }
                report.versionClock = try continueVersionClock()
                report.outboxHighWater = try continueIdentities()
                return report
            }
        }
    }

    /// Copies one table's rows in `order`, `rowsPerStatement` at a time. Changesets get their
    /// rowid as `seq`, so the target orders them as the source did.
    private func copyRows(of table: String, orderedBy order: String) throws(StoreError) -> Int {
        var columns = try source.query("SELECT name FROM pragma_table_info(?) ORDER BY cid", [.text(table)]) {
            $0.text(0)
        }
        let selected = columns.map { "\"\($0)\"" }.joined(separator: ", ") + (table == "changesets" ? ", rowid" : "")
        if table == "changesets" { columns.append("seq") }
        let insertColumns = columns.map { "\"\($0)\"" }.joined(separator: ", ")
        let statement = try source.prepare("SELECT \(selected) FROM \(table) ORDER BY \(order)")
        var pending: [SQLValue] = []
        var pendingRows = 0
        var copied = 0
        func flush() throws(StoreError) {
            guard pendingRows > 0 else { return }
            let row = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
            try target.execute(
                "INSERT INTO \(table) (\(insertColumns)) VALUES "
                    + Array(repeating: row, count: pendingRows).joined(separator: ", "), pending)
            copied += pendingRows
            pending.removeAll(keepingCapacity: true)
            pendingRows = 0
        }
        while try statement.step() {
            for column in 0..<Int32(columns.count) { pending.append(statement.value(column)) }
            pendingRows += 1
            if pendingRows == Self.rowsPerStatement { try flush() }
        }
        try flush()
        return copied
    }

    /// Sets the target's version sequence to the source's counter (or the highest version any
    /// row holds, if higher), so the next version is new on both counts.
    private func continueVersionClock() throws(StoreError) -> Int {
        let counter = try source.queryFirst("SELECT value FROM version_clock WHERE id = 1") { $0.int(0) } ?? 0
        var highest = counter
        for table in ["tasks", "occurrence_overrides", "series_slides"] {
            highest = max(
                highest, try target.queryFirst("SELECT coalesce(max(version), 0) FROM \(table)") { $0.int(0) } ?? 0)
        }
        if highest > 0 { try target.execute("SELECT setval('version_clock', ?, true)", [.integer(highest)]) }
        return highest
    }

    /// Moves every identity past the copied ids; the outbox's past the source's high-water
    /// mark too, so an acknowledged cursor never meets a new row at or below it.
    /// - Returns: the outbox's high-water mark.
    private func continueIdentities() throws(StoreError) -> Int {
        var outbox = 0
        for (table, column) in Self.identities {
            var highest = try target.queryFirst("SELECT coalesce(max(\(column)), 0) FROM \(table)") { $0.int(0) } ?? 0
            if table == "notification_outbox" {
                let issued =
                    try source.queryFirst("SELECT seq FROM sqlite_sequence WHERE name = 'notification_outbox'") {
                        $0.int(0)
                    } ?? 0
                highest = max(highest, issued)
                outbox = highest
            }
            guard highest > 0 else { continue }
            try target.execute(
                "SELECT setval(pg_get_serial_sequence(?, ?), ?, true)",
                [.text(table), .text(column), .integer(highest)])
        }
        return outbox
    }
}

extension Statement {
    /// The column as the value SQLite stores, for copying it elsewhere unchanged.
    func value(_ column: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(int(column))
        case SQLITE_FLOAT: return .real(double(column))
        case SQLITE_NULL: return .null
        case SQLITE_BLOB: return .blob(data(column) ?? Data())
        default: return .text(text(column))
        }
    }
}
