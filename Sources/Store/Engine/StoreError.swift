import CSQLite

/// Everything that can go wrong in the store, typed so callers map it to exit codes and to
/// messages a user can act on.
///
/// SQLite failures carry the result code, the extended code, SQLite's own message and a short
/// description of the operation ("writing tasks", from `operationName`) — never the SQL text
/// or a bound value, so a student's titles or notes cannot leak into logs.
package enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The database file cannot be created or opened (missing directory, permissions). The CLI
    /// maps this to exit code 73.
    case cannotOpen(path: String, reason: String)
    /// The file exists but is not an SQLite database.
    case notADatabase(path: String)
    /// An SQLite database with tables but without replan's migration table: another
    /// application's file, left exactly as it was (exit 73).
    case notReplanDatabase(path: String)
    /// The database was migrated by a newer replan; this binary must not touch it.
    case schemaTooNew(path: String, found: Int, known: Int)
    /// A write to a database this process may only read (file or directory permissions, a
    /// read-only file system): a problem of where the database is, like `cannotOpen` (exit 73).
    case readOnly(path: String)
    /// An SQLite call failed.
    case sqlite(SQLiteFailure)
    /// The PostgreSQL server cannot be reached or refuses the login (unreachable, wrong
    /// password, no such database). Names the server, never the password (exit 73).
    case cannotConnect(server: String, reason: String)
    /// A `postgresql://` value libpq cannot read; the reason never repeats the URI (exit 73).
    case badLocation(reason: String)
    /// A PostgreSQL database with tables but without replan's `schema_migrations`: another
    /// application's, left exactly as it was (exit 73).
    case notReplanServerDatabase(server: String)
    /// A PostgreSQL database without any tables, opened by a command that only reads: nothing
    /// was created there (exit 73).
    case emptyServerDatabase(server: String)
    /// `copy-database` into a PostgreSQL database that already holds replan data (exit 73):
    /// nothing was copied.
    case targetNotEmpty(server: String, table: String)
    /// A night's commit for a claim that another worker has taken over since (its lease ran
    /// out): nothing of the night was written.
    case fenced(userID: String, attempt: Int)
    /// A PostgreSQL statement failed.
    case postgres(PostgresFailure)
    case duplicateUser(String)
    case unknownUser(String)
    case unknownChangeset(ChangesetID)
    /// Undo of a changeset that is already undone.
    case alreadyUndone(ChangesetID)
    /// Redo of a changeset that is applied (was never undone, or was redone already).
    case notUndone(ChangesetID)
    /// Rows changed since the changeset (or the plan it was computed from) saw them.
    case conflict(ChangesetConflict)
    /// An edit touches a row that belongs to another user: refused even with `force`.
    case foreignRow(entity: String, key: String)
    /// A stored row or a row image that does not decode; names the row, not its content.
    case malformedRow(entity: String, key: String, problem: String)

    /// SQLite's primary result code, when SQLite reported the failure.
    package var code: Int32? {
        if case .sqlite(let f) = self { return f.code }
        return nil
    }
    /// SQLite's extended result code, when SQLite reported the failure.
    package var extendedCode: Int32? {
        if case .sqlite(let f) = self { return f.extendedCode }
        return nil
    }

    /// Another connection holds a lock past the busy timeout: worth retrying later.
    package var isBusy: Bool {
        if case .postgres(let f) = self { return f.isBusy }
        return code == SQLITE_BUSY || code == SQLITE_LOCKED
    }

    package var description: String {
        switch self {
        case .cannotOpen(let path, let reason): return "cannot open database \(path): \(reason)"
        case .notADatabase(let path): return "\(path) is not a replan database (not an SQLite file)"
        case .notReplanDatabase(let path):
            return
                "\(path) is an SQLite database of another application (it has tables but no schema_migrations); replan leaves it untouched"
        case .schemaTooNew(let path, let found, let known):
            return
                "database \(path) has schema version \(found), newer than the \(known) this replan knows; upgrade replan"
        case .readOnly(let path):
            return
                "database \(path) is read-only for this process: replan needs to write the file and its directory (for the -wal and -shm files); check their owner and permissions, or the file system"
        case .sqlite(let f): return f.description
        case .cannotConnect(let server, let reason): return "cannot connect to PostgreSQL at \(server): \(reason)"
        case .badLocation(let reason): return "the PostgreSQL connection URI cannot be read: \(reason)"
        case .notReplanServerDatabase(let server):
            return
                "the PostgreSQL database \(server) has tables but no schema_migrations: another application's; replan leaves it untouched"
        case .emptyServerDatabase(let server):
            return "the PostgreSQL database \(server) has no replan data yet (no tables); nothing was created there"
        case .targetNotEmpty(let server, let table):
            return
                "the PostgreSQL database \(server) already holds replan data (\(table) has rows); copy-database only fills an empty one, and copied nothing"
        case .fenced(let user, let attempt):
            return
                "late commit refused for \(user): attempt \(attempt) of its claim was taken over by another worker after this worker's lease ran out; nothing written"
        case .postgres(let f): return f.description
        case .duplicateUser(let id): return "user '\(id)' already exists"
        case .unknownUser(let id): return "no user '\(id)'"
        case .unknownChangeset(let id): return "no changeset '\(id)'"
        case .alreadyUndone(let id): return "changeset \(id) is already undone"
        case .notUndone(let id): return "changeset \(id) is applied; only an undone changeset can be redone"
        case .conflict(let c): return c.description
        case .foreignRow(let entity, let key): return "\(entity) \(key) belongs to another user"
        case .malformedRow(let entity, let key, let problem): return "stored \(entity) \(key) is malformed: \(problem)"
        }
    }
}

