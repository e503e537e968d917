import Foundation

/// A plain-text system-prompt template with named `{{placeholders}}`, loaded at run time from
/// `prompts/` so the wording can change without a rebuild.
public struct PromptTemplate: Sendable, Hashable {
    public let name: String
    public let text: String

    public init(name: String, text: String) { self.name = name; self.text = text }

    public static func load(directory: String, name: String) throws(PromptError) -> PromptTemplate {
        let path = (directory as NSString).appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw .cannotRead(path: path)
        }
        return PromptTemplate(name: name, text: text)
    }

    /// The placeholder names in order of appearance.
    public var placeholders: [String] {
        var names: [String] = []
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            guard let close = rest[open.upperBound...].range(of: "}}") else { break }
            names.append(String(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return names
    }

    /// Fills every placeholder. Fails loudly on a placeholder it has no value for, and on a
    /// required value the template never uses (a template without `{{plan}}` would quietly
    /// give the model nothing to work on).
    public func render(_ values: [String: String], required: Set<String>) throws(PromptError) -> String {
        let used = Set(placeholders)
        if let unknown = placeholders.first(where: { values[$0] == nil }) {
            throw .unknownPlaceholder(template: name, placeholder: unknown, known: values.keys.sorted())
        }
        if let missing = required.subtracting(used).sorted().first {
            throw .missingPlaceholder(template: name, placeholder: missing)
        }
        var out = ""
        var rest = Substring(text)
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            out += rest[..<open.lowerBound]
            out += values[String(rest[open.upperBound..<close.lowerBound])]!
            rest = rest[close.upperBound...]
        }
        out += rest
        return out
    }
}

/// Why a system prompt could not be rendered.
public enum PromptError: Error, Equatable, CustomStringConvertible {
    case cannotRead(path: String)
    case unknownPlaceholder(template: String, placeholder: String, known: [String])
    case missingPlaceholder(template: String, placeholder: String)

    public var description: String {
        switch self {
        case .cannotRead(let path): return "cannot read prompt template \(path)"
        case .unknownPlaceholder(let t, let p, let known):
            return "prompt template \(t) uses unknown placeholder {{\(p)}} (known: \(known.joined(separator: ", ")))"
        case .missingPlaceholder(let t, let p): return "prompt template \(t) lacks the required placeholder {{\(p)}}"
        }
    }
}
