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

    /// One id per committed changeset, so built without Foundation's string searching: the
    /// stamp is the timestamp's characters minus its separators, and the six characters take
    /// five bits each of one random draw (the alphabet has 32 letters, so each is uniform).
    static func generate<R: RandomNumberGenerator>(at date: Date, using random: inout R) -> ChangesetID {
        // "2025-01-07T03:00:12Z" → "20250107-030012"
        var id = "cs-"
        id.reserveCapacity(25)
        for c in Timestamp.text(date) {
            switch c {
            case "-", ":", "Z": continue
            case "T": id.append("-")
            default: id.append(c)
            }
        }
        id.append("-")
        var bits = random.next()
        for _ in 0..<6 {
            id.append(alphabet[Int(bits & 31)])
            bits >>= 5
        }
        return ChangesetID(id)
    }
}