/// One failed SQLite call: codes, SQLite's message and what was being done.
package struct SQLiteFailure: Equatable, Sendable, CustomStringConvertible {
    package var code: Int32
    package var extendedCode: Int32
    package var message: String
    /// What the store was doing, e.g. `writing tasks` (`operationName`): never the SQL text or
    /// a bound value.
    package var operation: String

    package init(code: Int32, extendedCode: Int32, message: String, operation: String) {
        self.code = code
        self.extendedCode = extendedCode
        self.message = message
        self.operation = operation
    }

    package var description: String {
        "database error while \(operation): \(message) (SQLite \(code), extended \(extendedCode))"
    }
}

extension StoreError {
    /// The failure of the last call on `db`, described by `operation`. A write refused because
    /// the connection is read-only names the database instead (issue 28, item 17).
    static func sqlite(_ db: OpaquePointer?, _ result: Int32, _ operation: String) -> StoreError {
        if result & 0xff == SQLITE_READONLY, let db, let name = sqlite3_db_filename(db, "main") {
            return .readOnly(path: String(cString: name))
        }
        let message =
            db.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(result))
        let extended = db.map { sqlite3_extended_errcode($0) } ?? result
        return .sqlite(
            SQLiteFailure(code: result & 0xff, extendedCode: extended, message: message, operation: operation))
    }
}

/// A short description of what a statement does, for error messages: "writing tasks",
/// "reading users", never the SQL text itself (issue 28, item 17: a message with exit 70
/// quoted half a statement at the operator). `verb` says which SQLite call failed.
func operationName(_ verb: String, _ sql: String) -> String {
    let words = sql.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "(" || $0 == "," })
        .prefix(64).map { $0.uppercased() }
    func table(after keyword: String) -> String? {
        guard let i = words.firstIndex(of: keyword), i + 1 < words.count else { return nil }
        return String(words[i + 1].lowercased().filter { $0 != "\"" && $0 != "`" && $0 != ";" })
    }
    let what: String
    switch words.first ?? "" {
    case "INSERT", "REPLACE": what = table(after: "INTO").map { "writing \($0)" } ?? "writing"
    case "UPDATE":
        let name = words.dropFirst().first {
            $0 != "OR" && !["ROLLBACK", "ABORT", "REPLACE", "FAIL", "IGNORE"].contains($0)
        }
        what = name.map { "updating \($0.lowercased())" } ?? "updating"
    case "DELETE": what = table(after: "FROM").map { "deleting from \($0)" } ?? "deleting"
    case "SELECT", "WITH": what = table(after: "FROM").map { "reading \($0)" } ?? "reading"
    case "CREATE", "ALTER", "DROP": what = "changing the schema"
    case "BEGIN", "COMMIT", "END", "SAVEPOINT", "RELEASE", "ROLLBACK": what = "a transaction"
    case "PRAGMA": what = "configuring the connection"
    default: what = "a statement"
    }
    return verb == "step" ? what : "\(what) (\(verb))"
}
