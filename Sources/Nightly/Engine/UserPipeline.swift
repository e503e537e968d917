import Assistant
import Foundation
import JSON
import Planning
import Store

/// The per-user pipeline: load → classify and postpone → [model] → validate → changeset.
/// Prepares only; `NightlyCommit` writes. `preview` runs exactly this and writes nothing.
package struct UserPipeline: Sendable {
    /// What to do with a user whose model stage failed.
    package enum ModelErrorPolicy: String, Sendable {
        /// Commit the local rules' edits anyway (the default, docs/model.md §7).
        case local
        /// Commit nothing; the user is retried by the next run.
        case skip
    }

    package var reviewer: ModelReviewer?
    package var onModelError: ModelErrorPolicy
    /// Set when the model's quota ran out earlier in this run: no more model calls.
    package var modelDisabledReason: @Sendable () -> String?
    /// Who is asked (docs/model.md §1).
    package var policy = ModelCallPolicy()
    /// Turns token counts into the estimated cost stored per student and per run.
    package var prices = ModelPrices.gpt51
    /// Who is asked first when the rate limit cannot reach everyone before the deadline (nil:
    /// everyone who wants the model is asked, in the order they come).
    package var admission: ModelAdmission?

    package init(
        reviewer: ModelReviewer?, onModelError: ModelErrorPolicy = .local,
        modelDisabledReason: @escaping @Sendable () -> String? = { nil }
    ) {
        self.reviewer = reviewer
        self.onModelError = onModelError
        self.modelDisabledReason = modelDisabledReason
    }

    /// Prepares one user's night at `now` from the database `db` (read-only).
    package func prepare(userID: String, db: any SQLExecutor, now: Date) throws(StoreError) -> (
        night: UserNight, review: ModelReview?
    ) {
        try prepare(user: UserRepository(db).get(userID), db: db, now: now)
    }

    /// Prepares the night of a user already read from `db` (the nightly job streams users).
    package func prepare(user: User, db: any SQLExecutor, now: Date) throws(StoreError) -> (
        night: UserNight, review: ModelReview?
    ) {
        let started = Date()
        let window = UserPipeline.window(of: user, now: now)
        // The plan the nightly run would read (`NightRead`), so a preview shows what the run does.
        let read = try NightRead.read(user: user, window: window, db: db)
        var (night, review) = prepare(
            original: read.plan, now: now, started: started, memory: read.memory, loaded: window,
            takenBack: read.takenBack)
        night.windowStart = window.lowerBound
        return (night, review)
    }

    /// How many of a student's newest changesets are searched for undone model edits.
    static let takenBackSearch = 20

    /// The model's edits of the student's undone nightly changesets made under the instruction
    /// they have now (docs/model.md §14): an undo is a rejection until the instruction changes.
    /// Students without an instruction have nothing to carry out, so nothing is read for them.
    static func takenBack(of user: User, db: any SQLExecutor) throws(StoreError) -> TakenBack {
        let instruction = user.settings.instruction.trimmingWhitespace()
        guard !instruction.isEmpty else { return TakenBack(edits: []) }
        let digest = ModelCallPolicy.instructionDigest(instruction)
        let store = ChangesetStore(db)
        var edits: [PlanEdit] = []
        var series: [StudyTask] = []
        for header in try store.changesets(userID: user.id, limit: takenBackSearch)
        where header.state == .undone && header.origin == .nightly {
            let record = try store.changeset(header.id)
            guard record.report["instructionDigest"]?.stringValue == digest else { continue }
            edits += (record.report["edits"]?.arrayValue ?? []).compactMap(EditReport.edit(from:))
            // The series the model created, from their rows: the edits list a series once.
            for e in record.edits
            where e.entity == .task && e.before == nil && e.reason == PlanEdit.Reason.model.rawValue {
                if let after = e.after, let task = try? RowImage.task(from: after), task.isSeries {
                    series.append(task)
                }
            }
        }
        return TakenBack(edits: edits, series: series)
    }

    /// The dates a user's night loads (`PlanningRange`, in the user's own zone at `now`).
    static func window(of user: User, now: Date) -> ClosedRange<CivilDate> {
        let range = PlanningRange(today: user.zone.civil(now).date, settings: user.settings)
        return range.lookback...range.through
    }

    /// The pure part, on a loaded plan.
    ///
    /// - Parameters:
    ///   - memory: what the model last reviewed for this student (nil: nothing yet).
    ///   - loaded: the dates `original` was loaded for, to tell whether the remembered plan
    ///     dates can be compared (nil: the caller loaded the whole plan).
    ///   - takenBack: the model's edits the student undid (docs/model.md §14).
    package func prepare(
        original: UserPlan, now: Date, started: Date = Date(), memory: ModelMemory? = nil,
        loaded: ClosedRange<CivilDate>? = nil, takenBack: TakenBack = TakenBack(edits: [])
    ) -> (night: UserNight, review: ModelReview?) {
        let local = Postponer(now: now).postpone(original)
        let localNow = local.now
        let planDate = original.zone.civil(now).date
        var working = local.plan
        var reasons: [OccurrenceID: PlanEdit.Reason] = [:]
        var details: [OccurrenceID: String] = [:]
        // The rules' own details travel with their edits ("split into 3 sessions", "placed once
        // other moves made room"): the changeset says what the rules did and why.
        for e in local.edits {
            reasons[e.id] = e.reason
            if !e.detail.isEmpty { details[e.id] = e.detail }
        }
        var model = ModelSummary()
        var transcript: JSONValue = []
        var review: ModelReview?
        var status: UserNight.Status?
        var error: String?

        // The plan as the student left it, on the dates the last night remembered: compared
        // before tonight's rules run, so their moves do not count as a change.
        // Only a change of what the instruction covers, or of the model's own sessions, counts
        // (`ModelPlanDigest`, docs/model.md §15).
        var planChanged: Bool?
        var planChange: PlanChange?
        let remembered = memory.map { ModelPlanDigest(parsing: $0.planDigest) }
        if let memory, let remembered,
            loaded.map({ $0.lowerBound <= memory.planFrom && memory.planThrough <= $0.upperBound }) ?? true
        {
            // Most nights the student changed nothing: the whole plan's digest says so, and the
            // per-category digests (most of the cost) are made only when it differs.
            if ModelCallPolicy.planDigest(original, from: memory.planFrom, through: memory.planThrough)
                == remembered.whole
            {
                planChanged = false
            } else if let change = PlanChange.between(
                remembered, tonight: original, from: memory.planFrom, through: memory.planThrough,
                instruction: original.settings.instruction, takenBack: takenBack)
            {
                // The sessions the memory kept tell what changed, and only a change of a place,
                // a title or a session's existence is a reason: a note edit gives the model
                // nothing to do (docs/model.md §15).
                planChange = change
                planChanged = !change.isEmpty
            } else {
                let tonight = ModelPlanDigest.make(
                    original, from: memory.planFrom, through: memory.planThrough, instruction: "",
                    modelSessions: [], covered: [])
                planChanged = remembered.asks(tonight: original, digest: tonight)
            }
        }
        // The instruction's goal, checked on the plan the rules left (docs/model.md §17).
        var goals = NightGoals(original: original, memory: memory, planDate: planDate)
        let goalCheck = goals.check(local.plan, now: localNow)
        // A flag asks only when the model has an option the rules lack (`FlagRoom`); the others
        // are the student's, and the morning note tells them (docs/model.md §1).
        let placeable = localNow.date.adding(days: original.settings.horizonDays)
        let askingFlags = local.flags.filter { flag in
            guard flag.kind == .couldNotFit else { return true }
            guard let session = local.plan.occurrence(flag.id) else { return false }
            return FlagRoom.shortened(for: session, in: local.plan, now: localNow, through: placeable) != nil
        }
        let decision = policy.decide(
            userID: original.user.id, settings: original.settings, language: original.user.language,
            zone: original.zone.identifier, flags: askingFlags, memory: memory, planDate: planDate,
            planChanged: planChanged, goalCheck: goalCheck)
        model.decision = decision
        var reviewed = false
        var modelTouched: Set<OccurrenceID> = []
        if reviewer != nil { admission?.saw(wants: decision.ask) }
        if decision.ask, let reviewer {
            if let reason = modelDisabledReason() {
                model = ModelSummary(called: false, error: reason)
                model.decision = decision
                if onModelError == .skip {
                    status = .skipped
                    error = "model unavailable: \(reason)"
                }
            } else if let admission,
                !admission.admit(
                    urgent: Self.isUrgent(original, flags: askingFlags, memory: memory, planDate: planDate)
                        || goals.isUrgent(goalCheck, memory: memory))
            {
                // Not reached tonight, like the students after a deadline: local edits only, and
                // the policy asks again next night, since nothing was reviewed.
                model = ModelSummary(called: false, error: ModelAdmission.notReached)
                model.decision = decision
                if onModelError == .skip {
                    status = .skipped
                    error = "model unavailable: \(ModelAdmission.notReached)"
                }
            } else {
                // A plan-changed request says what changed (docs/model.md §15).
                let diff = decision.reason == "plan-changed" ? planChange : nil
                let why = diff?.why(decision.why) ?? decision.why
                let r = reviewer.review(
                    working, local: local, now: now, why: why, takenBack: takenBack,
                    goal: goals.brief(check: goalCheck), reaching: diff?.dates ?? [])
                review = r
                transcript = r.transcript
                model = ModelSummary(
                    called: true, requests: r.requests, turns: r.turns, tokens: r.usage,
                    ending: r.ending.rawValue, error: r.error, summary: r.summary)
                model.decision = decision
                model.finishReasons = r.finishReasons
                model.endStatus = r.endStatus
                model.question = r.question
                model.costUSD = prices.cost(
                    prompt: r.usage.prompt, cached: r.usage.cached, completion: r.usage.completion)
                // Only a conversation the model closed handled the instruction; a text
                // answer, a turn-limit stop or a cut one is asked again (docs/model.md §13).
                reviewed = r.handled
                if r.failed {
                    if onModelError == .skip {
                        status = .skipped
                        error = "model failed: \(r.error ?? r.ending.rawValue)"
                    }
                } else {
                    working = r.plan
                    goals.stated(r.goal, reviewAgainOn: r.reviewAgainOn)
                    modelTouched = Set(r.touched.keys)
                    for (id, detail) in r.touched {
                        reasons[id] = .model
                        details[id] = detail
                    }
                }
            }
        }

        let window = PlanWindowDates(planDate: planDate, settings: original.settings)
        var report: [String: JSONValue] = [
            "flags": .array(local.flags.map { EditReport.flag($0, start: original.occurrence($0.id)?.start) }),
            "summary": EditReport.summary(local.summary),
            "model": model.json,
            "now": .string(localNow.description),
        ]
        if let e = error { report["error"] = .string(e) }
        // The instruction the model worked under: an undo of this changeset rejects its edits
        // for as long as the instruction stays the same (docs/model.md §14).
        let instruction = original.settings.instruction.trimmingWhitespace()
        if model.called, !instruction.isEmpty {
            report["instructionDigest"] = .string(ModelCallPolicy.instructionDigest(instruction))
        }
        var prepared: PlanCommitter.Prepared?
        if status == nil {
            prepared = PlanCommitter().prepare(
                original: original, working: working, origin: .nightly, planDate: planDate, now: now, reasons: reasons,
                details: details, defaultReason: .model, through: window.through, summary: nil,
                report: report)
            status = prepared == nil ? .unchanged : .changed
        }
        // The goal on the plan the night leaves: for the memory, and for the note when it falls short.
        let goalAfter = goals.after(
            prepared == nil ? original : working, now: localNow, asked: model.called && review?.failed == false)
        // What the night lists is what it counts (G5): the local rules' edits as the changeset
        // finally reads them, the model's among them under its own reason.
        let summary = prepared.map { PlanSummary(edits: $0.edits) } ?? PlanSummary()
        // The morning note goes with the changeset into the outbox (docs/outbox.md). A night
        // that changed nothing but needs the student (a flag, the model's question) has a note
        // too: its run keeps the report the note is rendered from, and its outbox row goes
        // with no changeset (there is no night to take back, so the note offers none).
        var noteFellBack: String?
        var noteReport: JSONValue?
        var noteWithoutChangeset: OutboxEntry?
        if status == .changed || status == .unchanged {
            var starts: [OccurrenceID: CivilDateTime] = [:]
            for f in local.flags { starts[f.id] = original.occurrence(f.id)?.start }
            var facts = MorningNote.Night(
                edits: prepared?.edits ?? [], flags: local.flags, summary: summary, planDate: planDate,
                deleteAfterDays: original.settings.deleteAfterDays,
                changesetID: prepared == nil ? nil : OutboxEntry.Note.changesetMark,
                flagStarts: starts, modelSummary: model.summary, modelQuestion: model.question)
            if let goal = goalAfter.stated?.goal, let check = goalAfter.check { facts.goalCheck = (goal, check) }
            if prepared == nil && !facts.isQuiet { noteReport = .object(report) }
            if original.settings.notificationsEnabled,
                let note = MorningNote.render(facts, language: original.user.language)
            {
                let entry = OutboxEntry(
                    note: OutboxEntry.Note(title: note.title, body: note.body),
                    fireAt: NightNote.deliveryTime(
                        planDate: planDate, settings: original.settings, zone: original.zone, now: now))
                if var p = prepared {
                    p.changeset.outbox.append(entry)
                    prepared = p
                } else {
                    noteWithoutChangeset = entry
                }
                if note.fellBack { noteFellBack = original.user.language }
            }
        }
        var night = UserNight(
            userID: original.user.id, planDate: planDate, localNow: localNow, status: status!, prepared: prepared,
            flags: local.flags, summary: summary, model: model, transcript: transcript, error: error,
            durationMilliseconds: Int(Date().timeIntervalSince(started) * 1000))
        night.plans = (original, prepared == nil ? original : working)
        night.staleLeft = local.staleLeft
        night.noteFellBack = noteFellBack
        night.noteReport = noteReport
        night.noteWithoutChangeset = noteWithoutChangeset
        night.memoryUpdate = memoryUpdate(
            original: original, after: prepared == nil ? original : working, status: status!,
            memory: memory, planDate: planDate, reviewed: reviewed, flags: local.flags,
            modelTouched: prepared == nil ? [] : modelTouched,
            goal: goalAfter)
        return (night, review)
    }

    /// Whether a student goes first when the night cannot ask everyone (`ModelAdmission`): a new
    /// or changed instruction, or a flag not shown to the model yet on a session of today or
    /// tomorrow.
    static func isUrgent(_ plan: UserPlan, flags: [PlanFlag], memory: ModelMemory?, planDate: CivilDate) -> Bool {
        let instruction = plan.settings.instruction.trimmingWhitespace()
        if !instruction.isEmpty, memory?.instructionDigest != ModelCallPolicy.instructionDigest(instruction) {
            return true
        }
        // A flag the model was shown before is no news; one on a session of today or tomorrow
        // cannot wait for the next night.
        let seen = memory?.reviewedFlags ?? []
        let tomorrow = planDate.adding(days: 1)
        return flags.contains { flag in
            !seen.contains(ModelCallPolicy.flagKey(flag))
                && (plan.occurrence(flag.id).map { $0.start.date <= tomorrow } ?? false)
        }
    }

    /// What to remember once the night commits: only for students with an instruction or a
    /// flag (the only ones the memory decides for). The plan digest is refreshed every
    /// committed night, so the next night sees only the student's own changes; the
    /// instruction, settings, flags shown and review date only when the model reviewed
    /// successfully, so a failed review is retried.
    func memoryUpdate(
        original: UserPlan, after: UserPlan, status: UserNight.Status, memory: ModelMemory?,
        planDate: CivilDate, reviewed: Bool, flags: [PlanFlag], modelTouched: Set<OccurrenceID> = [],
        goal: NightGoals.After? = nil
    ) -> UserNight.MemoryUpdate? {
        guard status == .changed || status == .unchanged else { return nil }
        let instruction = original.settings.instruction.trimmingWhitespace()
        if instruction.isEmpty && flags.isEmpty { return memory == nil ? nil : .delete }
        let through = planDate.adding(days: original.settings.horizonDays)
        var next =
            memory
            ?? ModelMemory(
                instructionDigest: nil, settingsDigest: nil, reviewedOn: nil, planFrom: planDate,
                planThrough: through, planDigest: "")
        next.planFrom = planDate
        next.planThrough = through
        // What the instruction covers carries over until the instruction changes; the model's
        // sessions stay the model's.
        let remembered = memory.map { ModelPlanDigest(parsing: $0.planDigest) }
        let sameInstruction =
            memory?.instructionDigest == (instruction.isEmpty ? nil : ModelCallPolicy.instructionDigest(instruction))
        next.planDigest =
            ModelPlanDigest.make(
                after, from: planDate, through: through, instruction: instruction,
                modelSessions: (remembered?.modelSessions ?? []).union(modelTouched),
                covered: sameInstruction ? remembered?.covered ?? [] : []
            ).text
        if reviewed {
            next.instructionDigest = instruction.isEmpty ? nil : ModelCallPolicy.instructionDigest(instruction)
            next.settingsDigest = ModelCallPolicy.settingsDigest(
                original.settings, language: original.user.language,
                zone: original.zone.identifier)
            next.reviewedOn = planDate
            next.reviewedFlags = Set(flags.map(ModelCallPolicy.flagKey))
        }
        if let goal {
            next.goal = goal.stated
            next.goalUnmended = goal.unmended
        }
        return next == memory ? nil : .store(next)
    }
}

/// The dates whose occurrences a night reports: today − deleteAfterDays … today + horizonDays.
struct PlanWindowDates {
    let from: CivilDate
    let through: CivilDate

    init(planDate: CivilDate, settings: UserSettings) {
        from = planDate.adding(days: -settings.deleteAfterDays)
        through = planDate.adding(days: 2 * settings.horizonDays)
    }
}
