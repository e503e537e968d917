import Foundation
import Nightly

/// How to type this `replan` in a shell, for hints printed to the user ("undo with: …"): plain
/// `replan` when that name on `PATH` is this very binary, else its path relative to the
/// working directory (`.build/debug/replan` after `swift build`), else its absolute path. A
/// hint that prints `replan` when `replan` is not on PATH fails with "command not found".
enum InvocationName {
    static func current(environment: [String: String]) -> String {
        guard let executable = Bundle.main.executableURL?.resolvingSymlinksInPath().path else { return "replan" }
        return name(
            of: executable, path: environment["PATH"] ?? "", workingDirectory: FileManager.default.currentDirectoryPath)
    }

    static func name(of executable: String, path: String, workingDirectory: String) -> String {
        for dir in path.split(separator: ":") where !dir.isEmpty {
            let candidate = URL(fileURLWithPath: String(dir)).appendingPathComponent("replan")
            if FileManager.default.isExecutableFile(atPath: candidate.path),
                candidate.resolvingSymlinksInPath().path == executable
            {
                return "replan"
            }
        }
        let base = workingDirectory.hasSuffix("/") ? workingDirectory : workingDirectory + "/"
        // A relative path with a slash runs as printed; it is shorter to read and copy.
        if executable.hasPrefix(base) { return String(executable.dropFirst(base.count)) }
        return executable
    }

    /// The command prefix of `show`'s hints: `replan` plus the `--db` and `--config` the
    /// command line gave, so "undo with: …" acts on the same database when copied.
    static func hint(_ ctx: CommandContext) -> String {
        var text = "replan"
        if let db = ctx.globals.db { text += " --db \(quoted(DatabaseLocationText.copyable(db)))" }
        if let config = ctx.globals.config { text += " --config \(quoted(config))" }
        return text
    }

    /// A word as a POSIX shell reads it back.
    static func quoted(_ word: String) -> String {
        let plain = word.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "/._-+:=,@%".contains($0)) }
        return plain && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
