import Foundation
import Planning

/// The id of a changeset: `cs-YYYYMMDD-HHMMSS-xxxxxx`, the UTC creation time (so ids sort by
/// time and a person can tell roughly when one was made) and six random Crockford base-32
/// characters (30 bits, re-drawn on the rare collision).
public struct ChangesetID: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }
    public static func < (a: ChangesetID, b: ChangesetID) -> Bool { a.rawValue < b.rawValue }

    /// Crockford's alphabet, lower case: no i, l, o, u, so ids read aloud unambiguously.
    static let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz")

    static func generate<R: RandomNumberGenerator>(at date: Date, using random: inout R) -> ChangesetID {
        // "2025-01-07T03:00:12Z" → "20250107-030012"
        let stamp = Timestamp.text(date).filter { $0 != "-" && $0 != ":" && $0 != "Z" }.replacingOccurrences(of: "T", with: "-")
        let suffix = String((0..<6).map { _ in alphabet[Int(random.next(upperBound: UInt32(alphabet.count)))] })
        return ChangesetID("cs-\(stamp)-\(suffix)")
    }
}
