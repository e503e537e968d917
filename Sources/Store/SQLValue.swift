import Foundation

/// A value bound to an SQL placeholder. Booleans are stored as 0/1 integers.
public enum SQLValue: Hashable, Sendable, ExpressibleByIntegerLiteral, ExpressibleByStringLiteral,
                      ExpressibleByFloatLiteral, ExpressibleByNilLiteral, ExpressibleByBooleanLiteral {
    case integer(Int)
    case real(Double)
    case text(String)
    case blob(Data)
    case null

    public init(integerLiteral value: Int) { self = .integer(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }

    public init(_ value: Int?) { self = value.map { .integer($0) } ?? .null }
    public init(_ value: Double?) { self = value.map { .real($0) } ?? .null }
    public init(_ value: String?) { self = value.map { .text($0) } ?? .null }
    public init(_ value: Data?) { self = value.map { .blob($0) } ?? .null }
    public init(_ value: Bool) { self = .integer(value ? 1 : 0) }
}
