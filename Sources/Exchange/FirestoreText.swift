import Planning

/// Free text from the export brought within replan's rules, each change reported: the app
/// never limited lengths or filtered what a paste brought in, and refusing a student's whole
/// history over a stray control character would help nobody.
enum FirestoreText {
    /// A number from the export as people write it: `300`, not `300.0`.
    static func number(_ d: Double) -> String {
        d.rounded() == d && abs(d) < 1e15 ? String(Int(d)) : String(d)
    }

    /// `text` without C0 control characters other than tab, newline and carriage return (issue
    /// 13's rule), trimmed when `trim`, and cut to `limit` characters.
    static func clean(_ text: String, limit: Int, trim: Bool, path: String, report: inout FirestoreImportReport)
        -> String
    {
        var out = text
        if text.utf8.contains(where: { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) {
            out = String(
                String.UnicodeScalarView(
                    text.unicodeScalars.filter { $0.value >= 0x20 || $0 == "\t" || $0 == "\n" || $0 == "\r" }))
            report.correct(.adjusted, path, "control characters removed (replan refuses them in text)")
        }
        if trim { out = out.trimmingWhitespace() }
        if out.count > limit {
            report.correct(.adjusted, path, "cut to \(limit) characters (it had \(out.count)), the most replan keeps")
            out = String(out.prefix(limit))
            if trim { out = out.trimmingWhitespace() }
        }
        return out
    }
}

/// The categories of one student's tasks, and what replaces a category replan refuses.
struct FirestoreCategories {
    /// For each title, the category the student gave most often to tasks of that title.
    private var byTitle: [String: String] = [:]

    init(drafts: [FirestoreTaskConverter.Draft]) {
        var counts: [String: [String: Int]] = [:]
        for d in drafts {
            guard let c = d.category, Self.isUsable(c) else { continue }
            counts[d.title, default: [:]][c, default: 0] += 1
        }
        for (title, byCategory) in counts {
            byTitle[title] = byCategory.max { ($0.value, $1.key) < ($1.value, $0.key) }!.key
        }
    }

    static func isUsable(_ category: String) -> Bool {
        let t = category.trimmingWhitespace()
        return !t.isEmpty && !TaskRules.placeholderCategories.contains { $0.lowercased() == t.lowercased() }
    }

    /// `raw` as replan can hold it. An empty or placeholder category takes the category the
    /// student gave other tasks of the same title, else `FirestoreImporter.replacementCategory`.
    func resolve(_ raw: String?, title: String?, path: String, report: inout FirestoreImportReport) -> String {
        let cleaned = FirestoreText.clean(raw ?? "", limit: 50, trim: true, path: path, report: &report)
        if Self.isUsable(cleaned) { return cleaned }
        let shown = raw == nil ? "a missing category" : cleaned.isEmpty ? "an empty category" : "'\(cleaned)'"
        if let title, let better = byTitle[title] {
            report.correct(
                .category, path,
                "\(shown) is no category replan accepts; filed under '\(better)', the category of the student's other tasks titled '\(title)'"
            )
            return better
        }
        report.correct(
            .category, path,
            "\(shown) is no category replan accepts; filed under '\(FirestoreImporter.replacementCategory)' (other)")
        return FirestoreImporter.replacementCategory
    }
}
