import Foundation

/// Where the command line writes: data to stdout, everything else to stderr (cli.md). Knows
/// whether each is a terminal, and whether colour is allowed (a TTY and no `NO_COLOR`).
public final class Console: @unchecked Sendable {
    private let lock = NSLock()
    private let writeOut: (String) -> Void
    private let writeErr: (String) -> Void
    public let stdoutIsTTY: Bool
    public let stderrIsTTY: Bool
    public let stdinIsTTY: Bool
    public let colorAllowed: Bool
    /// Set when stderr is the systemd journal: lines get `<N>` priority prefixes.
    public let journal: Bool
    private let readLineFromInput: () -> String?

    public init(stdoutIsTTY: Bool, stderrIsTTY: Bool, stdinIsTTY: Bool, noColor: Bool, journal: Bool,
                writeOut: @escaping (String) -> Void, writeErr: @escaping (String) -> Void,
                readLine: @escaping () -> String? = { nil }) {
        self.stdoutIsTTY = stdoutIsTTY; self.stderrIsTTY = stderrIsTTY; self.stdinIsTTY = stdinIsTTY
        self.colorAllowed = stdoutIsTTY && !noColor
        self.journal = journal
        self.writeOut = writeOut; self.writeErr = writeErr; self.readLineFromInput = readLine
    }

    /// The process's own streams.
    public static func standard(environment: [String: String]) -> Console {
        Console(stdoutIsTTY: isatty(1) == 1, stderrIsTTY: isatty(2) == 1, stdinIsTTY: isatty(0) == 1,
                noColor: environment["NO_COLOR"] != nil,
                journal: Console.stderrIsJournal(environment["JOURNAL_STREAM"]),
                writeOut: { stdoutStream.write($0) },
                writeErr: { stderrStream.write($0) },
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

private let stdoutStream = OutputStream(descriptor: 1)
private let stderrStream = OutputStream(descriptor: 2)

/// One of the process's output streams, written with write(2).
///
/// FileHandle.write traps (`try!`) when the reader has gone away (`replan run | head`), which
/// killed a nightly run after some students were planned (issue 13, item 8). Here a failed
/// write (EPIPE, EBADF, EIO…) marks the stream closed and later output is dropped: the run
/// goes on, commits every student and exits with the code that says how the run went.
final class OutputStream: @unchecked Sendable {
    private let descriptor: Int32
    private let lock = NSLock()
    private var closed = false

    init(descriptor: Int32) { self.descriptor = descriptor }

    /// Whether a write has failed (nobody reads this stream any more).
    var isClosed: Bool { lock.withLock { closed } }

    func write(_ text: String) {
        lock.withLock {
            guard !closed else { return }
            var bytes = Array(text.utf8)
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeMutableBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
                if n > 0 { offset += n; continue }
                if n < 0 && errno == EINTR { continue }
                closed = true
                return
            }
        }
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
