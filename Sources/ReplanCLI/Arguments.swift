import Planning

/// One option a command accepts.
package struct OptionSpec: Sendable {
    package var name: String
    package var takesValue: Bool
    package var repeatable: Bool
    package var help: String

    package static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, takesValue: false, repeatable: false, help: help)
    }

    package static func value(_ name: String, _ help: String, repeatable: Bool = false) -> OptionSpec {
        OptionSpec(name: name, takesValue: true, repeatable: repeatable, help: help)
    }
}

/// Parsed command-line arguments: positionals, option values and flags.
///
/// Global options may stand before or after the command name (cli.md), so parsing knows the
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

    package func required(_ name: String) throws(CLIError) -> String {
        guard let v = value(name) else { throw .usage("\(name) is required") }
        return v
    }

    /// The positional after the command words, required.
    package func positional(_ index: Int, _ what: String) throws(CLIError) -> String {
        guard index < positionals.count else { throw .usage("missing \(what)") }
        return positionals[index]
    }

    package func rejectExtraPositionals(beyond count: Int) throws(CLIError) {
        if positionals.count > count { throw .usage("unexpected argument '\(positionals[count])'") }
    }

    package func int(_ name: String, in range: ClosedRange<Int>) throws(CLIError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let v = Int(text), range.contains(v) else {
            throw .badInput(
                "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), got '\(text)'")
        }
        return v
    }

    /// A local date option (`--from`, `--to`, …), or nil when absent.
    package func date(_ name: String) throws(CLIError) -> CivilDate? {
        guard let text = value(name) else { return nil }
        guard let d = CivilDate(text) else { throw .badInput("\(name) '\(text)' is not a date YYYY-MM-DD") }
        return d
    }

    package func onOff(_ name: String) throws(CLIError) -> Bool? {
        guard let text = value(name) else { return nil }
        switch text.lowercased() {
        case "on", "true", "yes", "1": return true
        case "off", "false", "no", "0": return false
        default: throw .badInput("\(name) must be on or off, got '\(text)'")
        }
    }
}
