import Foundation
import Planning
import Store

extension CommandContext {
    /// Opens (creating if needed) the database; failures exit 73 as cli.md says.
    func openDatabase() throws(CLIError) -> Database { try openDatabaseAt(databasePath) }

    /// Opens the database for a command that only reads (`log`, `show`, `stats`, `user list`,
    /// `task list`, `export`): a missing or empty file is an error naming the path looked for,
    /// never a new database (a mistyped `--db` used to create one, directories included).
    func openExistingDatabase() throws(CLIError) -> Database {
        var info = stat()
        guard stat(databasePath, &info) == 0 else {
            throw CLIError(
                .cannotOpenDatabase,
                "no database at \(databasePath) (\(String(cString: strerror(errno)))); looked there because of \(databasePathSource); nothing was created"
            )
        }
        guard info.st_size > 0 else {
            throw CLIError(
                .cannotOpenDatabase,
                "\(databasePath) is empty, not a replan database yet (looked there because of \(databasePathSource))")
        }
        return try openDatabaseAt(databasePath)
    }

    /// Where the database path came from, for messages about a missing database.
    /// (`--db`, `$REPLAN_DB`, the configuration file and line, `$STATE_DIRECTORY`, or the
    /// default location: resolved once, in `CommandContext.databaseLocation`.)
    var databasePathSource: String { databaseSource }

    func openDatabaseAt(_ databasePath: String) throws(CLIError) -> Database {
        let dir = (databasePath as NSString).deletingLastPathComponent
        if !dir.isEmpty, !FileManager.default.fileExists(atPath: dir) {
            // Only the default location's parent is created; it holds one user's private data.
            if let reason = makeDirectories(dir) {
                throw CLIError(.cannotOpenDatabase, "cannot create directory \(dir) for the database: \(reason)")
            }
        }
        do { return try Database.open(path: databasePath) } catch { throw CLIError(store: error) }
    }

    /// `mkdir -p` with mode 0700; nil on success, else the system's reason ("Not a directory"),
    /// which says more than Foundation's "NSCocoaErrorDomain error 512".
    private func makeDirectories(_ dir: String) -> String? {
        var path = dir.hasPrefix("/") ? "" : "."
        for component in dir.split(separator: "/") {
            path += "/" + component
            if mkdir(path, 0o700) != 0 && errno != EEXIST { return "\(path): \(String(cString: strerror(errno)))" }
        }
        return nil
    }
}

extension CLIError {
    /// The exit code and message of a store failure.
    init(store error: StoreError) {
        switch error {
        case .cannotOpen, .notADatabase, .notReplanDatabase, .schemaTooNew:
            self.init(.cannotOpenDatabase, error.description)
        case .duplicateUser, .unknownUser, .unknownChangeset, .foreignRow: self.init(.badInput, error.description)
        case .alreadyUndone, .notUndone: self.init(.badInput, error.description)
        case .conflict: self.init(.conflicts, error.description)
        case .sqlite where error.isBusy:
            self.init(.locked, "the database is busy (another replan process holds it); try again later")
        default: self.init(.internalError, error.description)
        }
    }
}

/// Runs a store call, turning its error into the CLI's.
func storeCall<T>(_ body: () throws(StoreError) -> T) throws(CLIError) -> T {
    do { return try body() } catch { throw CLIError(store: error) }
}

/// Parses user-given values of the CLI.
enum CLIValues {
    static func date(_ text: String, option: String) throws(CLIError) -> CivilDate {
        guard let d = CivilDate(text) else { throw .badInput("\(option) '\(text)' is not a date YYYY-MM-DD") }
        return d
    }

    /// A local date-time, a date (all-day), or an instant with offset converted into `zone`.
    static func dateTime(_ text: String, option: String, zone: UserZone, allDay: Bool) throws(CLIError) -> CivilDateTime
    {
        if allDay, let d = CivilDate(text) { return CivilDateTime(date: d, time: TimeOfDay(minutes: 0)) }
        if let t = CivilDateTime(text) { return t }
        if let instant = Timestamp.date(text) { return zone.civil(instant) }
        throw .badInput(
            "\(option) '\(text)' is not a local date-time YYYY-MM-DDTHH:MM\(allDay ? " or a date YYYY-MM-DD" : "")")
    }

    static func zone(_ text: String) throws(CLIError) -> UserZone {
        do { return try UserZone(identifier: text) } catch { throw .badInput("--time-zone: \(error.message)") }
    }

    static func color(_ text: String) throws(CLIError) -> TaskColor {
        guard let c = TaskColor(importing: text) else {
            throw .badInput("--color '\(text)' is not red, yellow, green or blue")
        }
        return c
    }
}

extension DataError {
    /// A validation failure of a command-line value, naming the option.
    func asCLIError(option: String? = nil) -> CLIError {
        .badInput(option.map { "\($0): \(message)" } ?? description)
    }
}
