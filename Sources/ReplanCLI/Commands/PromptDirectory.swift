import Foundation

/// Where the system-prompt templates are read from: `--prompts DIR`, else `$REPLAN_PROMPTS`,
/// else the configuration file's `prompts` (those three are `ReplanSettings.promptDirectory`), else the `prompts/` shipped with the binary — `<exe dir>/../share/replan/prompts` for an
/// installed binary, or the nearest `prompts/` above the executable (the repository's, for
/// `.build/debug/replan`).
enum PromptDirectory {
    static let marker = "with-study-settings.txt"

    /// The installed templates, for a night whose settings name no directory.
    static func installed() throws(CLIError) -> String {
        let candidates = defaultCandidates()
        if let found = candidates.first(where: holdsTemplates) { return found }
        throw CLIError(
            .modelUnavailable,
            """
            cannot find the prompt templates (looked in \(candidates.prefix(3).joined(separator: ", "))\(candidates.count > 3 ? ", …" : "")); \
            pass --prompts DIR or set REPLAN_PROMPTS, or run with --no-model
            """)
    }

    /// A directory named explicitly must hold the templates: a typo must not silently fall
    /// back to other wording. Checked by `ReplanSettings`, also on a night without a key.
    static func checked(_ dir: String, source: String) throws(CLIError) -> String {
        guard holdsTemplates(dir) else {
            throw .usage(
                "\(source) '\(dir)' does not hold the prompt templates (system.txt, \(marker) and without-study-settings.txt)"
            )
        }
        return dir
    }

    static func holdsTemplates(_ dir: String) -> Bool {
        // The static system prompt is checked too: a template directory from before it
        // existed would otherwise fail only once a student is asked.
        [marker, "system.txt"].allSatisfy {
            FileManager.default.isReadableFile(atPath: (dir as NSString).appendingPathComponent($0))
        }
    }

    /// `<exe dir>/../share/replan/prompts`, then `<dir>/prompts` for the executable's
    /// directory and each of its parents.
    static func defaultCandidates() -> [String] {
        guard let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() else { return [] }
        var dir = executable.deletingLastPathComponent()
        var candidates = [dir.deletingLastPathComponent().appendingPathComponent("share/replan/prompts").path]
        while true {
            candidates.append(dir.appendingPathComponent("prompts").path)
            let parent = dir.deletingLastPathComponent()
            if parent.path == dir.path || dir.path == "/" { break }
            dir = parent
        }
        return candidates
    }
}
