import Foundation

/// `replan man`: the replan(1) manual page in roff, generated from the commands' declarations,
/// the settings table and the exit codes, so it says exactly what `--help` says.
/// `man <(replan man)` reads it; the package installs it as `replan.1.gz`.
struct ManPageCommand: ReplanCommand {
    static let configuration = CommandConfiguration(
        name: "man", abstract: "print the replan(1) manual page (roff); read it with: man <(replan man)")

    func run(_ ctx: CommandContext) throws -> ExitCode {
        ctx.console.out(Self.page())
        return .success
    }

    /// Text escaped for roff: backslashes, hyphens of options (so they copy as ASCII), and a
    /// leading dot or quote, which would start a request.
    static func escape(_ text: String) -> String {
        var s = text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
        // Non-ASCII as groff's Unicode escapes, so the page needs no preprocessor (preconv).
        s = String(s.unicodeScalars.map { $0.isASCII ? String($0) : String(format: "\\[u%04X]", $0.value) }.joined())
        s = s.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : String(line)
        }.joined(separator: "\n")
        return s
    }

    static func page() -> String {
        var r = """
            .TH REPLAN 1 "" "replan \(ReplanVersion.current)" "User Commands"
            .SH NAME
            replan \\- the nightly calendar assistant of a study planner
            .SH SYNOPSIS
            .B replan
            .I COMMAND
            .RI [ OPTIONS ]
            .br
            .B replan
            .BR \\-\\-help " | " \\-\\-version
            .SH DESCRIPTION
            Every night, for every student, replan finds the study sessions they missed, moves them
            forward by fixed rules, lets a reasoning model review the plan through validated tool calls,
            and writes everything it changed as one changeset that can be previewed, reviewed and undone.
            Data goes to standard output, everything else to standard error.
            Every reporting command has
            .BR \\-\\-json ;
            under it a failure is also printed as a
            .B replan.error/1
            JSON document.
            .SH COMMANDS

            """
        for d in CommandTable.all {
            r += ".TP\n.B \(escape("replan " + d.synopsis))\n\(escape(d.summary))\n"
            if !d.details.isEmpty { r += ".IP\n\(escape(d.details))\n" }
            if !d.options.isEmpty || d.arguments.contains(where: { !$0.help.isEmpty }) {
                r += ".RS\n"
                for a in d.arguments where !a.help.isEmpty {
                    r += ".TP\n.I \(escape(a.name))\n\(escape(a.help))\n"
                }
                for o in d.options {
                    r += ".TP\n.B \(escape(Usage.item(o)))\n\(escape(o.help))\n"
                }
                r += ".RE\n"
            }
        }
        r += ".SH GLOBAL OPTIONS\nAccepted before or after the command name.\n"
        for o in GlobalOptions.specs {
            r += ".TP\n.B \(escape(Usage.item(o)))\n\(escape(o.help))\n"
        }
        r += """
            .SH CONFIGURATION
            Every command reads one configuration file:
            .BR \\-\\-config " FILE, else " $REPLAN_CONFIG ", else " /etc/replan/replan.conf
            when it exists; one
            .I key = value
            per line,
            .B #
            starts a comment. The environment overrides the file and flags override both;
            .B replan config show
            prints what is in effect. Keys:

            """
        for s in SettingSpec.all {
            var source = [s.flag, s.environment.map { "$" + $0 }].compactMap { $0 }.joined(separator: ", ")
            if !source.isEmpty { source = " (also " + source + ")" }
            r += ".TP\n.B \(escape(s.key))\n\(escape(s.help + source + "; default: " + s.defaultText))\n"
        }
        r += ".SH EXIT STATUS\n"
        let codes: [(ExitCode, String)] = [
            (.success, "success"), (.someUsersFailed, "the job ran but at least one student failed"),
            (.conflicts, "undo or redo refused because rows changed since"), (.usage, "usage error"),
            (.badInput, "bad input data (import file, flag or configuration value, unknown user or task)"),
            (.modelUnavailable, "the model was needed and unavailable for every student"),
            (.internalError, "internal error"),
            (.cannotOpenDatabase, "cannot create or open the database"),
            (.locked, "another run holds the lock; try again later"),
            (.interrupted, "interrupted by SIGINT"), (.terminated, "interrupted by SIGTERM"),
            (
                .statusUnknown,
                "status only: the check could not run (UNKNOWN); status exits 1 for WARNING, 2 for CRITICAL"
            ),
        ]
        for (code, meaning) in codes { r += ".TP\n.B \(code.rawValue)\n\(escape(meaning))\n" }
        r += """
            .SH ENVIRONMENT
            .TP
            .B REPLAN_CONFIG
            the configuration file when \\-\\-config is not given
            .TP
            .B REPLAN_DB
            the database when \\-\\-db is not given
            .TP
            .B REPLAN_NOW
            pretend it is this instant (ISO\\-8601 with an offset)
            .TP
            .B OPENAI_API_KEY
            the model API key when no key file or systemd credential is given (empty: unset)
            .TP
            .B CREDENTIALS_DIRECTORY
            set by systemd: the service reads its key from openai\\-api\\-key there
            .TP
            .B STATE_DIRECTORY
            set by systemd: the default database is replan.db there
            .TP
            .B OPENAI_BASE_URL, REPLAN_MODEL, REPLAN_REASONING_EFFORT, REPLAN_PROMPTS, REPLAN_METRICS_FILE
            the settings of the same names (see CONFIGURATION)
            .TP
            .B PAGER
            the pager of long output on a terminal (default less \\-FRX; printed directly when it cannot run)
            .TP
            .B NO_COLOR
            set and not empty: no colour
            .SH EXAMPLES
            .nf
            replan user add mei \\-\\-time\\-zone Asia/Taipei
            replan task add \\-\\-user mei \\-\\-title "English reading" \\-\\-category English \\e
                \\-\\-start 2025\\-01\\-06T10:00 \\-\\-end 2025\\-01\\-06T11:00 \\-\\-repeat daily
            replan preview \\-\\-user mei          # what tonight would change
            replan run \\-\\-force                 # the nightly job, now
            replan log                          # one line per run
            replan undo \\-\\-user mei \\-\\-last \\-\\-yes
            sudo \\-u replan replan status       # the health check a monitor runs
            sudo \\-u replan replan config show  # the service's database and model state
            .fi
            .SH FILES
            .TP
            .I /etc/replan/replan.conf
            the configuration read by the service and by every command
            .TP
            .I /var/lib/replan/replan.db
            the service's database (as named by the shipped configuration)
            .TP
            .I /etc/replan/openai\\-api\\-key
            the model API key, handed to the service as a systemd credential
            .SH SEE ALSO
            .BR systemctl (1),
            .BR journalctl (1)

            """
        return r
    }
}
