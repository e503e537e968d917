import Foundation

/// Long output on a terminal goes through the user's pager (`$PAGER`, default `less -FRX`:
/// quits at once when the text fits the screen, keeps colour, leaves it on the screen).
/// Anything else — a pipe, a file, the journal, `PAGER=` or `PAGER=cat`, `--no-pager` — gets
/// the text directly.
enum Pager {
    static func show(
        _ text: String, console: Console, environment: [String: String], allowed: Bool,
        interruption: Interruption = Interruption()
    ) {
        let pager = environment["PAGER"] ?? "less -FRX"
        guard allowed, console.stdoutIsTTY, !pager.trimmingCharacters(in: .whitespaces).isEmpty, pager != "cat",
            text.split(separator: "\n", omittingEmptySubsequences: false).count > 20
        else {
            console.out(text)
            return
        }
        // A pager that is not installed (`less` on a minimal image) used to print
        // "/bin/sh: 1: less: not found" and lose the output with exit 0.
        guard let program = pager.split(separator: " ").first.map(String.init), Self.isInstalled(program, environment)
        else {
            console.log("replan: the pager '\(pager)' is not installed; printing directly (set PAGER, or --no-pager)")
            console.out(text)
            return
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", pager]
        var env = environment
        if env["LESS"] == nil { env["LESS"] = "FRX" }
        process.environment = env
        let pipe = Pipe()
        process.standardInput = pipe
        // From the start on, so a Ctrl-C as the pager comes up is the pager's too.
        interruption.setPaging(true)
        defer { interruption.setPaging(false) }
        do { try process.run() } catch {
            console.out(text) // no pager to be had: the text still has to reach the reader
            return
        }
        // While the pager has the terminal, Ctrl-C is the pager's (less uses it to stop a
        // search): replan dying of it left less running without its input and fighting the
        // shell for the terminal. SIGQUIT likewise; set after the start, so the pager does not
        // inherit it (SIGINT is trapped by `SignalTrap`, which `interruption` tells to wait).
        let previousQuit = signal(SIGQUIT, SIG_IGN)
        defer { signal(SIGQUIT, previousQuit) }
        // A reader who quits the pager early closes the pipe: that is the end of the output,
        // not a reason to die of SIGPIPE with exit 141.
        signal(SIGPIPE, SIG_IGN)
        // The pager gets what `out` would have written: control characters escaped.
        let safe = Console.escapingControls(text, keepingColors: console.colorAllowed)
        try? pipe.fileHandleForWriting.write(contentsOf: Data((safe.hasSuffix("\n") ? safe : safe + "\n").utf8))
        try? pipe.fileHandleForWriting.close()
        process.waitUntilExit()
        // A pager that fails (a typo in $PAGER, a broken program) has not shown the text: it
        // still has to reach the reader. A reader quitting less early is exit 0.
        if process.terminationReason == .exit, process.terminationStatus != 0 {
            console.log(
                "replan: the pager '\(pager)' failed (exit \(process.terminationStatus)); printing directly (set PAGER, or --no-pager)"
            )
            console.out(text)
        }
    }

    /// Whether the pager's program exists: a path that is executable, or a name on `$PATH`.
    static func isInstalled(_ program: String, _ environment: [String: String]) -> Bool {
        // Shell syntax (a variable, a subshell) is the shell's business: let it try.
        if program.contains(where: { "$`(=;|&<>'\"".contains($0) }) { return true }
        if program.contains("/") { return FileManager.default.isExecutableFile(atPath: program) }
        let path = environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(program)")
        }
    }
}
