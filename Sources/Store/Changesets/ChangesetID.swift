import Foundation
import Planning
import Synchronization

/// The id of a changeset: `cs-YYYYMMDD-HHMMSS-xxxxxx`, the UTC creation time (so ids sort by
/// time and a person can tell roughly when one was made) and six Crockford base-32 characters
/// (30 bits, most significant first) that count up within a process from a random start
/// (`ChangesetIDSuffixes`); the rare collision with another process's id is re-drawn.
///
/// Decision: counting, not random. Every changeset of a night carries the run's time, so with
/// random characters each of 100,000 students' changesets, edit rows and the indexes on
/// changeset ids went to a random place among the night's: every commit dirtied (and split)
/// pages of its own in four b-trees, and each was written to the log and copied back into the
/// database again. Counting ids are appended at the end of those b-trees instead.
package struct ChangesetID: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    package let rawValue: String

    package init(_ rawValue: String) { self.rawValue = rawValue }
    package init(stringLiteral value: String) { self.rawValue = value }

    package var description: String { rawValue }
    package static func < (a: ChangesetID, b: ChangesetID) -> Bool { a.rawValue < b.rawValue }

    /// Crockford's alphabet, lower case: no i, l, o, u, so ids read aloud unambiguously.
    static let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz")

    /// The id for `suffix` (its low 30 bits). Built without Foundation's string searching (one
    /// id per committed changeset): the stamp is the timestamp's characters minus its
    /// separators, then five bits per character, most significant first, so ids of one second
    /// sort as their suffixes do (the alphabet is in ASCII order).
    static func generate(at date: Date, suffix: UInt32) -> ChangesetID {
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
        for shift in stride(from: 25, through: 0, by: -5) {
            id.append(alphabet[Int((suffix >> UInt32(shift)) & 31)])
        }
        return ChangesetID(id)
    }
}

/// The changeset id suffixes of this process: consecutive 30-bit values from a random start
/// (wrapping around), shared by every thread.
final class ChangesetIDSuffixes: Sendable {
    static let shared = ChangesetIDSuffixes(start: UInt32.random(in: 0..<ChangesetIDSuffixes.count))
    static let count: UInt32 = 1 << 30

    private let next: Mutex<UInt32>

    init(start: UInt32) { next = Mutex(start % ChangesetIDSuffixes.count) }

    func take() -> UInt32 {
        next.withLock { next in
            let value = next
            next = (next + 1) % ChangesetIDSuffixes.count
            return value
        }
    }
}
