import Foundation

/// Where the command line writes: data to stdout, everything else to stderr (cli.md). Knows
/// whether each is a terminal, and whether colour is allowed: `--color=always|never`, else
/// (`auto`) stdout is a terminal, `NO_COLOR` is unset or empty and `TERM` is not `dumb`.
public final class Console: @unchecked Sendable {
    private let lock = NSLock()
    private let writeOut: (String) -> Void
    private let writeErr: (String) -> Void
    public let stdoutIsTTY: Bool
    public let stderrIsTTY: Bool
    public let stdinIsTTY: Bool
    /// What `auto` colour would be (a terminal, no `NO_COLOR`, a capable `TERM`).
    private let colorByDefault: Bool
    private var colorMode = ColorMode.auto
    public var colorAllowed: Bool {
        lock.withLock {
            switch colorMode {
            case .always: return true
            case .never: return false
            case .auto: return colorByDefault
            }
        }
    }
    /// Whether stderr can redraw a progress bar in place (a terminal that is not `TERM=dumb`).
    public let stderrRedraws: Bool
    /// Set when stderr is the systemd journal: lines get `<N>` priority prefixes.
    public let journal: Bool
    private let readLineFromInput: () -> String?

    public init(stdoutIsTTY: Bool, stderrIsTTY: Bool, stdinIsTTY: Bool, noColor: Bool, journal: Bool,
                dumbTerminal: Bool = false,
                writeOut: @escaping (String) -> Void, writeErr: @escaping (String) -> Void,
                readLine: @escaping () -> String? = { nil }) {
        self.stdoutIsTTY = stdoutIsTTY; self.stderrIsTTY = stderrIsTTY; self.stdinIsTTY = stdinIsTTY
        self.colorByDefault = stdoutIsTTY && !noColor && !dumbTerminal
        self.stderrRedraws = stderrIsTTY && !dumbTerminal
        self.journal = journal
        self.writeOut = writeOut; self.writeErr = writeErr; self.readLineFromInput = readLine
    }

    /// The process's own streams.
    public static func standard(environment: [String: String]) -> Console {
        // no-color.org: NO_COLOR "present and not an empty string" disables colour.
        Console(stdoutIsTTY: isatty(1) == 1, stderrIsTTY: isatty(2) == 1, stdinIsTTY: isatty(0) == 1,
                noColor: !(environment["NO_COLOR"] ?? "").isEmpty,
                journal: Console.stderrIsJournal(environment["JOURNAL_STREAM"]),
                dumbTerminal: environment["TERM"] == "dumb",
                writeOut: { FileHandle.standardOutput.write(Data($0.utf8)) },
                writeErr: { FileHandle.standardError.write(Data($0.utf8)) },
                readLine: { Swift.readLine() })
    }

    /// `JOURNAL_STREAM` is "device:inode" of the journal socket; it only counts when it names
    /// our actual stderr (a child of a journald unit may have had stderr redirected).
    static func stderrIsJournal(_ value: String?) -> Bool {
        guard let value else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let dev = UInt64(parts[0]), let ino = UInt64(parts[1]) else { return false }
        var st = stat()
        guard fstat(2, &st) == 0 else { return false }
        return UInt64(st.st_dev) == dev && UInt64(st.st_ino) == ino
    }

    /// Applies `--color`; called once, before the command runs.
    public func setColorMode(_ mode: ColorMode) { lock.withLock { colorMode = mode } }

    /// Data written exactly as given: iCalendar ends with CRLF, and `out`'s check for a final
    /// newline does not see one there ("\r\n" is one Character), which left a stray LF.
    public func write(_ text: String) { lock.withLock { writeOut(text) } }

    public func out(_ text: String) { lock.withLock { writeOut(text.hasSuffix("\n") ? text : text + "\n") } }

    /// A log line on stderr, with a journald priority prefix under systemd.
    public func log(_ text: String, priority: LogPriority = .info) {
        lock.withLock { writeErr((journal ? "<\(priority.rawValue)>" : "") + text + "\n") }
    }

    /// Raw stderr output (progress bars redraw in place).
    public func err(_ text: String) { lock.withLock { writeErr(text) } }

    public func readLine() -> String? { readLineFromInput() }

    /// Colours text when colour is allowed.
    public func paint(_ text: String, _ color: TerminalColor) -> String {
        colorAllowed ? "\u{1B}[\(color.rawValue)m\(text)\u{1B}[0m" : text
    }
}

/// syslog priorities as journald reads them from a `<N>` prefix.
public enum LogPriority: Int, Sendable {
    case error = 3, warning = 4, notice = 5, info = 6, debug = 7
}

/// ANSI colour codes used in human output.
public enum TerminalColor: String, Sendable {
    case red = "31", green = "32", yellow = "33", blue = "34", dim = "2", bold = "1"
}

/// `--color=auto|always|never`.
public enum ColorMode: String, Sendable, CaseIterable {
    case auto, always, never
}
