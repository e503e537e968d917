import Foundation
import Planning

/// How a shell completes the value of an option or argument.
package enum CompletionKind: Sendable, Equatable {
    case none
    case file
    case directory
    case words([String])
}

/// A type an option or argument's text converts to. A bad value throws a `CLIError` that names
/// the option and the text given, so the user knows what to fix.
package protocol ExpressibleByArgument: Sendable {
    /// The value of `option` (`--limit`, or an argument's name) written as `text`.
    init(argument text: String, option: String) throws(CLIError)
    /// The placeholder in usage lines (`N`, `DATE`), unless the declaration names one.
    static var valueName: String { get }
    /// How a shell completes the value, unless the declaration says otherwise.
    static var completion: CompletionKind { get }
}

extension ExpressibleByArgument {
    package static var valueName: String { "VALUE" }
    package static var completion: CompletionKind { .none }
}

extension String: ExpressibleByArgument {
    package init(argument text: String, option: String) throws(CLIError) { self = text }
}

extension Int: ExpressibleByArgument {
    package init(argument text: String, option: String) throws(CLIError) {
        guard let v = Int(text) else { throw .badInput("\(option) must be a whole number, got '\(text)'") }
        self = v
    }
    package static var valueName: String { "N" }
}

extension Double: ExpressibleByArgument {
    package init(argument text: String, option: String) throws(CLIError) {
        guard let v = Double(text), v.isFinite else { throw .badInput("\(option) must be a number, got '\(text)'") }
        self = v
    }
    package static var valueName: String { "N" }
}

extension CivilDate: ExpressibleByArgument {
    package init(argument text: String, option: String) throws(CLIError) {
        guard let d = CivilDate(text) else { throw .badInput("\(option) '\(text)' is not a date YYYY-MM-DD") }
        self = d
    }
    package static var valueName: String { "DATE" }
}

/// `on`/`off` (also true/false, yes/no, 1/0): the switches of `settings set`.
extension Bool: ExpressibleByArgument {
    package init(argument text: String, option: String) throws(CLIError) {
        switch text.lowercased() {
        case "on", "true", "yes", "1": self = true
        case "off", "false", "no", "0": self = false
        default: throw .badInput("\(option) must be on or off, got '\(text)'")
        }
    }
    package static var valueName: String { "on|off" }
    package static var completion: CompletionKind { .words(["on", "off"]) }
}

/// A fixed set of words (`--format json|ics`): parsed from the raw value, listed in usage
/// lines and completed by the shells, from the cases themselves. This is the one place a
/// word-valued option rejects a word it does not know; a choice whose message or exit code
/// predates this type keeps it by overriding `rejection`.
package protocol ArgumentChoice: ExpressibleByArgument, CaseIterable, RawRepresentable where RawValue == String {
    /// The case `text` names; by default its raw value only. Overridden for an accepted word
    /// that help does not list (`--repeat none`, `--from replan/1`).
    static func choice(_ text: String) -> Self?
    /// The error for a word that names no case.
    static func rejection(_ text: String, option: String) -> CLIError
}

extension ArgumentChoice {
    package init(argument text: String, option: String) throws(CLIError) {
        guard let v = Self.choice(text) else { throw Self.rejection(text, option: option) }
        self = v
    }
    package static func choice(_ text: String) -> Self? { Self(rawValue: text) }
    package static func rejection(_ text: String, option: String) -> CLIError {
        .badInput("\(option) must be \(choiceList), got '\(text)'")
    }
    package static var valueName: String { allCases.map(\.rawValue).joined(separator: "|") }
    package static var completion: CompletionKind { .words(allCases.map(\.rawValue)) }
    /// "a, b or c".
    static var choiceList: String {
        let words = allCases.map(\.rawValue)
        guard words.count > 1 else { return words.joined() }
        return words.dropLast().joined(separator: ", ") + " or " + words.last!
    }
}
