/// The usage line of a command, generated from its declarations: arguments first, then
/// required options, then optional ones (`[--from DATE]`, `[--user ID]…` when repeatable).
enum Usage {
    static func synopsis(path: [String], declarations: [Declaration]) -> String {
        var words = path
        for case .argument(let a) in declarations {
            words.append(a.isRequired ? a.name : "[\(a.name)]")
        }
        let options = declarations.compactMap { d -> OptionSpec? in
            if case .option(let o) = d { return o }
            return nil
        }
        for o in options where o.isRequired { words.append(item(o)) }
        var groups: [String] = []
        for o in options where !o.isRequired {
            if let group = o.group {
                if !groups.contains(group) {
                    groups.append(group)
                    words.append("[\(group)]")
                }
            } else {
                words.append("[\(item(o))]" + (o.repeatable ? "…" : ""))
            }
        }
        return words.joined(separator: " ")
    }

    /// `--user ID`, `--json`.
    static func item(_ o: OptionSpec) -> String {
        o.takesValue ? "\(o.name) \(o.valueName)" : o.name
    }

    /// `--help` of one command: usage line, abstract, discussion, arguments and options
    /// (global ones included) with their help.
    static func help(_ d: CommandDescriptor) -> String {
        var text = "usage: replan \(d.synopsis)\n\n\(d.summary)\n"
        if !d.details.isEmpty { text += "\n\(d.details)\n" }
        let arguments = d.arguments.filter { !$0.help.isEmpty }
        if !arguments.isEmpty {
            text += "\narguments:\n"
            let width = arguments.map(\.name.count).max() ?? 0
            for a in arguments { text += "  \(DisplayWidth.padded(a.name, to: width))  \(a.help)\n" }
        }
        // A command's own option wins over a global one of the same name (`task add --color`).
        let globals = GlobalOptions.specs.filter { g in !d.options.contains { $0.name == g.name } }
        let width = (d.options + globals).map { item($0).count }.max() ?? 0
        var sections: [(String, [OptionSpec])] = [("options", d.options.filter { $0.group == nil })]
        for o in d.options {
            guard let group = o.group else { continue }
            if let i = sections.firstIndex(where: { $0.0 == group }) {
                sections[i].1.append(o)
            } else {
                sections.append((group, [o]))
            }
        }
        sections.append(("global options", globals))
        for (title, options) in sections where !options.isEmpty {
            text += "\n\(title):\n"
            for o in options { text += "  \(DisplayWidth.padded(item(o), to: width))  \(o.help)\n" }
        }
        return text
    }
}
