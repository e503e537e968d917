import Foundation
import Synchronization

/// Where the command line writes: data to stdout, everything else to stderr (docs/commands.md §1). Knows
/// whether each is a terminal, and whether colour is allowed: `--color=always|never`, else
/// (`auto`) stdout is a terminal, `NO_COLOR` is unset or empty and `TERM` is not `dumb`.
package final class Console: Sendable {
    /// Held while writing, so lines of concurrent workers never interleave.
    private let writing = Mutex(())
    private let writeOut: @Sendable (String) -> Void
    private let writeErr: @Sendable (String) -> Void
    package let stdoutIsTTY: Bool
    package let stderrIsTTY: Bool
    package let stdinIsTTY: Bool
    /// What `auto` colour would be (a terminal, no `NO_COLOR`, a capable `TERM`).
    private let colorByDefault: Bool
    private let colorMode = Mutex(ColorMode.auto)
    package var colorAllowed: Bool {
        colorMode.withLock { colorMode in
            switch colorMode {
            case .always: return true
            case .never: return false
            case .auto: return colorByDefault
            }
        }
    }
    /// Whether stderr can redraw a progress bar in place (a terminal that is not `TERM=dumb`).
    package let stderrRedraws: Bool
    /// Set when stderr is the systemd journal: lines get `<N>` priority prefixes.
    package let journal: Bool
    private let readLineFromInput: @Sendable () -> String?

    package init(
        stdoutIsTTY: Bool, stderrIsTTY: Bool, stdinIsTTY: Bool, noColor: Bool, journal: Bool,
        dumbTerminal: Bool = false,
        writeOut: @escaping @Sendable (String) -> Void, writeErr: @escaping @Sendable (String) -> Void,
        readLine: @escaping @Sendable () -> String? = { nil }
    ) {
        self.stdoutIsTTY = stdoutIsTTY
        self.stderrIsTTY = stderrIsTTY
        self.stdinIsTTY = stdinIsTTY
        self.colorByDefault = stdoutIsTTY && !noColor && !dumbTerminal
        self.stderrRedraws = stderrIsTTY && !dumbTerminal
        self.journal = journal
        self.writeOut = writeOut
        self.writeErr = writeErr
        self.readLineFromInput = readLine
    }

    /// The process's own streams.
    package static func standard(environment: [String: String]) -> Console {
        // no-color.org: NO_COLOR "present and not an empty string" disables colour.
        Console(
            stdoutIsTTY: isatty(1) == 1, stderrIsTTY: isatty(2) == 1, stdinIsTTY: isatty(0) == 1,
            noColor: !(environment["NO_COLOR"] ?? "").isEmpty,
            journal: Console.stderrIsJournal(environment["JOURNAL_STREAM"]),
            dumbTerminal: environment["TERM"] == "dumb",
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

    /// Applies `--color`; called once, before the command runs.
    package func setColorMode(_ mode: ColorMode) { colorMode.withLock { $0 = mode } }

    package func out(_ text: String) {
        let safe = Console.escapingControls(text, keepingColors: colorAllowed)
        writing.withLock { _ in writeOut(safe.hasSuffix("\n") ? safe : safe + "\n") }
    }

    /// A document written byte for byte (iCalendar needs its CRLF line ends); its writer has
    /// escaped the text fields in it already.
    package func outDocument(_ text: String) { writing.withLock { _ in writeOut(text) } }

    /// A log line on stderr, with a journald priority prefix under systemd.
    package func log(_ text: String, priority: LogPriority = .info) {
        // One call, one line: a newline inside (a student's title, a server's error text) would
        // start a line of its own, with a journald priority of its own (issue 28, item 7).
        let safe = Console.escapingControls(text, keepingColors: colorAllowed, singleLine: true)
        writing.withLock { _ in writeErr((journal ? "<\(priority.rawValue)>" : "") + safe + "\n") }
    }

    /// `text` with every control character except newline and tab shown as `\u{XX}`; with
    /// `singleLine`, newlines too.
    ///
    /// Titles, notes, categories and a model server's error text are other people's text: a
    /// terminal escape in one of them reached the terminal and the journal as is (issue 13).
    /// With `keepingColors`, the colour sequences `paint` writes (`ESC [ digits m`) stay:
    /// they can only colour text. JSON output has no raw control characters to begin with.
    static func escapingControls(_ text: String, keepingColors: Bool, singleLine: Bool = false) -> String {
        let newline: UInt32 = singleLine ? 0x09 : 0x0A // with singleLine only tab is let through
        func isControl(_ v: UInt32) -> Bool { (v < 0x20 && v != 0x09 && v != newline) || (0x7F...0x9F).contains(v) }
        // The usual line has none: one pass over its bytes (C1 controls are two bytes from 0xC2 0x80).
        guard
            text.utf8.contains(where: {
                $0 < 0x20 && $0 != 0x09 && UInt32($0) != newline || $0 == 0x7F || $0 == 0xC2
            })
        else {
            return text
        }
        let scalars = Array(text.unicodeScalars)
        var result = String.UnicodeScalarView()
        var i = 0
        while i < scalars.count {
            let v = scalars[i].value
            if v == 0x1B && keepingColors, let end = Console.colorSequenceEnd(scalars, from: i) {
                result.append(contentsOf: scalars[i...end])
                i = end + 1
                continue
            }
            if isControl(v) {
                result.append(contentsOf: "\\u{\(String(v, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                result.append(scalars[i])
            }
            i += 1
        }
        return String(result)
    }

    /// Text from students or servers for one line of a multi-line `out` (a title in a list, an
    /// error in a log line): line breaks shown as `\u{A}` and `\u{D}`, like every other
    /// control character, so it can never start a line of its own.
    package static func oneLine(_ text: String) -> String {
        escapingControls(text, keepingColors: false, singleLine: true)
    }

    /// The index of the `m` closing a colour sequence `ESC [ [0-9;]* m` that starts at `start`.
    private static func colorSequenceEnd(_ scalars: [Unicode.Scalar], from start: Int) -> Int? {
        var j = start + 1
        guard j < scalars.count, scalars[j] == "[" else { return nil }
        j += 1
        while j < scalars.count, j - start < 16 {
            let c = scalars[j]
            if c == "m" { return j }
            guard ("0"..."9").contains(c) || c == ";" else { return nil }
            j += 1
        }
        return nil
    }

    /// Raw stderr output (progress bars redraw in place).
    package func err(_ text: String) { writing.withLock { _ in writeErr(text) } }

    package func readLine() -> String? { readLineFromInput() }

    /// Colours text when colour is allowed.
    package func paint(_ text: String, _ color: TerminalColor) -> String {
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
final class OutputStream: Sendable {
    private let descriptor: Int32
    /// Whether a write failed; held while writing, so writes never interleave.
    private let closed = Mutex(false)

    init(descriptor: Int32) { self.descriptor = descriptor }

    func write(_ text: String) {
        closed.withLock { closed in
            guard !closed else { return }
            var bytes = Array(text.utf8)
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeMutableBytes {
                    Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset)
                }
                if n > 0 {
                    offset += n
                    continue
                }
                if n < 0 && errno == EINTR { continue }
                closed = true
                return
            }
        }
    }
}

/// syslog priorities as journald reads them from a `<N>` prefix.
package enum LogPriority: Int, Sendable {
    case error = 3
    case warning = 4
    case notice = 5
    case info = 6
    case debug = 7
}

/// ANSI colour codes used in human output.
package enum TerminalColor: String, Sendable {
    case red = "31"
    case green = "32"
    case yellow = "33"
    case blue = "34"
    case dim = "2"
    case bold = "1"
}

/// `--color=auto|always|never`.
package enum ColorMode: String, Sendable, CaseIterable {
    case auto, always, never
}
