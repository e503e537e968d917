import Synchronization

/// One option a command accepts: what the tokenizer, usage line, help, completion and man page
/// know of it. Built from an `@Option`/`@Flag` declaration (or `GlobalOptions`).
package struct OptionSpec: Sendable {
    package var name: String
    package var takesValue: Bool
    package var repeatable: Bool
    package var help: String
    /// The placeholder in usage lines: `ID`, `DATE`, `json|ics`.
    package var valueName = "VALUE"
    package var isRequired = false
    package var completion = CompletionKind.none
    /// The title of the `@OptionGroup` it was declared in, if that group has one: usage lines
    /// show the group as one `[model options]` and help lists it under that heading.
    package var group: String?

    package static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, takesValue: false, repeatable: false, help: help)
    }

    package static func value(
        _ name: String, _ help: String, repeatable: Bool = false, valueName: String = "VALUE",
        completion: CompletionKind = .none
    ) -> OptionSpec {
        OptionSpec(
            name: name, takesValue: true, repeatable: repeatable, help: help, valueName: valueName,
            completion: completion)
    }
}

/// One positional argument of a command (`ID`, `FILE`).
package struct ArgumentSpec: Sendable {
    /// The placeholder in usage lines.
    package var name: String
    /// How a "missing …" error names it: `user ID`.
    package var what: String
    package var help: String
    package var isRequired: Bool
    package var completion: CompletionKind
}

/// What a command declares: its options and its positional arguments, in declaration order.
package enum Declaration: Sendable {
    case option(OptionSpec)
    case argument(ArgumentSpec)
}

/// A stored property of a command that the command line fills (`@Option`, `@Flag`,
/// `@Argument`); found with `Mirror`, so declaring the property is all a command does.
protocol ArgumentDeclaration {
    var declaration: Declaration { get }
    /// Takes this property's value from the tokenized command line. `position` is the next
    /// unclaimed positional; an argument claims it.
    func fill(from parsed: Arguments, position: inout Int) throws(CLIError)
}

/// A property holding a group of declarations shared by several commands (`@OptionGroup`).
protocol DeclarationGroup {
    var members: Any { get }
    var title: String? { get }
}

/// The parsed value behind a declaration. A reference, so the copy of the command that
/// `Mirror` hands out fills the command itself; a `Mutex`, so commands stay `Sendable`.
final class ParsedValue<Value: Sendable>: Sendable {
    private let storage = Mutex<Value?>(nil)

    init() {}

    var value: Value? { storage.withLock { $0 } }
    func set(_ value: Value) { storage.withLock { $0 = value } }

    func read(_ name: String) -> Value {
        guard let value else { preconditionFailure("\(name) read before the command line was parsed") }
        return value
    }
}

/// An option that takes a value: `@Option(name: "--user", value: "ID", help: "student id")`.
/// Its type says whether it is required (`String`), optional (`String?`), repeatable
/// (`[String]`) and how its text converts (`ExpressibleByArgument`).
@propertyWrapper
package struct Option<Value: Sendable>: Sendable, ArgumentDeclaration {
    let spec: OptionSpec
    let decode: @Sendable ([String]) throws(CLIError) -> Value
    let parsed = ParsedValue<Value>()

    package var wrappedValue: Value { parsed.read(spec.name) }

    var declaration: Declaration { .option(spec) }

    func fill(from arguments: Arguments, position: inout Int) throws(CLIError) {
        parsed.set(try decode(arguments.values(spec.name)))
    }

    init(
        spec: OptionSpec, decode: @escaping @Sendable ([String]) throws(CLIError) -> Value
    ) {
        self.spec = spec
        self.decode = decode
    }
}

extension Option where Value: ExpressibleByArgument {
    /// A required option: missing, it is a usage error ("--user is required", or `missing`).
    package init(
        name: String, value: String? = nil, help: String, completion: CompletionKind? = nil, missing: String? = nil
    ) {
        var spec = OptionSpec.value(
            name, help, valueName: value ?? Value.valueName, completion: completion ?? Value.completion)
        spec.isRequired = true
        self.init(spec: spec) { (values: [String]) throws(CLIError) -> Value in
            guard let text = values.last else { throw .usage(missing ?? "\(name) is required") }
            return try Value(argument: text, option: name)
        }
    }
}

extension Option {
    /// An optional option: nil when not given.
    package init<T: ExpressibleByArgument>(
        name: String, value: String? = nil, help: String, completion: CompletionKind? = nil
    ) where Value == T? {
        let spec = OptionSpec.value(name, help, valueName: value ?? T.valueName, completion: completion ?? T.completion)
        self.init(spec: spec) { (values: [String]) throws(CLIError) -> T? in
            guard let text = values.last else { return nil }
            return try T(argument: text, option: name)
        }
    }

    /// A whole number inside `range`, or nil when not given; outside it is bad input naming
    /// the range ("--limit must be a whole number from 1 to 10000, got '0'").
    package init(name: String, value: String = "N", range: ClosedRange<Int>, help: String) where Value == Int? {
        let spec = OptionSpec.value(name, help, valueName: value)
        self.init(spec: spec) { (values: [String]) throws(CLIError) -> Int? in
            guard let text = values.last else { return nil }
            guard let v = Int(text), range.contains(v) else {
                throw .badInput(
                    "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), got '\(text)'")
            }
            return v
        }
    }

