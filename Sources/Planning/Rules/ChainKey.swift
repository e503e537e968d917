import Foundation

/// What makes occurrences one course: one series, or one-off tasks with the same category and
/// the same title once spelling noise and part markers are taken away.
///
/// A series is a key of its own (rules version 3): a daily "Geography quiz" habit holds every
/// day of its key, so an extra one-off "Geography quiz" sharing that key could never be placed.
/// One-off tasks named alike ("English reading (2)", "ｅｎｇｌｉｓｈ　Reading 3") share a key.
/// The category is compared as the user wrote it (trimmed), because categories are names the
/// user picked from a list, and different categories never share a key.
package struct ChainKey: Hashable, Sendable, CustomStringConvertible {
    package let category: String
    package let title: String
    /// The series' task id for a series' occurrences; nil for one-off tasks.
    package let series: String?

    /// The key of a one-off task (or of a new session) with this title and category.
    package init(title: String, category: String) {
        self.category = category.trimmingWhitespace()
        self.title = NormalizedTitleCache.shared.title(for: title)
        self.series = nil
    }

    /// The key of series `taskID`.
    package init(series taskID: String, title: String, category: String) {
        self.category = category.trimmingWhitespace()
        self.title = NormalizedTitleCache.shared.title(for: title)
        self.series = taskID
    }

    package init(_ occurrence: Occurrence) {
        if occurrence.isSeriesOccurrence {
            self.init(series: occurrence.taskID, title: occurrence.title, category: occurrence.category)
        } else {
            self.init(title: occurrence.title, category: occurrence.category)
        }
    }

    /// The key of a task's occurrences.
    package init(_ task: StudyTask) {
        if task.isSeries {
            self.init(series: task.id, title: task.title, category: task.category)
        } else {
            self.init(title: task.title, category: task.category)
        }
    }

    package var description: String { series.map { "series \($0)" } ?? "\(category)/\(title)" }

    /// The number a title's trailing part marker carries (docs/planning.md §1.6): 2 for "Math [2/4]",
    /// "Part 2", "#2", "(2)", "ch.2", "Day 2", "第2課" and "第二章"; nil without a marker.
    package static func partNumber(_ title: String) -> Int? {
        NormalizedTitleCache.shared.entry(for: title).part
    }

    /// The number at the start of a part marker: the first run of ASCII digits or CJK numerals.
    static func number(inMarker marker: ArraySlice<Character>) -> Int? {
        guard let first = marker.firstIndex(where: { $0.isASCIIDigitLike || PartMarker.cjkNumerals.contains($0) })
        else {
            return nil
        }
        if marker[first].isASCIIDigitLike {
            var value = 0
            for c in marker[first...] {
                guard c.isASCIIDigitLike, let d = c.wholeNumberValue else { break }
                value = value &* 10 &+ d
                if value > 1_000_000 { return nil } // not a part number
            }
            return value
        }
        // CJK numerals: units (十 百 千) multiply what stands before them (一 when nothing
        // does), digits written one after another read positionally (二〇 = 20).
        var total = 0
        var current = 0
        for c in marker[first...] {
            if let d = PartMarker.cjkDigits[c] {
                current = current * 10 + d
            } else if let u = PartMarker.cjkUnits[c] {
                total += (current == 0 ? 1 : current) * u
                current = 0
            } else {
                break
            }
        }
        return total + current
    }

    /// Trims, folds width and case, collapses white space and strips one trailing part marker
    /// (`[2/3]`, `(2)`, `#2`, `Part 2`, `第2課`, `第二章`, or a trailing number).
    ///
    /// A title that would be empty without its marker ("2", "第3課") keeps it, so such titles
    /// still only chain with themselves.
    package static func normalizedTitle(_ title: String) -> String { normalized(title).title }

    /// The normalised title and the part number its marker carries.
    static func normalized(_ title: String) -> (title: String, part: Int?) {
        let folded = collapseWhiteSpace(foldWidth(title).lowercased())
        let chars = Array(folded)
        guard let cut = PartMarker.start(in: chars) else { return (folded, nil) }
        let part = number(inMarker: chars[cut...])
        var end = cut
        // "Physics - Part 2" and "Physics: 2" chain with "Physics".
        while end > 0, chars[end - 1].isWhitespace || separators.contains(chars[end - 1]) { end -= 1 }
        return end == 0 ? (folded, nil) : (String(chars[..<end]), part)
    }

    private static let separators: Set<Character> = ["-", "–", "—", ":", "：", "·", ",", "，", "、", "_", "/"]

    /// Full-width ASCII forms (U+FF01…U+FF5E) and the ideographic space fold to their ASCII
    /// counterparts, so "ｍａｔｈ　２" typed with a CJK input method equals "math 2".
    static func foldWidth(_ s: String) -> String {
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars {
            switch u.value {
            case 0xFF01...0xFF5E: out.append(Unicode.Scalar(u.value - 0xFEE0)!)
            case 0x3000: out.append(" ")
            default: out.append(u)
            }
        }
        return String(out)
    }

    /// Trims and turns every run of white space into one ASCII space.
    static func collapseWhiteSpace(_ s: String) -> String {
        var out = ""
        var pendingSpace = false
        for c in s {
            if c.isWhitespace {
                pendingSpace = !out.isEmpty
            } else {
                if pendingSpace {
                    out.append(" ")
                    pendingSpace = false
                }
                out.append(c)
            }
        }
        return out
    }
}

