import JSON

/// What a student's standing instruction commits the plan to, in a form replan can check every
/// night (docs/model.md §17). The model states it through `set_goal` when the instruction is new
/// or changed; the student or the operator may correct it (`settings set --goal`).
///
/// A goal is one or more terms joined by `; ` in its text form, or `not-checkable` with a reason
/// (an instruction such as "be gentle with me" has nothing a plan can be measured against; that
/// is allowed and recorded, and such a goal keeps a periodic review).
package enum Goal: Hashable, Sendable {
    case terms([GoalTerm])
    case notCheckable(reason: String)

    /// The longest text form accepted, and the most terms: a goal is read by people and shown
    /// in every request, never a document.
    package static let maxTextLength = 400
    package static let maxTerms = 8

    package var terms: [GoalTerm] {
        if case .terms(let t) = self { return t }
        return []
    }

    package var isCheckable: Bool { !terms.isEmpty }
}

/// One checkable term of a goal.
package enum GoalTerm: Hashable, Sendable {
    /// At least `minutes` of `category` (nil: of all study) on each of `days`.
    case atLeast(minutes: Int, category: String?, days: Set<Weekday>)
    /// No session ends after this local time of day (a session running until 21:00 is fine for
    /// `none-after 21:00`).
    case noneAfter(TimeOfDay)
    /// No sessions on these weekdays.
    case noneOn(Set<Weekday>)
    /// A total of `minutes` of `category` (nil: all study) on the days before `date`, from today.
    case totalBefore(minutes: Int, category: String?, date: CivilDate)

    /// The most minutes of one day's goal, and of a total.
    package static let maxDailyMinutes = 1440
    package static let maxTotalMinutes = 100_000
}

/// Why a goal's text or JSON could not be read: the offending part and what was expected.
/// Nothing from outside (the model, a command line, an imported file) can do more than this.
package struct GoalError: Error, Hashable, Sendable, CustomStringConvertible {
    package let message: String

    package init(_ message: String) { self.message = message }

    package var description: String { message }
}

// MARK: - The text form

extension Goal {
    /// Parses the text form (`Goal.description`):
    ///
    ///     at-least 30m English on mon-fri
    ///     at-least 1h all on sat,sun
    ///     none-after 21:00
    ///     none-on sat,sun
    ///     total 600m Exam before 2025-02-01
    ///     not-checkable: the instruction asks for a gentler tone
    ///
    /// Terms are joined by `;`. Keywords and weekday names are case-insensitive; a category is
    /// any text without `;` (`all` means every category).
    package init(parsing text: String) throws(GoalError) {
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty else { throw GoalError("the goal is empty") }
        do throws(DataError) { try TaskRules.rejectControlCharacters(trimmed, path: "goal") } catch {
            throw GoalError("the goal \(error.message)")
        }
        guard trimmed.count <= Goal.maxTextLength else {
            throw GoalError("the goal is longer than \(Goal.maxTextLength) characters")
        }
        if trimmed.lowercased().hasPrefix("not-checkable") {
            var reason = String(trimmed.dropFirst("not-checkable".count)).trimmingWhitespace()
            if reason.hasPrefix(":") { reason = String(reason.dropFirst()).trimmingWhitespace() }
            guard !reason.isEmpty else { throw GoalError("not-checkable needs a reason: 'not-checkable: why'") }
            self = .notCheckable(reason: reason)
            return
        }
        let parts = trimmed.split(separator: ";").map { String($0).trimmingWhitespace() }.filter { !$0.isEmpty }
        guard parts.count <= Goal.maxTerms else { throw GoalError("a goal has at most \(Goal.maxTerms) terms") }
        var terms: [GoalTerm] = []
        for part in parts {
            let term = try GoalTerm(parsing: part)
            if !terms.contains(term) { terms.append(term) }
        }
        guard !terms.isEmpty else { throw GoalError("the goal is empty") }
        self = .terms(terms)
    }
}

extension Goal: CustomStringConvertible {
    /// The text form; parsing it gives the same goal back.
    package var description: String {
        switch self {
        case .terms(let terms): return terms.map(\.description).joined(separator: "; ")
        case .notCheckable(let reason): return "not-checkable: \(reason)"
        }
    }
}

extension GoalTerm: CustomStringConvertible {
    package var description: String {
        switch self {
        case .atLeast(let minutes, let category, let days):
            return "at-least \(minutes)m \(category ?? "all") on \(GoalTerm.daysText(days))"
        case .noneAfter(let time): return "none-after \(time)"
        case .noneOn(let days): return "none-on \(GoalTerm.daysText(days))"
        case .totalBefore(let minutes, let category, let date):
            return "total \(minutes)m \(category ?? "all") before \(date)"
        }
    }

