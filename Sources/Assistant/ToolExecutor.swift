import Foundation
import JSON
import Planning

/// Applies the model's tool calls (docs/model.md §12) to one user's working copy, item by
/// item: each item is checked on its own and either changes the working copy or comes back
/// as an error the model can correct; a refused item changes nothing.
///
/// The placement rules (time order, past, study windows, overlaps, completed and skipped
/// history, DST gaps) are `PlacementValidator`'s and the field rules `TaskRules`'; this type
/// only adds what is particular to the model:
///
/// - Ids must name something in this user's plan. The working copy holds only this user's
///   tasks, so another student's id is simply unknown here.
/// - New and moved sessions must start no later than the last day of the plan the model was
///   shown (`lastPlacementDate`): beyond it the working copy is not fully loaded, so an
///   overlap could not be ruled out.
/// - A series occurrence (`ID@date`) can only be moved or skipped: storage keeps a per-
///   occurrence place and state, not a per-occurrence title, so its title, note, category and
///   colour belong to the whole series (changed through the bare series id, which in turn
///   cannot be moved or deleted as a whole — series are the student's to end). A change
///   through the series id applies from today on: the series is split, so the model can
///   never rewrite completed history (see `updateSeries`).
/// - At most `maxDeletes` deletions or skips per user run; deleting a session the model
///   itself created in this conversation only undoes that creation and is not counted.
/// - Malformed arguments, unknown tools and unknown fields are error results, never a crash.
package struct ToolExecutor: Sendable {
    package static let defaultMaxDeletes = 10

    /// The working copy with every accepted item applied.
    package private(set) var plan: UserPlan
    /// The user's local time; nothing is placed before it.
    package let now: CivilDateTime
    /// The last date a new or moved session may start on.
    package let lastPlacementDate: CivilDate
    package let maxDeletes: Int
    /// The model's edits the student undid (docs/model.md §14): not made again.
    package let takenBack: TakenBack
    /// Deletions and skips counted against `maxDeletes`.
    package private(set) var deletions = 0
    /// Occurrences the model changed, created or deleted, with the explanation given for
    /// the edit (may be empty); the changeset reports them with reason `model`.
    package private(set) var touched: [OccurrenceID: String] = [:]
    /// Set once `end_conversation` was called.
    package private(set) var ended = false
    /// The summary given with `end_conversation`, if any.
    package private(set) var summary: String?
    /// The structured end of `end_conversation`: `done`, `nothing-needed` or `needs-student`.
    package private(set) var endStatus: String?
    /// What the student must decide, when the model said `needs-student`.
    package private(set) var question: String?
    /// The goal the model stated with `set_goal` (docs/model.md §17), and its next review date.
    package private(set) var goal: Goal?
    package private(set) var reviewAgainOn: CivilDate?

    /// The order of every course as the model was shown it (G2, docs/model.md §13).
    private let order: CourseOrder
    /// The nearest slots offered to refused items of the call being run: kept for those items,
    /// so a later item of the same call cannot take one (docs/model.md §13).
    private var offered: [(range: TimeRange, forItem: String)] = []
    private var createdTaskIDs: Set<String> = []
    /// Series split by an update in this conversation: old id → the series continuing it.
    private var continuedAs: [String: String] = [:]
    private let createdAt: Date
    private let makeTaskID: @Sendable () -> String

    /// - Parameters:
    ///   - now: the user's local time (rounded up to the minute, as the local rules use it).
    ///   - createdAt: the instant stamped on created tasks.
    ///   - lastPlacementDate: defaults to the end of the plan window the prompt shows.
    ///   - makeTaskID: proposes ids for new tasks; a proposal already in use is discarded.
    package init(
        plan: UserPlan, now: CivilDateTime, createdAt: Date, lastPlacementDate: CivilDate? = nil,
        maxDeletes: Int = ToolExecutor.defaultMaxDeletes, takenBack: TakenBack = TakenBack(edits: []),
        makeTaskID: @escaping @Sendable () -> String = ToolExecutor.randomTaskID
    ) {
        self.plan = plan
        self.takenBack = takenBack
        self.now = now
        self.createdAt = createdAt
        let lastPlacementDate = lastPlacementDate ?? PlanWindow(today: now.date, settings: plan.settings).through
        self.lastPlacementDate = lastPlacementDate
        self.order = CourseOrder(reference: plan, today: now.date, through: lastPlacementDate)
        self.maxDeletes = maxDeletes
        self.makeTaskID = makeTaskID
    }

    /// `m-` and ten random base-32 characters (50 bits): task ids are unique across users,
    /// and a collision with a task outside the loaded plan is vanishingly unlikely.
    package static let randomTaskID: @Sendable () -> String = {
        "m-" + StableID.base32(UInt64.random(in: 0...UInt64.max), length: 10)
    }

    /// The names of the tools, for messages.
    static let toolNames = [
        AssistantTools.saveTask, AssistantTools.updateTask, AssistantTools.deleteTask,
        AssistantTools.endConversation, AssistantTools.setGoal,
    ]

    /// `set_goal`: the goal is parsed and checked by `Goal`, the review date by `StatedGoal`
    /// (today … today + 60 days); a later call replaces an earlier one.
    mutating func setGoal(_ arguments: JSONObjectReader) throws(ToolFailure) -> JSONValue {
        let text: String?
        let reviewText: String?
        do throws(DataError) {
            text = try arguments.optionalString("goal")
            reviewText = try arguments.optionalString("reviewAgainOn")
        } catch { throw ToolFailure(error) }
        guard let text else { throw ToolFailure("goal is required: the goal text, or 'not-checkable: why'") }
        let parsed: Goal
        do throws(GoalError) { parsed = try Goal(parsing: text) } catch { throw ToolFailure(error.message) }
        var review: CivilDate?
        if let r = reviewText?.trimmingWhitespace(), !r.isEmpty {
            guard let date = CivilDate(r) else { throw ToolFailure("reviewAgainOn '\(r)' is not a date YYYY-MM-DD") }
            do throws(GoalError) { try StatedGoal.validateReviewDate(date, today: now.date) } catch {
                throw ToolFailure(error.message)
            }
            review = date
        }
        goal = parsed
        reviewAgainOn = review
        return ["ok": true, "goal": .string(parsed.description)]
    }

    /// Runs one tool call and returns its result (see `ToolResult`).
    ///
    /// - Parameter explanation: what the model said alongside the call, kept with each edit.
    package mutating func execute(_ call: ToolCall, explanation: String = "") -> JSONValue {
        offered = []
        defer { offered = [] }
        do {
            let arguments = try ToolArguments.parse(call.arguments)
            switch call.name {
            case AssistantTools.saveTask:
                return try eachItem(of: arguments, key: "tasks") { (executor: inout ToolExecutor, item: JSONValue) in
                    try executor.save(item, explanation: explanation)
                }
            case AssistantTools.updateTask:
                return try eachItem(of: arguments, key: "tasks") { (executor: inout ToolExecutor, item: JSONValue) in
                    try executor.update(item, explanation: explanation)
                }
            case AssistantTools.deleteTask:
                // `taskIds` (a list of ids) is the tool's first form, still accepted from servers
                // that do not enforce the schema.
                let key = arguments.has("taskIds") && !arguments.has("tasks") ? "taskIds" : "tasks"
                return try eachItem(of: arguments, key: key) { (executor: inout ToolExecutor, item: JSONValue) in
                    try executor.delete(item, explanation: explanation)
                }
            case AssistantTools.endConversation:
                try arguments.rejectUnknownKeys(["summary", "status", "question"])
                summary = try arguments.optionalString("summary")?.trimmingWhitespace()
                if summary?.isEmpty == true { summary = nil }
                if let status = try arguments.optionalString("status")?.trimmingWhitespace(), !status.isEmpty {
                    guard ["done", "nothing-needed", "needs-student"].contains(status) else {
                        throw ToolFailure("status must be done, nothing-needed or needs-student, got '\(status)'")
                    }
                    endStatus = status
                }
                question = try arguments.optionalString("question")?.trimmingWhitespace()
                if question?.isEmpty == true { question = nil }
                ended = true
                return ["ok": true]
            case AssistantTools.setGoal:
                try arguments.rejectUnknownKeys(["goal", "reviewAgainOn"])
                return try setGoal(arguments)
            default:
                return ToolResult.failure(
                    "unknown tool '\(call.name)'; the tools are \(Self.toolNames.joined(separator: ", "))")
            }
        } catch {
            return ToolResult.failure(ToolFailure(error).message)
        }
    }

    /// Applies `body` to every element of the array `key` (the only key allowed), each on its
    /// own: an item that throws becomes an error entry and leaves the working copy as it was.
    private mutating func eachItem(
        of arguments: JSONObjectReader, key: String,
        _ body: (inout ToolExecutor, JSONValue) throws -> String
    ) throws -> JSONValue {
        try arguments.rejectUnknownKeys([key])
        guard let items = try arguments.optionalArray(key) else {
            throw ToolFailure("\(key): is required (an array)")
        }
        var results: [JSONValue] = []
        for item in items {
            do {
                results.append(ToolResult.ok(id: try body(&self, item)))
            } catch {
                let failure = ToolFailure(error)
                let named = Self.namedID(item)
                for range in failure.reserved {
                    offered.append((range, named ?? item["title"]?.stringValue ?? "an earlier item"))
                }
                results.append(ToolResult.failure(failure.message, id: named, nearest: failure.nearest))
            }
        }
        return .array(results)
    }

    /// The id an item names, for its error entry.
    private static func namedID(_ item: JSONValue) -> String? {
        item.stringValue ?? item["taskId"]?.stringValue
    }

    // MARK: - saveTask

    private static let saveFields: Set<String> = [
        "title", "note", "category", "color", "start", "end", "allDay", "repeat", "reason",
    ]

    /// The longest a series the model creates may run: `until` at most this many days after
    /// its first session (docs/model.md §12).
    package static let maxSeriesDays = 366

    private mutating func save(_ item: JSONValue, explanation: String) throws -> String {
        let fields = try ToolArguments.object(item)
        try fields.rejectUnknownKeys(Self.saveFields)
        let title = try fields.string("title").trimmingWhitespace()
        try TaskRules.validateTitle(title)
        let note = try fields.optionalString("note") ?? ""
        try TaskRules.validateNote(note)
        let category = try fields.string("category").trimmingWhitespace()
        try TaskRules.validateCategory(category)
        let color = try Self.color(fields) ?? .green
        let allDay = try fields.optionalBool("allDay") ?? false
        let start = try fields.dateTime("start", zone: plan.zone, allowDate: allDay)
        let end = try fields.dateTime("end", zone: plan.zone, allowDate: allDay)
        try TaskRules.validateTimes(start: start, end: end, allDay: allDay)
        try checkPlacementDate(start)
        var task = StudyTask(
            id: Self.candidateID, userID: plan.user.id, title: title, note: note, category: category, color: color,
            start: start, end: end, allDay: allDay, repeatRule: try Self.repeatRule(fields, start: start),
            createdAt: createdAt)
        if task.isSeries {
            try validateSeries(task)
        } else {
            if let refusal = takenBack.refusal(creating: title, on: start.date) { throw ToolFailure(refusal) }
            try validatePlacement(
                PlacementCandidate(.newTask(title: title, category: category), start: start, end: end, allDay: allDay))
        }

        let explanation = try Self.reason(fields) ?? explanation
        let id = newTaskID()
        task.id = id
        plan.put(task)
        createdTaskIDs.insert(id)
        touched[OccurrenceID(taskID: id)] = explanation
        return id
    }

    private mutating func newTaskID() -> String {
        while true {
            let id = makeTaskID()
            if plan.tasks[id] == nil, !createdTaskIDs.contains(id), (try? TaskRules.validateID(id)) != nil { return id }
        }
    }

    // MARK: - A new series

    /// The id a new task is checked under before it gets its own (ids are drawn only for
    /// tasks that are created, so a refused item uses none of them).
    private static let candidateID = "m-candidate"

    /// `saveTask`'s `repeat`: null or absent for a one-off session; `every` required, `until`
    /// (inclusive) from the first session's day to `maxSeriesDays` after it, `missed` one of
    /// the policies of docs/planning.md §4 (null: the kind's default).
    private static func repeatRule(_ fields: JSONObjectReader, start: CivilDateTime) throws -> RepeatRule? {
        guard let value = fields.value("repeat") else { return nil }
        do throws(DataError) {
            let r = try ToolArguments.object(value)
            try r.rejectUnknownKeys(["every", "until", "missed"])
            let everyText = try r.string("every")
            guard let every = RepeatRule.Frequency(rawValue: everyText.lowercased()) else {
                throw DataError(path: "every", message: "'\(everyText)' is not one of daily, weekly, monthly")
            }
            let until = try r.optionalDate("until")
            if let until, until < start.date {
                throw DataError(path: "until", message: "\(until) is before the first session on \(start.date)")
            }
            if let until, start.date.days(until: until) > maxSeriesDays {
                throw DataError(
                    path: "until",
                    message:
                        "\(until) is more than \(maxSeriesDays) days after the first session; end it by \(start.date.adding(days: maxSeriesDays))"
                )
            }
            var missed: RepeatRule.MissedPolicy?
            if let text = try r.optionalString("missed") {
                guard let policy = RepeatRule.MissedPolicy(rawValue: text.lowercased()) else {
                    throw DataError(path: "missed", message: "'\(text)' is not one of shift, skip, make-up")
                }
                missed = policy
            }
            return RepeatRule(every: every, until: until, missed: missed)
        } catch { throw error.under("repeat") }
    }

    /// A new series is placed like its sessions one by one: every session from its first to
    /// the last day the model may place on (`lastPlacementDate`) must be accepted where a
    /// one-off session would be (not in the past, inside the windows, no overlap with the plan,
    /// the earlier items of this call and the slots offered to them, nothing the student took
    /// back). The first session refused names the refusal, with the nearest time of the first
    /// day at which every session fits, when there is one; nothing is created.
    ///
    /// A series is a course of its own (`ChainKey`), so one titled like an existing course
    /// joins none, and like a one-off creation it is held to no order. Its sessions after
    /// `lastPlacementDate` lie where the working copy is not loaded: the rules meet them night
    /// by night, as they meet the student's own series.
    private func validateSeries(_ task: StudyTask) throws {
        let oneDay =
            task.allDay ? task.end.date == task.start.date : task.lengthMinutes <= 1440 - task.start.time.minutes
        guard oneDay else {
            throw ToolFailure("a session of a repeating series lies within one day; end it on \(task.start.date)")
        }
        guard let (session, failure) = seriesRefusal(task) else { return }
        let nearest = task.allDay ? nil : nearestSeriesTime(task)
        throw ToolFailure(
            "the series' session on \(session.start.date) (\(session.start.date.weekday.englishAbbreviation)): \(failure.message); nothing was created",
            nearest: nearest?.first, reserved: nearest ?? [])
    }

    /// The sessions of `task` the model may place on, by start.
    private func placeableSessions(of task: StudyTask) -> [Occurrence] {
        OccurrenceExpander(zone: plan.zone).occurrences(
            of: [task], overrides: [], slides: [], from: task.start.date, through: lastPlacementDate
        ).filter { $0.start.date <= lastPlacementDate }
    }

    /// The first session of `task` a one-off session at its place would be refused, with why
    /// (without a nearest slot of its own: the series is offered one time for all its sessions).
    private func seriesRefusal(_ task: StudyTask) -> (Occurrence, ToolFailure)? {
        for session in placeableSessions(of: task) {
            if let refusal = takenBack.refusal(creating: task.title, on: session.start.date) {
                return (session, ToolFailure(refusal))
            }
            do {
                try validatePlacement(
                    PlacementCandidate(
                        .newTask(title: task.title, category: task.category), start: session.start, end: session.end,
                        allDay: task.allDay),
                    offerNearest: false)
            } catch {
                return (session, ToolFailure(error))
            }
        }
        return nil
    }

    /// The sessions of the series at the time of day nearest its own, on its first day, at
    /// which every session is accepted (quarter hours, at or after now), or nil.
    private func nearestSeriesTime(_ task: StudyTask) -> [TimeRange]? {
        let own = task.start.time.minutes
        let times = stride(from: 0, to: 1440 - task.lengthMinutes + 1, by: 15).filter { $0 != own }
            .sorted { (abs($0 - own), $0) < (abs($1 - own), $1) }
        for minutes in times {
            var moved = task
            moved.start = CivilDateTime(date: task.start.date, time: TimeOfDay(minutes: minutes))
            moved.end = moved.start.adding(minutes: task.lengthMinutes)
            guard moved.start >= now else { continue }
            if seriesRefusal(moved) == nil {
                return placeableSessions(of: moved).map(TimeRange.init)
            }
        }
        return nil
    }

    // MARK: - updateTask

    private static let updateFields: Set<String> = [
        "taskId", "title", "note", "category", "color", "start", "end", "allDay", "reason",
    ]

    /// The attribute changes an update item asks for; nil fields stay as they are.
    private struct Attributes {
        var title: String?
        var note: String?
        var category: String?
        var color: TaskColor?

        init(_ fields: JSONObjectReader) throws {
            title = try fields.optionalString("title")?.trimmingWhitespace()
            if let title { try TaskRules.validateTitle(title) }
            note = try fields.optionalString("note")
            if let note { try TaskRules.validateNote(note) }
            category = try fields.optionalString("category")?.trimmingWhitespace()
            if let category { try TaskRules.validateCategory(category) }
            color = try ToolExecutor.color(fields)
        }

        /// The names of the fields that would change `task` (equal values are no change: models
        /// often echo every field back).
        func changes(_ task: StudyTask) -> [String] {
            var names: [String] = []
            if let title, title != task.title { names.append("title") }
            if let note, note != task.note { names.append("note") }
            if let category, category != task.category { names.append("category") }
            if let color, color != task.color { names.append("color") }
            return names
        }

        func applied(to task: StudyTask) -> StudyTask {
            var t = task
            t.title = title ?? t.title
            t.note = note ?? t.note
            t.category = category ?? t.category
            t.color = color ?? t.color
            return t
        }
    }

    private mutating func update(_ item: JSONValue, explanation: String) throws -> String {
        let fields = try ToolArguments.object(item)
        try fields.rejectUnknownKeys(Self.updateFields)
        let idText = try fields.string("taskId")
        let id = try occurrenceID(idText)
        guard let task = plan.tasks[id.taskID] else { throw PlacementError.unknownOccurrence(id) }
        let explanation = try Self.reason(fields) ?? explanation
        let attributes = try Attributes(fields)
        let newAllDay = try fields.optionalBool("allDay")
        let changesTime = fields.has("start") || fields.has("end")

        if task.isSeries && id.originalDate == nil {
            if changesTime || (newAllDay != nil && newAllDay != task.allDay) {
                throw ToolFailure(
                    "'\(idText)' is a repeating series, which is not moved as a whole; move one session with \(idText)@YYYY-MM-DD"
                )
            }
            return try updateSeries(task, idText: idText, attributes: attributes, explanation: explanation)
        }

        guard let occurrence = plan.occurrence(id) else { throw PlacementError.unknownOccurrence(id) }
        switch occurrence.state {
        case .completed: throw PlacementError.completed(id)
        case .skipped: throw PlacementError.skipped(id)
        case .open: break
        }
        if id.originalDate != nil {
            let fieldNames = attributes.changes(task)
            if !fieldNames.isEmpty {
                throw ToolFailure(
                    "titles belong to the whole series: \(fieldNames.joined(separator: ", ")) of one session of '\(task.id)' cannot change on its own (update '\(task.id)' to change every session of the series); only start and end can change for \(idText)"
                )
            }
            if let newAllDay, newAllDay != occurrence.allDay {
                throw ToolFailure(
                    "one session of a series cannot switch between all-day and timed; only start and end can change for \(idText)"
                )
            }
        }

        let allDay = newAllDay ?? occurrence.allDay
        if allDay != occurrence.allDay && !(fields.has("start") && fields.has("end")) {
            throw ToolFailure("switching between all-day and timed needs both start and end")
        }
        var start = occurrence.start
        var end = occurrence.end
        if fields.has("start") { start = try fields.dateTime("start", zone: plan.zone, allowDate: allDay) }
        if fields.has("end") {
            end = try fields.dateTime("end", zone: plan.zone, allowDate: allDay)
        } else if fields.has("start") {
            // A new start alone moves the session and keeps its length.
            end =
                allDay
                ? start.adding(days: occurrence.start.date.days(until: occurrence.end.date))
                : start.adding(minutes: occurrence.end.minuteNumber - occurrence.start.minuteNumber)
        }
        let moves = start != occurrence.start || end != occurrence.end || allDay != occurrence.allDay
        if moves {
            try TaskRules.validateTimes(start: start, end: end, allDay: allDay)
            try checkPlacementDate(start)
            if let refusal = takenBack.refusal(moving: id, to: start.date) { throw ToolFailure(refusal) }
            try validatePlacement(
                PlacementCandidate(.occurrence(id), start: start, end: end, allDay: allDay), moving: id)
        }

        if id.originalDate != nil {
            if moves {
                plan.move(id, start: start, end: end)
                touched[id] = explanation
            }
        } else {
            var changed = attributes.applied(to: task)
            changed.start = start
            changed.end = end
            changed.allDay = allDay
            if changed != task {
                plan.put(changed)
                touched[id] = explanation
            }
        }
        return idText
    }

    /// A change of a whole series applies from today on (issue 13, item 3): the series ends
    /// before its first session from today that is not completed, and a new series carries
    /// the change from there, so past sessions keep their titles, categories and statistics.
    /// A series with no session before that date is changed in place. Returns the id the
    /// series continues under (the model refers to it from then on); a second update of the
    /// old id in the same conversation goes to the continuation.
    private mutating func updateSeries(
        _ task: StudyTask, idText: String, attributes: Attributes,
        explanation: String
    ) throws -> String {
        if let continued = continuedAs[task.id], let next = plan.tasks[continued] {
            return try updateSeries(next, idText: continued, attributes: attributes, explanation: explanation)
        }
        let changed = attributes.applied(to: task)
        guard changed != task else { return idText }
        var from = plan.splitDate(ofSeries: task.id, from: now.date)
        if let d = from, plan.occurrence(OccurrenceID(taskID: task.id, originalDate: d))?.state == .completed {
            from = plan.splitDate(ofSeries: task.id, from: d.adding(days: 1))
        }
        guard let from else {
            throw ToolFailure(
                "'\(idText)' has no sessions left from today on; its past sessions are history and keep their titles and categories"
            )
        }
        if from <= task.start.date {
            plan.put(changed)
            touched[OccurrenceID(taskID: task.id)] = explanation
            return idText
        }
        let newID = newTaskID()
        guard let continuation = plan.splitSeries(task.id, at: from, newID: newID, now: createdAt) else {
            throw ToolFailure("'\(idText)' could not be changed from \(from) on")
        }
        plan.put(attributes.applied(to: continuation))
        continuedAs[task.id] = newID
        touched[OccurrenceID(taskID: task.id)] = explanation
        touched[OccurrenceID(taskID: newID)] = explanation
        return newID
    }

    // MARK: - deleteTask

    private mutating func delete(_ item: JSONValue, explanation: String) throws -> String {
        var explanation = explanation
        let idText: String
        if let text = item.stringValue {
            idText = text
        } else if item.objectValue != nil {
            let fields = try ToolArguments.object(item)
            try fields.rejectUnknownKeys(["taskId", "reason"])
            idText = try fields.string("taskId")
            explanation = try Self.reason(fields) ?? explanation
        } else {
            throw ToolFailure("expected {\"taskId\", \"reason\"}, got \(item.typeName)")
        }
        let id = try occurrenceID(idText)
        guard let task = plan.tasks[id.taskID] else { throw PlacementError.unknownOccurrence(id) }
        let ownCreation = createdTaskIDs.contains(task.id)
        if task.isSeries && id.originalDate == nil && ownCreation {
            // A series the model created in this conversation: deleting it undoes the creation.
            plan.deleteTask(task.id)
            createdTaskIDs.remove(task.id)
            touched = touched.filter { $0.key.taskID != task.id }
            return idText
        }
        if task.isSeries && id.originalDate == nil {
            throw ToolFailure(
                "'\(idText)' is a repeating series; series are the student's to end. Skip single sessions with \(idText)@YYYY-MM-DD"
            )
        }
        guard let occurrence = plan.occurrence(id) else { throw PlacementError.unknownOccurrence(id) }
        switch occurrence.state {
        case .completed: throw ToolFailure("completed sessions cannot be deleted")
        case .skipped: throw ToolFailure("'\(idText)' is already skipped")
        case .open: break
        }
        if !ownCreation, let refusal = takenBack.refusal(removing: id) { throw ToolFailure(refusal) }
        if !ownCreation {
            guard deletions < maxDeletes else {
                throw ToolFailure(
                    "at most \(maxDeletes) sessions may be deleted or skipped per night; '\(idText)' was kept")
            }
            deletions += 1
        }
        if id.originalDate != nil {
            plan.skip(id)
        } else {
            plan.deleteTask(task.id)
        }
        if ownCreation && id.originalDate == nil {
            createdTaskIDs.remove(task.id)
            touched[id] = nil
        } else {
            touched[id] = explanation
        }
        return idText
    }

    // MARK: - Shared checks

    /// An item's own `reason`, when it gave a non-empty one.
    private static func reason(_ fields: JSONObjectReader) throws -> String? {
        guard let text = try fields.optionalString("reason")?.trimmingWhitespace(), !text.isEmpty else { return nil }
        return String(text.prefix(500))
    }

    /// The rules' verdict on a placement; a refusal for want of room carries the nearest slot
    /// the rules would accept (same length, from the same day on, near the same time of day),
    /// so the model takes it in its next call instead of probing slot by slot.
    ///
    /// A move also keeps its course's order and pace (G2, `CourseOrder`): refused with the
    /// nearest slot that keeps them (from the earliest day the course allows when nothing from
    /// the same day on does). And a slot offered to an earlier item of this call is that item's.
    private func validatePlacement(
        _ candidate: PlacementCandidate, moving id: OccurrenceID? = nil, offerNearest: Bool = true
    ) throws {
        let bounds = id.flatMap { plan.occurrence($0) }.map { order.bounds(of: $0, in: plan) }
        func nearest() -> TimeRange? {
            offerNearest && !candidate.allDay ? nearestSlot(to: candidate, ignoring: id, bounds: bounds) : nil
        }
        do {
            try PlacementValidator(plan: plan, now: now).validate(candidate)
        } catch {
            switch error {
            case .startsInPast, .outsideWindows, .nonexistentTime, .overlaps:
                throw ToolFailure(error.description, nearest: nearest())
            default:
                throw error
            }
        }
        if let bounds, let error = bounds.error(for: candidate.start.date) {
            throw ToolFailure(error.description, nearest: nearest())
        }
        if !candidate.allDay,
            let taken = offered.first(where: { candidate.start < $0.range.end && $0.range.start < candidate.end })
        {
            throw ToolFailure(
                "overlaps \(taken.range.start.time)–\(taken.range.end.time) on \(taken.range.start.date), the slot offered to '\(taken.forItem)' earlier in this call",
                nearest: nearest())
        }
    }

    /// The nearest slot for `candidate` the rules accept: free of busy sessions and of slots
    /// offered earlier in this call, inside `bounds` when the session belongs to a course.
    func nearestSlot(to candidate: PlacementCandidate, ignoring id: OccurrenceID?, bounds: CourseOrder.Bounds? = nil)
        -> TimeRange?
    {
        let length = candidate.end.minuteNumber - candidate.start.minuteNumber
        let earliest = max(now.date, bounds?.from ?? now.date)
        guard length > 0, earliest <= lastPlacementDate else { return nil }
        var busy = BusyIndex(plan.occurrences(from: earliest.adding(days: -1), through: lastPlacementDate))
        for (n, slot) in offered.enumerated() {
            busy.insert(
                Occurrence(
                    id: OccurrenceID(taskID: "offered-\(n)"), title: slot.forItem, category: "",
                    start: slot.range.start, end: slot.range.end))
        }
        func search(from: CivilDate) -> TimeRange? {
            guard from <= lastPlacementDate else { return nil }
            var finder = SlotFinder(settings: plan.settings, now: now, zone: plan.zone)
            finder.horizonDays = from.days(until: lastPlacementDate)
            return finder.slot(
                length: length, preferredTime: candidate.start.time, from: from, busy: busy,
                ignoring: id.map { [$0] } ?? [], allowed: { bounds?.allows($0) ?? true })
        }
        let sameDayOn = max(candidate.start.date, earliest)
        if let slot = search(from: sameDayOn) { return slot }
        // A move too late for its course finds nothing from its own day on; the course's
        // earliest allowed day is then the nearest there is.
        return bounds != nil && earliest < sameDayOn ? search(from: earliest) : nil
    }

    private func occurrenceID(_ text: String) throws -> OccurrenceID {
        guard let id = OccurrenceID(text) else {
            throw ToolFailure("'\(text)' is not a session id from the plan (ID, or ID@YYYY-MM-DD for a series)")
        }
        return id
    }

    private func checkPlacementDate(_ start: CivilDateTime) throws {
        if start.date > lastPlacementDate {
            throw ToolFailure("starts after the plan you were shown: sessions can be placed up to \(lastPlacementDate)")
        }
    }

    /// The optional `color` field: one of the four names.
    fileprivate static func color(_ fields: JSONObjectReader) throws -> TaskColor? {
        guard let name = try fields.optionalString("color") else { return nil }
        guard let color = TaskColor(rawValue: name.lowercased()) else {
            throw DataError(path: "color", message: "'\(name)' is not one of red, yellow, green, blue")
        }
        return color
    }
}
