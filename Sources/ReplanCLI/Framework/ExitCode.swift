/// The process exit codes of docs/commands.md §5.
package enum ExitCode: Int32, Sendable {
    case success = 0
    /// The job ran but at least one user failed.
    case someUsersFailed = 1
    /// Undo/redo refused because rows changed since.
    case conflicts = 2
    /// `status`: the health check could not look (Nagios UNKNOWN); `status` reports WARNING
    /// as 1 and CRITICAL as 2, the monitoring convention.
    case statusUnknown = 3
    case usage = 64
    /// Bad input data: import files, flag values.
    case badInput = 65
    /// The model was unavailable for every user.
    case modelUnavailable = 69
    case internalError = 70
    case cannotOpenDatabase = 73
    /// Another run holds the lock; try again later.
    case locked = 75
    case interrupted = 130
    case terminated = 143
}

extension ExitCode {
    /// A stable name for the code in JSON errors (`replan.error/1`).
    var kind: String {
        switch self {
        case .success: "success"
        case .someUsersFailed: "some-users-failed"
        case .conflicts: "conflicts"
        case .statusUnknown: "unknown"
        case .usage: "usage"
        case .badInput: "bad-input"
        case .modelUnavailable: "model-unavailable"
        case .internalError: "internal-error"
        case .cannotOpenDatabase: "cannot-open-database"
        case .locked: "locked"
        case .interrupted: "interrupted"
        case .terminated: "terminated"
        }
    }
}
