import Foundation

/// A value bound to an SQL placeholder. Booleans are stored as 0/1 integers.
package enum SQLValue: Hashable, Sendable, ExpressibleByIntegerLiteral, ExpressibleByStringLiteral,
    ExpressibleByFloatLiteral, ExpressibleByNilLiteral, ExpressibleByBooleanLiteral
{
    case integer(Int)
    case real(Double)
    case text(String)
    case blob(Data)
    case null

    package init(integerLiteral value: Int) { self = .integer(value) }
    package init(stringLiteral value: String) { self = .text(value) }
    package init(floatLiteral value: Double) { self = .real(value) }
    package init(nilLiteral: ()) { self = .null }
    package init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }

    package init(_ value: Int?) { self = value.map { .integer($0) } ?? .null }
    package init(_ value: Double?) { self = value.map { .real($0) } ?? .null }
    package init(_ value: String?) { self = value.map { .text($0) } ?? .null }
    package init(_ value: Data?) { self = value.map { .blob($0) } ?? .null }
    package init(_ value: Bool) { self = .integer(value ? 1 : 0) }
}
