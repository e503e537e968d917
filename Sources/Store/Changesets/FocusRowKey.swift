import JSON
import Planning

/// The key of a `focus` changeset edit: a focus session's content, `START|MINUTES|CATEGORY`.
///
/// Focus sessions are facts without a version (the app records them, nothing edits them), and
/// their row ids do not survive an undo and a redo (SQLite hands the highest free id out
/// again), so an edit stands for all of a user's sessions with this content, and its images
/// say how many there are (`count`). A session recorded later with other content is another
/// key, which the edit never touches.
package struct FocusRowKey: Hashable, Sendable, CustomStringConvertible {
    package var start: CivilDateTime
    package var minutes: Int
    package var category: String

    package init(start: CivilDateTime, minutes: Int, category: String) {
        self.start = start
        self.minutes = minutes
        self.category = category
    }

    /// Parses `START|MINUTES|CATEGORY` (the category may hold `|` itself).
    package init?(_ text: String) {
        let parts = text.split(separator: "|", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let start = CivilDateTime(String(parts[0])), let minutes = Int(parts[1]) else {
            return nil
        }
        self.init(start: start, minutes: minutes, category: String(parts[2]))
    }

    package var description: String { "\(start)|\(minutes)|\(category)" }

    /// The image of `count` such sessions of `userID`; nil for none (the "row" is absent).
    package func image(userID: String, count: Int) -> JSONValue? {
        guard count > 0 else { return nil }
        return [
            "user": .string(userID), "category": .string(category), "start": .string(start.description),
            "minutes": .int(minutes), "count": .int(count),
        ]
    }

    /// How many sessions an image stands for (0 for none).
    package static func count(of image: JSONValue?) -> Int { image?["count"]?.intValue ?? 0 }
}