    /// `mon-fri`, `sat,sun`, `mon,wed-fri`: consecutive days (three or more) as a range.
    package static func daysText(_ days: Set<Weekday>) -> String {
        let sorted = days.sorted()
        var runs: [[Weekday]] = []
        for d in sorted {
            if let last = runs.last?.last, last.index + 1 == d.index {
                runs[runs.count - 1].append(d)
            } else {
                runs.append([d])
            }
        }
        return runs.flatMap { run -> [String] in
            run.count >= 3 ? ["\(run.first!.rawValue)-\(run.last!.rawValue)"] : run.map(\.rawValue)
        }.joined(separator: ",")
    }

    init(parsing text: String) throws(GoalError) {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let keyword = words.first?.lowercased() else { throw GoalError("an empty term") }
        switch keyword {
        case "at-least":
            // at-least <minutes> <category…> on <days>
            guard words.count >= 5, let on = words.lastIndex(where: { $0.lowercased() == "on" }), on >= 3,
                on == words.count - 2
            else { throw GoalError("'\(text)': expected 'at-least 30m CATEGORY on mon-fri'") }
            let minutes = try GoalTerm.minutes(words[1], limit: GoalTerm.maxDailyMinutes, in: text)
            let category = try GoalTerm.category(words[2..<on].joined(separator: " "), in: text)
            self = .atLeast(minutes: minutes, category: category, days: try GoalTerm.days(words[on + 1], in: text))
        case "none-after":
            guard words.count == 2, let time = TimeOfDay(words[1]), time.minutes > 0 else {
                throw GoalError("'\(text)': expected 'none-after HH:MM'")
            }
            self = .noneAfter(time)
        case "none-on":
            guard words.count == 2 else { throw GoalError("'\(text)': expected 'none-on sat,sun'") }
            self = .noneOn(try GoalTerm.days(words[1], in: text))
        case "total":
            // total <minutes> <category…> before <date>
            guard words.count >= 5, words[words.count - 2].lowercased() == "before" else {
                throw GoalError("'\(text)': expected 'total 600m CATEGORY before YYYY-MM-DD'")
            }
            let minutes = try GoalTerm.minutes(words[1], limit: GoalTerm.maxTotalMinutes, in: text)
            let category = try GoalTerm.category(words[2..<(words.count - 2)].joined(separator: " "), in: text)
            guard let date = CivilDate(words[words.count - 1]) else {
                throw GoalError("'\(text)': '\(words[words.count - 1])' is not a date YYYY-MM-DD")
            }
            self = .totalBefore(minutes: minutes, category: category, date: date)
        default:
            throw GoalError(
                "'\(text)': a term starts with at-least, none-after, none-on or total (or the goal is 'not-checkable: why')"
            )
        }
    }

    /// `30m`, `90`, `1h`, `1h30m`.
    static func minutes(_ word: String, limit: Int, in text: String) throws(GoalError) -> Int {
        let w = word.lowercased()
        var total = 0
        var number = ""
        var sawUnit = false
        for c in w {
            if c.isASCII, c.isNumber {
                number.append(c)
                guard number.count <= 6 else { throw GoalError("'\(text)': '\(word)' is too large") }
            } else if c == "h" || c == "m", let n = Int(number) {
                total += c == "h" ? n * 60 : n
                number = ""
                sawUnit = true
            } else {
                throw GoalError("'\(text)': '\(word)' is not a number of minutes such as 30m or 1h30m")
            }
        }
        if let n = Int(number) {
            guard !sawUnit else { throw GoalError("'\(text)': '\(word)' is not a number of minutes such as 30m") }
            total += n
        }
        guard (1...limit).contains(total) else {
            throw GoalError("'\(text)': \(word) must be between 1 and \(limit) minutes")
        }
        return total
    }

    static func category(_ text: String, in term: String) throws(GoalError) -> String? {
        let c = text.trimmingWhitespace()
        guard !c.isEmpty else { throw GoalError("'\(term)': the category is missing") }
        if c.lowercased() == "all" { return nil }
        // The field rules of a task's category (docs/data-format.md §2.3): a goal names a
        // category a session could have.
        do throws(DataError) { try TaskRules.validateCategory(c) } catch {
            throw GoalError("'\(term)': the category \(error.message)")
        }
        guard !c.contains(";") else { throw GoalError("'\(term)': a category cannot hold ';'") }
        return c
    }

    /// `mon-fri`, `sat,sun`, `mon,wed-fri`, `daily`.
    static func days(_ word: String, in term: String) throws(GoalError) -> Set<Weekday> {
        let w = word.lowercased()
        if w == "daily" || w == "every-day" { return Set(Weekday.allCases) }
        var days: Set<Weekday> = []
        for piece in w.split(separator: ",", omittingEmptySubsequences: false) {
            let ends = piece.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard (1...2).contains(ends.count), let first = Weekday(rawValue: ends[0]),
                let last = Weekday(rawValue: ends[ends.count - 1]), first <= last
            else {
                throw GoalError("'\(term)': '\(word)' is not a list of days such as mon-fri or sat,sun")
            }
            for d in Weekday.allCases where first <= d && d <= last { days.insert(d) }
        }
        return days
    }
}

