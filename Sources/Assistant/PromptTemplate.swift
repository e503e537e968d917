import Foundation

/// A plain-text system-prompt template with named `{{placeholders}}`, loaded at run time from
/// `prompts/` so the wording can change without a rebuild.
package struct PromptTemplate: Sendable, Hashable {
    package let name: String
    package let text: String
    /// `text` cut into literal runs and placeholders once: rendering runs for every student
    /// the model sees, and searching the text for `{{` each time was a noticeable share of it.
    private let parts: [Part]

    private enum Part: Hashable, Sendable {
        case literal(Substring)
        case placeholder(String)
    }

    package init(name: String, text: String) {
        self.name = name
        self.text = text
        parts = PromptTemplate.cut(text)
    }

    package static func load(directory: String, name: String) throws(PromptError) -> PromptTemplate {
        let path = (directory as NSString).appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8)
        else {
            throw .cannotRead(path: path)
        }
        return PromptTemplate(name: name, text: text)
    }

    /// The placeholder names in order of appearance.
    package var placeholders: [String] {
        parts.compactMap { if case .placeholder(let name) = $0 { return name } else { return nil } }
    }

    /// Fills every placeholder. Fails loudly on a placeholder it has no value for, and on a
    /// required value the template never uses (a template without `{{plan}}` would quietly
    /// give the model nothing to work on).
    package func render(_ values: [String: String], required: Set<String>) throws(PromptError) -> String {
        let names = placeholders
        if let unknown = names.first(where: { values[$0] == nil }) {
            throw .unknownPlaceholder(template: name, placeholder: unknown, known: values.keys.sorted())
        }
        if let missing = required.subtracting(names).sorted().first {
            throw .missingPlaceholder(template: name, placeholder: missing)
        }
        var out = ""
        out.reserveCapacity(text.utf8.count + values.values.reduce(0) { $0 + $1.utf8.count })
        for part in parts {
            switch part {
            case .literal(let run): out += run
            case .placeholder(let name): out += values[name]!
            }
        }
        return out
    }

    /// Literal runs and `{{name}}` placeholders, in order; a `{{` with no `}}` after it is
    /// literal text.
    private static func cut(_ text: String) -> [Part] {
        let bytes = Array(text.utf8)
        let brace = UInt8(ascii: "{")
        let closing = UInt8(ascii: "}")
        var parts: [Part] = []
        var literalStart = 0
        var i = 0
        func index(_ offset: Int) -> String.Index { text.utf8.index(text.utf8.startIndex, offsetBy: offset) }
        while i + 1 < bytes.count {
            guard bytes[i] == brace, bytes[i + 1] == brace else {
                i += 1
                continue
            }
            var j = i + 2
            while j + 1 < bytes.count, !(bytes[j] == closing && bytes[j + 1] == closing) { j += 1 }
            guard j + 1 < bytes.count else { break }
            if literalStart < i { parts.append(.literal(text[index(literalStart)..<index(i)])) }
            parts.append(.placeholder(String(text[index(i + 2)..<index(j)])))
            i = j + 2
            literalStart = i
        }
        if literalStart < bytes.count { parts.append(.literal(text[index(literalStart)...])) }
        return parts
    }
}

/// Why a system prompt could not be rendered.
package enum PromptError: Error, Equatable, CustomStringConvertible {
    case cannotRead(path: String)
    case unknownPlaceholder(template: String, placeholder: String, known: [String])
    case missingPlaceholder(template: String, placeholder: String)

    package var description: String {
        switch self {
        case .cannotRead(let path): return "cannot read prompt template \(path)"
        case .unknownPlaceholder(let t, let p, let known):
            return "prompt template \(t) uses unknown placeholder {{\(p)}} (known: \(known.joined(separator: ", ")))"
        case .missingPlaceholder(let t, let p): return "prompt template \(t) lacks the required placeholder {{\(p)}}"
        }
    }
}
