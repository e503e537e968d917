/// The tokenized command line: positionals, option values and flags, by name. Commands do not
/// read it: their declarations (`@Option`, `@Flag`, `@Argument`) take their typed values from
/// it; the global options and `SettingSpec` flags are read from it by `CommandContext`.
///
/// Global options may stand before or after the command name (docs/commands.md §3), so tokenizing knows the
/// global options and the command's own; anything else is a usage error naming the option.
package struct Arguments: Sendable {
    package private(set) var positionals: [String] = []
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []

    package init(tokens: [String], specs: [OptionSpec]) throws(CLIError) {
        let byName = Dictionary(specs.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
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
                throw .usage("unknown option \(name)\(hint) (see --help)")
            }
            if spec.takesValue {
                let value: String
                if let inline {
                    value = inline
                } else {
                    guard i < tokens.count else { throw .usage("\(name) needs a value") }
                    value = tokens[i]
                    i += 1
                }
                if !spec.repeatable, values[name] != nil { throw .usage("\(name) given twice") }
                values[name, default: []].append(value)
            } else {
                if inline != nil { throw .usage("\(name) takes no value") }
                flags.insert(name)
            }
        }
    }

    package func flag(_ name: String) -> Bool { flags.contains(name) }
    package func value(_ name: String) -> String? { values[name]?.last }
    package func values(_ name: String) -> [String] { values[name] ?? [] }
}