// MARK: - The JSON form

extension Goal {
    /// `{"notCheckable": "why"}` or `{"terms": [{"kind": "at-least", "minutes": 30, "category":
    /// "English", "days": ["mon", …]}, {"kind": "none-after", "time": "21:00"}, {"kind":
    /// "none-on", "days": [...]}, {"kind": "total", "minutes": 600, "category": null, "before":
    /// "2025-02-01"}]}`. A null category is all study.
    package var json: JSONValue {
        switch self {
        case .notCheckable(let reason): return ["notCheckable": .string(reason)]
        case .terms(let terms): return ["terms": .array(terms.map(\.json))]
        }
    }

    /// Reads the JSON form; the same limits as the text form apply.
    package init(json: JSONValue) throws(GoalError) {
        guard case .object(let o) = json else { throw GoalError("a goal is a JSON object") }
        if let reason = o["notCheckable"] {
            guard o.count == 1, let r = reason.stringValue else {
                throw GoalError("notCheckable is a non-empty reason and the goal's only key")
            }
            self = try Goal(parsing: "not-checkable: \(r)")
            return
        }
        guard o.count == 1, let list = o["terms"]?.arrayValue, !list.isEmpty, list.count <= Goal.maxTerms else {
            throw GoalError("a goal is {\"terms\": [1 to \(Goal.maxTerms) terms]} or {\"notCheckable\": \"why\"}")
        }
        var terms: [GoalTerm] = []
        for item in list {
            let term = try GoalTerm(json: item)
            if !terms.contains(term) { terms.append(term) }
        }
        self = .terms(terms)
    }
}

extension GoalTerm {
    package var json: JSONValue {
        func days(_ d: Set<Weekday>) -> JSONValue { .array(d.sorted().map { .string($0.rawValue) }) }
        func category(_ c: String?) -> JSONValue { c.map { .string($0) } ?? .null }
        switch self {
        case .atLeast(let minutes, let c, let d):
            return ["kind": "at-least", "minutes": .int(minutes), "category": category(c), "days": days(d)]
        case .noneAfter(let t): return ["kind": "none-after", "time": .string(t.description)]
        case .noneOn(let d): return ["kind": "none-on", "days": days(d)]
        case .totalBefore(let minutes, let c, let date):
            return [
                "kind": "total", "minutes": .int(minutes), "category": category(c), "before": .string(date.description),
            ]
        }
    }

    init(json: JSONValue) throws(GoalError) {
        guard case .object(let o) = json, let kind = o["kind"]?.stringValue else {
            throw GoalError("a goal term is an object with a kind")
        }
        func keys(_ known: Set<String>) throws(GoalError) {
            if let k = o.keys.sorted().first(where: { !known.contains($0) }) {
                throw GoalError("a \(kind) term has no key '\(k)'")
            }
        }
        func days() throws(GoalError) -> Set<Weekday> {
            guard let list = o["days"]?.arrayValue, !list.isEmpty else {
                throw GoalError("a \(kind) term needs days")
            }
            var d: Set<Weekday> = []
            for v in list {
                guard let day = v.stringValue.flatMap(Weekday.init(rawValue:)) else {
                    throw GoalError("a \(kind) term's days are mon … sun")
                }
                d.insert(day)
            }
            return d
        }
        func minutes(limit: Int) throws(GoalError) -> Int {
            guard let m = o["minutes"]?.intValue, (1...limit).contains(m) else {
                throw GoalError("a \(kind) term's minutes are 1 to \(limit)")
            }
            return m
        }
        func category() throws(GoalError) -> String? {
            guard let v = o["category"], v != .null else { return nil }
            guard let c = v.stringValue else { throw GoalError("a \(kind) term's category is a string or null") }
            return try GoalTerm.category(c, in: kind)
        }
        switch kind {
        case "at-least":
            try keys(["kind", "minutes", "category", "days"])
            self = .atLeast(
                minutes: try minutes(limit: GoalTerm.maxDailyMinutes), category: try category(), days: try days())
        case "none-after":
            try keys(["kind", "time"])
            guard let t = o["time"]?.stringValue.flatMap({ TimeOfDay($0) }), t.minutes > 0 else {
                throw GoalError("a none-after term's time is HH:MM")
            }
            self = .noneAfter(t)
        case "none-on":
            try keys(["kind", "days"])
            self = .noneOn(try days())
        case "total":
            try keys(["kind", "minutes", "category", "before"])
            guard let date = o["before"]?.stringValue.flatMap({ CivilDate($0) }) else {
                throw GoalError("a total term's before is YYYY-MM-DD")
            }
            self = .totalBefore(
                minutes: try minutes(limit: GoalTerm.maxTotalMinutes), category: try category(), date: date)
        default:
            throw GoalError("unknown goal term kind '\(kind)'")
        }
    }
}
