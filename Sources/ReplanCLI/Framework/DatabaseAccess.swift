import Foundation
import Nightly
import Planning

extension CommandContext {
    /// Opens (creating if needed) the database; failures exit 73 (docs/commands.md §5). Only
    /// the commands that bring students in (`user add`, `import`) create a database; every
    /// other one opens an existing one (`openExistingDatabase`).
    func openDatabase() throws(CLIError) -> ReplanDatabase { try openDatabaseAt(databasePath) }

    /// Opens the database for every command but `user add` and `import`: a missing or empty
    /// file is an error naming the path looked for, never a new database (a mistyped `--db`
    /// used to create one, directories included, and `run` on it reported a green night).
    func openExistingDatabase() throws(CLIError) -> ReplanDatabase {
        try useCase { () throws(UseCaseError) in
            try ReplanDatabase.openExisting(path: databasePath, source: databasePathSource)
        }
    }

    /// Where the database path came from, for messages about a missing database.
    /// (`--db`, `$REPLAN_DB`, the configuration file and line, `$STATE_DIRECTORY`, or the
    /// default location: resolved once, in `ReplanSettings.databaseLocation`.)
    var databasePathSource: String { databaseSource }

    func openDatabaseAt(_ databasePath: String) throws(CLIError) -> ReplanDatabase {
        try useCase { () throws(UseCaseError) in try ReplanDatabase.open(path: databasePath) }
    }
}

extension CLIError {
    /// The exit code and message of a use case's failure.
    init(_ error: UseCaseError) {
        switch error.kind {
        case .cannotOpenDatabase: self.init(.cannotOpenDatabase, error.message)
        case .badInput: self.init(.badInput, error.message)
        case .conflicts: self.init(.conflicts, error.message)
        case .locked: self.init(.locked, error.message)
        case .internalError: self.init(.internalError, error.message)
        }
    }
}

/// Runs a use case, turning its error into the CLI's.
func useCase<T>(_ body: () throws(UseCaseError) -> T) throws(CLIError) -> T {
    do { return try body() } catch { throw CLIError(error) }
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
            throw .badInput("--task-color '\(text)' is not red, yellow, green or blue")
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