    /// A repeatable option: every value given, in order (`--user a --user b`).
    package init<T: ExpressibleByArgument>(
        name: String, value: String? = nil, help: String, completion: CompletionKind? = nil
    ) where Value == [T] {
        let spec = OptionSpec.value(
            name, help, repeatable: true, valueName: value ?? T.valueName, completion: completion ?? T.completion)
        self.init(spec: spec) { (values: [String]) throws(CLIError) -> [T] in
            var result: [T] = []
            for text in values { result.append(try T(argument: text, option: name)) }
            return result
        }
    }

    /// The flag of a `SettingSpec` (`--model`): the command hands its value to
    /// `ReplanSettings` (`SettingFlags`), which ranks it above the environment and the
    /// configuration file and checks it there, naming its source; the declaration puts it in
    /// the usage line, help and completion. A typed choice (`--on-model-error`) is checked
    /// when parsed, like every other choice.
    init<T: ExpressibleByArgument>(
        setting: SettingSpec, value: String = "VALUE", help: String, completion: CompletionKind? = nil
    ) where Value == T? {
        let name = setting.flag ?? "--" + setting.key
        let spec = OptionSpec.value(name, help, valueName: value, completion: completion ?? T.completion)
        self.init(spec: spec) { (values: [String]) throws(CLIError) -> T? in
            guard let text = values.last else { return nil }
            return try T(argument: text, option: name)
        }
    }
}

/// A switch without a value: `@Flag(name: "--json", help: "print JSON") var json: Bool`.
@propertyWrapper
package struct Flag: Sendable, ArgumentDeclaration {
    let spec: OptionSpec
    let parsed = ParsedValue<Bool>()

    package init(name: String, help: String) {
        spec = .flag(name, help)
    }

    package var wrappedValue: Bool { parsed.read(spec.name) }

    var declaration: Declaration { .option(spec) }

    func fill(from arguments: Arguments, position: inout Int) throws(CLIError) {
        parsed.set(arguments.flag(spec.name))
    }
}

/// A positional argument: `@Argument(name: "ID", what: "user ID") var id: String`. Required
/// unless its type is optional; a missing one is "missing user ID" (exit 64).
@propertyWrapper
package struct Argument<Value: Sendable>: Sendable, ArgumentDeclaration {
    let spec: ArgumentSpec
    let decode: @Sendable (String?) throws(CLIError) -> Value
    let parsed = ParsedValue<Value>()

    package var wrappedValue: Value { parsed.read(spec.name) }

    var declaration: Declaration { .argument(spec) }

    func fill(from arguments: Arguments, position: inout Int) throws(CLIError) {
        let text = position < arguments.positionals.count ? arguments.positionals[position] : nil
        if text != nil { position += 1 }
        parsed.set(try decode(text))
    }
}

extension Argument where Value: ExpressibleByArgument {
    package init(name: String, what: String? = nil, help: String = "", completion: CompletionKind? = nil) {
        let what = what ?? name
        spec = ArgumentSpec(
            name: name, what: what, help: help, isRequired: true, completion: completion ?? Value.completion)
        decode = { (text: String?) throws(CLIError) -> Value in
            guard let text else { throw .usage("missing \(what)") }
            return try Value(argument: text, option: name)
        }
    }
}

extension Argument {
    package init<T: ExpressibleByArgument>(
        name: String, what: String? = nil, help: String = "", completion: CompletionKind? = nil
    ) where Value == T? {
        spec = ArgumentSpec(
            name: name, what: what ?? name, help: help, isRequired: false, completion: completion ?? T.completion)
        decode = { (text: String?) throws(CLIError) -> T? in
            guard let text else { return nil }
            return try T(argument: text, option: name)
        }
    }
}

/// Declarations shared by several commands, written once as an `ArgumentGroup` type and
/// included with `@OptionGroup var model: ModelOptions`.
package protocol ArgumentGroup: Sendable {
    init()
}

@propertyWrapper
package struct OptionGroup<Group: ArgumentGroup>: Sendable, DeclarationGroup {
    package let wrappedValue: Group
    let title: String?

    /// `title` (e.g. "model options") names the group in usage lines and help; without one its
    /// options are listed with the command's own.
    package init(title: String? = nil) {
        wrappedValue = Group()
        self.title = title
    }

    var members: Any { wrappedValue }
}

enum Declarations {
    /// The declarations of `value` (a command or a group), groups flattened, in order.
    static func of(_ value: Any) -> [any ArgumentDeclaration] {
        Mirror(reflecting: value).children.flatMap { child -> [any ArgumentDeclaration] in
            if let group = child.value as? any DeclarationGroup { return of(group.members) }
            if let declaration = child.value as? any ArgumentDeclaration { return [declaration] }
            return []
        }
    }

    /// What `value` declares, in order, each option stamped with the title of its group.
    static func described(_ value: Any, group: String? = nil) -> [Declaration] {
        Mirror(reflecting: value).children.flatMap { child -> [Declaration] in
            if let g = child.value as? any DeclarationGroup { return described(g.members, group: g.title ?? group) }
            guard let declaration = child.value as? any ArgumentDeclaration else { return [] }
            if case .option(var o) = declaration.declaration {
                o.group = group
                return [.option(o)]
            }
            return [declaration.declaration]
        }
    }

    /// Fills every declaration of `value` from `arguments`; a positional nobody claims is a
    /// usage error.
    static func fill(_ value: Any, from arguments: Arguments) throws(CLIError) {
        var position = 0
        for declaration in of(value) { try declaration.fill(from: arguments, position: &position) }
        if arguments.positionals.count > position {
            throw .usage("unexpected argument '\(arguments.positionals[position])'")
        }
    }
}