/// Recognises the one trailing part marker a normalised title may end with.
enum PartMarker {
    /// Where the marker starts in `c` (already width- and case-folded), or nil when the title
    /// does not end with one.
    static func start(in c: [Character]) -> Int? {
        guard let last = c.last else { return nil }
        if last == "]" || last == ")" { return bracketed(c) }
        if let i = ordinal(c) { return i }
        if last.isASCIIDigitLike { return trailingNumber(c) }
        return nil
    }

    /// `[2/3]`, `[2]`, `(2)`, `(2/3)`.
    private static func bracketed(_ c: [Character]) -> Int? {
        let open: Character = c.last == "]" ? "[" : "("
        guard let i = c.lastIndex(of: open) else { return nil }
        let inner = c[(i + 1)..<(c.count - 1)].filter { !$0.isWhitespace }
        guard !inner.isEmpty, isNumber(inner) || isFraction(inner) else { return nil }
        return i
    }

    /// `第2課`, `第二章`, `第 12 回`: 第, a number in digits or CJK numerals, then at most three
    /// counter characters.
    private static func ordinal(_ c: [Character]) -> Int? {
        guard let i = c.lastIndex(of: "第") else { return nil }
        var j = i + 1
        while j < c.count, c[j].isWhitespace { j += 1 }
        let numberStart = j
        while j < c.count, c[j].isASCIIDigitLike || cjkNumerals.contains(c[j]) { j += 1 }
        guard j > numberStart else { return nil }
        while j < c.count, c[j].isWhitespace { j += 1 }
        let counter = c[j...]
        guard counter.count <= 3, counter.allSatisfy({ !$0.isWhitespace && !$0.isASCIIDigitLike }) else { return nil }
        return i
    }

    /// `#2`, `part 2`, `Part2`, `2/3`, or a bare trailing number after a space, punctuation or
    /// a non-Latin letter. Digits glued to Latin letters ("MATH101", "CS50") are a course code,
    /// not a part number, and stay.
    private static func trailingNumber(_ c: [Character]) -> Int? {
        var i = c.count
        while i > 0, c[i - 1].isASCIIDigitLike { i -= 1 }
        // A fraction "2/3": include the numerator.
        if i > 1, c[i - 1] == "/", c[i - 2].isASCIIDigitLike {
            var k = i - 1
            while k > 0, c[k - 1].isASCIIDigitLike { k -= 1 }
            i = k
        }
        var k = i
        while k > 0, c[k - 1].isWhitespace { k -= 1 }
        if k > 0, c[k - 1] == "#" { return k - 1 }
        for word in ["part", "pt.", "pt"] where k >= word.count {
            let w = Array(word)
            if Array(c[(k - w.count)..<k]) == w, k - w.count == 0 || !c[k - w.count - 1].isLetter {
                return k - w.count
            }
        }
        guard i > 0 else { return nil } // the whole title is a number: keep it
        let before = c[i - 1]
        if before.isLetter && before.isASCII { return nil }
        return i
    }

    private static func isNumber<S: Collection<Character>>(_ s: S) -> Bool {
        !s.isEmpty && s.allSatisfy(\.isASCIIDigitLike)
    }

    private static func isFraction(_ s: [Character]) -> Bool {
        guard let slash = s.firstIndex(of: "/") else { return false }
        return isNumber(s[..<slash]) && isNumber(s[(slash + 1)...])
    }

    static let cjkNumerals: Set<Character> = Set("〇零一二三四五六七八九十百千兩两")
    static let cjkDigits: [Character: Int] = [
        "〇": 0, "零": 0, "一": 1, "二": 2, "兩": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
    ]
    static let cjkUnits: [Character: Int] = ["十": 10, "百": 100, "千": 1000]
}

extension Character {
    var isASCIIDigitLike: Bool { isASCII && isNumber }
}

/// Normalised titles by raw title: a plan asks for the key of the same few titles thousands
/// of times a night, and normalising (width folding, marker parsing) is the costly part.
/// Bounded, so a run over many students does not grow it without limit.
///
/// Why `NSLock` and not `Synchronization.Mutex`: every worker thread of a night asks this
/// cache many times per student, so its lock is contended all night. On Linux `Mutex` is a
/// priority-inheritance futex, whose contended path always enters the kernel; `NSLock` (a
/// plain pthread mutex) mostly stays in user space. With `Mutex` here a night took 3.7 times
/// as long (docs/benchmark.md, issue 15). The lock guards `titles` and nothing else.
final class NormalizedTitleCache: @unchecked Sendable {
    static let shared = NormalizedTitleCache()
    private let lock = NSLock()
    private var titles: [String: (title: String, part: Int?)] = [:]

    func title(for raw: String) -> String { entry(for: raw).title }

    func entry(for raw: String) -> (title: String, part: Int?) {
        if let hit = lock.withLock({ titles[raw] }) { return hit }
        let normalized = ChainKey.normalized(raw)
        lock.withLock {
            if titles.count >= 4096 { titles.removeAll(keepingCapacity: true) }
            titles[raw] = normalized
        }
        return normalized
    }
}
