/// The tokenized command line: positionals, option values and flags, by name. Commands do not
/// read it: their declarations (`@Option`, `@Flag`, `@Argument`) take their typed values from
/// it, and `GlobalOptions` takes the global ones; `ParsedCommandLine` makes it once.
///
/// Global options may stand before or after the command name (docs/commands.md §3), so tokenizing knows the
/// global options and the command's own; anything else is a usage error naming the option.
package struct Arguments: Sendable {
    package private(set) var positionals: [String] = []
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []
    /// The first thing wrong with the tokens (an unknown option, a missing value). Tokenizing
    /// goes on past it, so `--json` and `--version` are known even on a line that fails.
    private(set) var problem: CLIError?

    /// The tokens, or the first thing wrong with them.
    package init(tokens: [String], specs: [OptionSpec]) throws(CLIError) {
        self.init(scanning: tokens, specs: specs)
        if let problem { throw problem }
    }

    /// The tokens, with the first thing wrong kept in `problem`: an unknown option counts as
    /// a flag (its value, if it has one, as a positional), so the rest still tokenizes.
    init(scanning tokens: [String], specs: [OptionSpec]) {
        let byName = Dictionary(specs.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        func fail(_ error: CLIError) { if problem == nil { problem = error } }
        var i = 0
        var onlyPositionals = false
        while i < tokens.count {
            let token = tokens[i]
            i += 1
            if onlyPositionals || !token.hasPrefix("-") || token == "-" {
                positionals.append(token)
                continue
            }
            if token == "--" {
                onlyPositionals = true
                continue
            }
            var name = token
            var inline: String?
            if let eq = token.firstIndex(of: "=") {
                name = String(token[..<eq])
                inline = String(token[token.index(after: eq)...])
            }
            if name == "-h" { name = "--help" }
            guard let spec = byName[name] else {
                let hint = Suggestion.closest(to: name, among: specs.map(\.name)).map { "; did you mean \($0)?" } ?? ""
                fail(.usage("unknown option \(name)\(hint) (see --help)"))
                if inline == nil { flags.insert(name) }
                continue
            }
            if spec.takesValue {
                let value: String
                if let inline {
                    value = inline
                } else {
                    guard i < tokens.count else {
                        fail(.usage("\(name) needs a value"))
                        continue
                    }
                    value = tokens[i]
                    i += 1
                }
                if !spec.repeatable, values[name] != nil { fail(.usage("\(name) given twice")) }
                values[name, default: []].append(value)
            } else {
                if inline != nil {
                    fail(.usage("\(name) takes no value"))
                    continue
                }
                flags.insert(name)
            }
        }
    }

    package func flag(_ name: String) -> Bool { flags.contains(name) }
    package func value(_ name: String) -> String? { values[name]?.last }
    package func values(_ name: String) -> [String] { values[name] ?? [] }
}
