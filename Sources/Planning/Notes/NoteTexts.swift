import JSON

/// The words a student reads, in their language: one data file per language in `texts/`,
/// compiled in (`NoteTextsData.swift`, written by `scripts/texts`), so the installed binary
/// needs no file at run time. A language without a file takes English and says so
/// (`fellBack`); a text missing from a partial language takes the English one.
///
/// Texts are templates: `{name}` stands for a value the renderer fills in (`{title}`,
/// `{from}`, `{n}`). Counted texts come in two keys, `….one` and `….other`.
package struct NoteTexts: Sendable {
    /// The languages whose files must hold every key (`NoteTextsTests` fails otherwise).
    package static let complete = ["en", "zh-TW"]

    /// The language whose texts are used (`en` when the student's has none).
    package let language: String
    /// True when the student's language has no texts and English stands in.
    package let fellBack: Bool
    private let texts: Language
    private let english: Language

    /// The texts for a language tag as a student's settings hold it (`zh-TW`, `zh_Hant_TW`,
    /// `EN-us`). Chinese written in Traditional characters (Taiwan, Hong Kong, Macau, `Hant`)
    /// takes `zh-TW`; any other tag without a file of its own takes its primary language's
    /// file if there is one, else English.
    package init(language tag: String) {
        // The two complete languages as students' settings usually spell them, without parsing.
        let found = tag == "en" || tag == "zh-TW" ? tag : NoteTexts.resolve(tag)
        language = found ?? "en"
        fellBack = found == nil
        english = NoteTexts.languages["en"] ?? Language(table: [:])
        texts = NoteTexts.languages[language] ?? english
    }

    /// The tag of the file that serves `tag`, nil when none does.
    static func resolve(_ tag: String) -> String? {
        let parts = tag.split(whereSeparator: { $0 == "-" || $0 == "_" }).map { $0.lowercased() }
        guard let primary = parts.first else { return nil }
        if let exact = byLower[parts.joined(separator: "-")] { return exact }
        if primary == "zh", parts.contains(where: { ["hant", "tw", "hk", "mo"].contains($0) }) {
            return byLower["zh-tw"]
        }
        return byLower[primary]
    }

    /// The text of `key`, its `{name}`s replaced by `values`. A key no file knows renders as
    /// the key itself, so a missing text shows instead of crashing a night.
    package func text(_ key: String, _ values: [String: String] = [:]) -> String {
        guard let template = texts.templates[key] ?? english.templates[key] else { return key }
        return template.fill(values)
    }

    /// `….one` for 1, `….other` otherwise, with `{n}` filled in.
    package func counted(_ key: String, _ n: Int, _ values: [String: String] = [:]) -> String {
        var values = values
        values["n"] = String(n)
        return text(key + (n == 1 ? ".one" : ".other"), values)
    }

    /// "Mon 6 Jan" / "1月6日週一".
    package func date(_ d: CivilDate) -> String {
        let c = d.components
        return texts.date.fill([
            "weekday": texts.weekdays[d.weekday.index], "day": String(c.day), "month": texts.months[c.month - 1],
        ])
    }

    /// "Mon 6 Jan 13:30".
    package func dateTime(_ t: CivilDateTime) -> String {
        text("dateTime", ["date": date(t.date), "time": t.time.description])
    }

    /// A session's time as a student reads it: "Mon 6 Jan 13:30–14:30", "Mon 6 Jan (all day)";
    /// a session over several days gives its start and end.
    package func range(_ r: TimeRange, allDay: Bool = false) -> String {
        if allDay || (r.start.time.minutes == 0 && r.end.time.minutes == 0 && r.end.date > r.start.date) {
            return text("allDay", ["date": date(r.start.date)])
        }
        if r.start.date == r.end.date || (r.end.time.minutes == 0 && r.end.date == r.start.date.adding(days: 1)) {
            return text(
                "timeRange",
                ["date": date(r.start.date), "start": r.start.time.description, "end": r.end.time.description])
        }
        return dateTime(r.start) + " – " + dateTime(r.end)
    }

    /// Items joined with the language's list separator.
    package func list(_ items: [String]) -> String { items.joined(separator: text("list")) }

    /// Clauses of one sentence, such as the night's numbers: "3 sessions moved, 1 habit day let
    /// go" / "移動 3 堂，略過 1 天習慣" (Chinese joins clauses with "，", items of a list with "、").
    package func clauses(_ items: [String]) -> String { items.joined(separator: text("clauses")) }

    /// The files' tags by their lower-case spelling (tags compare without case).
    static let byLower = Dictionary(tables.keys.map { ($0.lowercased(), $0) }, uniquingKeysWith: { a, _ in a })

    /// Every language file, parsed once.
    static let tables: [String: [String: String]] = {
        var out: [String: [String: String]] = [:]
        for (tag, file) in files {
            guard let object = (try? JSONValue(parsing: file))?.objectValue else { continue }
            out[tag] = object.compactMapValues(\.stringValue)
        }
        return out
    }()

    /// Every language's templates, split once at their `{name}`s, and its names of days and
    /// months (a night's note fills a few dozen texts; cutting each up again cost a tenth of
    /// the night's local rules).
    static let languages: [String: Language] = tables.mapValues { Language(table: $0, english: tables["en"] ?? [:]) }

    /// One language's texts, ready to fill.
    struct Language: Sendable {
        let templates: [String: Template]
        let date: Template
        let weekdays: [String]
        let months: [String]

        init(table: [String: String], english: [String: String] = [:]) {
            templates = table.mapValues(Template.init)
            func own(_ key: String) -> String { table[key] ?? english[key] ?? key }
            date = Template(own("date"))
            weekdays = Weekday.allCases.map { own("weekday.\($0.rawValue)") }
            months = (1...12).map { own("month.\($0)") }
        }
    }

    /// A text cut at its `{name}`s: literal pieces and the names between them.
    struct Template: Sendable {
        enum Piece: Sendable {
            case literal(String)
            case value(String)
        }
        let pieces: [Piece]

        init(_ text: String) {
            var pieces: [Piece] = []
            var rest = Substring(text)
            while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
                if open > rest.startIndex { pieces.append(.literal(String(rest[..<open]))) }
                pieces.append(.value(String(rest[rest.index(after: open)..<close])))
                rest = rest[rest.index(after: close)...]
            }
            if !rest.isEmpty { pieces.append(.literal(String(rest))) }
            self.pieces = pieces
        }

        func fill(_ values: [String: String]) -> String {
            var out = ""
            for piece in pieces {
                switch piece {
                case .literal(let text): out += text
                case .value(let name): out += values[name] ?? "{\(name)}"
                }
            }
            return out
        }
    }

    /// Every key a complete language must have: the renderer's own, and one per reason,
    /// operation, flag and summary field (so a new reason without words fails a test).
    package static var requiredKeys: [String] {
        var keys = fixedKeys
        keys += Weekday.allCases.map { "weekday.\($0.rawValue)" }
        keys += (1...12).map { "month.\($0)" }
        for r in PlanEdit.Reason.allCases { keys += ["reason.\(r.rawValue)", "feed.why.\(r.rawValue)"] }
        keys += PlanEdit.Operation.allCases.map { "op.\($0.rawValue)" }
        keys += ["flag.could-not-fit", "flag.could-not-fit.undated"]
        for f in PlanFlag.Kind.allCases where f != .couldNotFit {
            keys += ["flag.\(f.rawValue).one", "flag.\(f.rawValue).other"]
        }
        for field in PlanSummary.fields + ["model", "manual"] {
            keys += ["summary.\(field).one", "summary.\(field).other"]
        }
        return keys
    }

    static let fixedKeys = [
        "language", "date", "dateTime", "timeRange", "allDay", "list", "clauses", "note.title", "note.title.decide",
        "note.changes.one", "note.changes.other", "note.total", "note.undo", "section.madeUp", "section.course",
        "section.appended", "section.letGo", "section.removed", "section.split", "section.model", "section.manual",
        "section.decide", "section.goal", "goal.short", "goal.short.all", "goal.short.total", "goal.short.total.all",
        "goal.breaks", "section.assistant", "line.madeUp", "line.moved", "line.course.parts", "line.course.part",
        "line.course.sessions", "shift.days.one", "shift.days.other", "shift.range", "shift.sameDay", "line.appended",
        "line.appended.end", "line.dates", "line.many", "line.split", "line.split.part", "line.create", "line.update",
        "line.delete", "line.skip", "line.detail", "model.question", "show.line", "feed.moved", "undo.title",
        "undo.body", "redo.title", "redo.body", "summary.chained.all.one", "summary.chained.all.other",
    ]

    /// The parsed file of one language (tests compare files and keys).
    package static func table(_ tag: String) -> [String: String]? { tables[tag] }
}
