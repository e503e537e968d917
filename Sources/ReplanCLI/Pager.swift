import Foundation

/// Long output on a terminal goes through the user's pager (`$PAGER`, default `less -FRX`:
/// quits at once when the text fits the screen, keeps colour, leaves it on the screen).
/// Anything else — a pipe, a file, the journal, `PAGER=` or `PAGER=cat`, `--no-pager` — gets
/// the text directly.
enum Pager {
    static func show(_ text: String, console: Console, environment: [String: String], allowed: Bool) {
        let pager = environment["PAGER"] ?? "less -FRX"
        guard allowed, console.stdoutIsTTY, !pager.trimmingCharacters(in: .whitespaces).isEmpty, pager != "cat",
            text.split(separator: "\n", omittingEmptySubsequences: false).count > 20
        else {
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
        do { try process.run() } catch {
            console.out(text) // no pager to be had: the text still has to reach the reader
            return
        }
        // A reader who quits the pager early closes the pipe: that is the end of the output,
        // not a reason to die of SIGPIPE with exit 141.
        signal(SIGPIPE, SIG_IGN)
        // The pager gets what `out` would have written: control characters escaped.
        let safe = Console.escapingControls(text, keepingColors: console.colorAllowed)
        try? pipe.fileHandleForWriting.write(contentsOf: Data((safe.hasSuffix("\n") ? safe : safe + "\n").utf8))
        try? pipe.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
