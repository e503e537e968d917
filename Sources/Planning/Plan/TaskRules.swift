/// The field rules of docs/data-format.md §2.3 for tasks, shared by import, the CLI and the model's tools.
package enum TaskRules {
    /// Category names that mean "no category" and are therefore refused.
    package static let placeholderCategories: Set<String> = ["未分類", "Uncategorized"]

    package static func validateID(_ id: String) throws(DataError) {
        let ok =
            (1...100).contains(id.count)
            && id.unicodeScalars.allSatisfy {
                ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
                    || "_-.".unicodeScalars.contains($0)
            }
        guard ok else {
            throw DataError(path: "id", message: "task id '\(id)' must be 1–100 letters, digits or _ - . (and no '@')")
        }
    }

    /// Refuses C0 control characters other than tab, newline and carriage return (issue 13):
    /// a title or note with terminal escapes would otherwise reach every terminal and journal
    /// that shows it. Decision: carriage return is kept, because notes written on Windows
    /// end their lines with CR LF and must round-trip; output escapes a lone CR (and every
    /// other control character) anyway, also for data stored before this rule.
    package static func rejectControlCharacters(_ text: String, path: String) throws(DataError) {
        guard let index = text.utf8.firstIndex(where: { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) else {
            return
        }
        let byte = text.utf8[index]
        throw DataError(
            path: path,
            message:
                "contains the control character U+\(String(byte, radix: 16, uppercase: true).leftPadded(4)); only tab, newline and carriage return are allowed"
        )
    }

    package static func validateTitle(_ title: String) throws(DataError) {
        try rejectControlCharacters(title, path: "title")
        let trimmed = title.trimmingWhitespace()
        guard !trimmed.isEmpty else { throw DataError(path: "title", message: "must not be empty") }
        guard trimmed.count <= 200 else {
            throw DataError(
                path: "title", message: "must be at most 200 characters after trimming, got \(trimmed.count)")
        }
    }

    package static func validateNote(_ note: String) throws(DataError) {
        try rejectControlCharacters(note, path: "note")
        guard note.count <= 4000 else {
            throw DataError(path: "note", message: "must be at most 4000 characters, got \(note.count)")
        }
    }

    package static func validateCategory(_ category: String) throws(DataError) {
        try rejectControlCharacters(category, path: "category")
        let trimmed = category.trimmingWhitespace()
        guard !trimmed.isEmpty else { throw DataError(path: "category", message: "must not be empty") }
        guard !placeholderCategories.contains(where: { $0.lowercased() == trimmed.lowercased() }) else {
            throw DataError(path: "category", message: "'\(trimmed)' is not a specific category")
        }
        guard trimmed.count <= 50 else {
            throw DataError(path: "category", message: "must be at most 50 characters, got \(trimmed.count)")
        }
    }

    package static func validateTimes(start: CivilDateTime, end: CivilDateTime, allDay: Bool) throws(DataError) {
        if allDay {
            guard start.time.minutes == 0, end.time.minutes == 0 else {
                throw DataError(path: "start", message: "an all-day task takes dates, not times")
            }
            guard end.date >= start.date else {
                throw DataError(path: "end", message: "last day \(end.date) is before the first day \(start.date)")
            }
        } else {
            guard end > start else {
                throw DataError(path: "end", message: "end \(end) must be after start \(start)")
            }
            guard end.minuteNumber - start.minuteNumber <= 7 * 1440 else {
                throw DataError(path: "end", message: "a timed session may last at most 7 days")
            }
        }
    }
}

extension String {
    /// Trims spaces, tabs and newlines, including full-width spaces.
    package func trimmingWhitespace() -> String {
        // Most text (every category and title, many times a night) has nothing to trim: a
        // printable ASCII byte at each end cannot belong to a white-space character (a
        // character is white space by its first scalar, and a printable ASCII scalar
        // always starts a new character except after a prepended mark, which is no space).
        if let first = utf8.first, let last = utf8.last, (0x21..<0x7F).contains(first), (0x21..<0x7F).contains(last) {
            return self
        }
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        String(repeating: "0", count: Swift.max(0, width - count)) + self
    }
}
