import Foundation
import Planning
import Store

/// The per-user pipeline: load → classify and postpone → [model] → validate → changeset.
/// Prepares only; `NightlyCommit` writes. `preview` runs exactly this and writes nothing.
public struct UserPipeline: Sendable {
    /// What to do with a user whose model stage failed.
    public enum ModelErrorPolicy: String, Sendable {
        /// Commit the local rules' edits anyway (the default of assistant.md).
        case local
        /// Commit nothing; the user is retried by the next run.
        case skip
    }

    public var reviewer: ModelReviewer?
    public var onModelError: ModelErrorPolicy
    /// Set when the model's quota ran out earlier in this run: no more model calls.
    public var modelDisabledReason: @Sendable () -> String?

    public init(reviewer: ModelReviewer?, onModelError: ModelErrorPolicy = .local,
                modelDisabledReason: @escaping @Sendable () -> String? = { nil }) {
        self.reviewer = reviewer; self.onModelError = onModelError; self.modelDisabledReason = modelDisabledReason
    }

    /// Prepares one user's night at `now` from the database `db` (read-only).
    public func prepare(userID: String, db: Database, now: Date) throws(StoreError) -> (night: UserNight, review: ModelReview?) {
        try prepare(user: UserRepository(db).get(userID), db: db, now: now)
    }

    /// Prepares the night of a user already read from `db` (the nightly job streams users).
    public func prepare(user: User, db: Database, now: Date) throws(StoreError) -> (night: UserNight, review: ModelReview?) {
        let started = Date()
        let window = UserPipeline.window(of: user, now: now)
        // The plan the nightly run would read (`NightRead`), so a preview shows what the run does.
        let original = try NightRead.read(user: user, window: window, db: db).plan
        var (night, review) = prepare(original: original, now: now, started: started)
        night.windowStart = window.lowerBound
        return (night, review)
    }

    /// The dates a user's night loads (`PlanningRange`, in the user's own zone at `now`).
    static func window(of user: User, now: Date) -> ClosedRange<CivilDate> {
        let range = PlanningRange(today: user.zone.civil(now).date, settings: user.settings)
        return range.lookback...range.through
    }

    /// The pure part, on a loaded plan.
    public func prepare(original: UserPlan, now: Date, started: Date = Date()) -> (night: UserNight, review: ModelReview?) {
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

        let wantsModel = local.hasEdits || !local.flags.isEmpty || !original.settings.instruction.trimmingWhitespace().isEmpty
        if wantsModel, let reviewer {
            if let reason = modelDisabledReason() {
                model = ModelSummary(called: false, error: reason)
                if onModelError == .skip { status = .skipped; error = "model unavailable: \(reason)" }
            } else {
                let r = reviewer.review(working, local: local, now: now)
                review = r
                transcript = r.transcript
                model = ModelSummary(called: true, requests: r.requests, turns: r.turns, tokens: r.usage,
                                     ending: r.ending.rawValue, error: r.error, summary: r.summary)
                if r.failed {
                    if onModelError == .skip { status = .skipped; error = "model failed: \(r.error ?? r.ending.rawValue)" }
                } else {
                    working = r.plan
                    for (id, detail) in r.touched {
                        reasons[id] = .model
                        details[id] = detail
                    }
                }
            }
        }

        let window = PlanWindowDates(planDate: planDate, settings: original.settings)
        var report: [String: JSONValue] = [
            "flags": .array(local.flags.map(EditReport.flag)),
            "summary": EditReport.summary(local.summary),
            "model": model.json,
            "now": .string(localNow.description),
        ]
        if let e = error { report["error"] = .string(e) }
        var prepared: PlanCommitter.Prepared?
        if status == nil {
            prepared = PlanCommitter().prepare(
                original: original, working: working, origin: .nightly, planDate: planDate, now: now, reasons: reasons,
                details: details, defaultReason: .model, through: window.through, summary: nil,
                report: report)
            status = prepared == nil ? .unchanged : .changed
        }
        // What the night lists is what it counts (G5): the local rules' edits as the changeset
        // finally reads them, the model's among them under its own reason.
        let summary = prepared.map { PlanSummary(edits: $0.edits) } ?? PlanSummary()
        var night = UserNight(userID: original.user.id, planDate: planDate, localNow: localNow, status: status!, prepared: prepared,
                              flags: local.flags, summary: summary, model: model, transcript: transcript, error: error,
                              durationMilliseconds: Int(Date().timeIntervalSince(started) * 1000))
        night.plans = (original, prepared == nil ? original : working)
        return (night, review)
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
