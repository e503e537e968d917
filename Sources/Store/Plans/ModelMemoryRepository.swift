import JSON
import Planning

/// What the model last reviewed for one student (docs/model.md §1):
/// digests of the instruction and settings it handled, the date of that review, and a digest
/// of the plan inside the horizon as the student's last night left it, so the next night can
/// tell whether the student changed their plan since.
package struct ModelMemory: Hashable, Sendable {
    /// The instruction and settings the model last handled; nil until it handled any.
    package var instructionDigest: String?
    package var settingsDigest: String?
    /// The plan date of the model's last successful review.
    package var reviewedOn: CivilDate?
    /// The dates `planDigest` covers, and the digest of the plan on them as last committed.
    package var planFrom: CivilDate
    package var planThrough: CivilDate
    package var planDigest: String
    /// The flags (`id|kind`) the model was shown at its last successful review: a flag the
    /// rules raise again night after night (a session that fits nowhere until it turns stale,
    /// a kept category waiting for the student) is not a reason to ask again.
    package var reviewedFlags: Set<String>
    /// The goal the instruction compiles into (docs/model.md §17), whoever stated it; stale
    /// once the instruction changes (`StatedGoal.belongs(to:)`).
    package var goal: StatedGoal?
    /// The shortfalls and violations (`GoalCheck` keys) the model was last asked about and left
    /// as they were: not asked about again until something changes.
    package var goalUnmended: Set<String> = []

    package init(
        instructionDigest: String?, settingsDigest: String?, reviewedOn: CivilDate?, planFrom: CivilDate,
        planThrough: CivilDate, planDigest: String, reviewedFlags: Set<String> = [], goal: StatedGoal? = nil,
        goalUnmended: Set<String> = []
    ) {
        self.instructionDigest = instructionDigest
        self.settingsDigest = settingsDigest
        self.reviewedOn = reviewedOn
        self.planFrom = planFrom
        self.planThrough = planThrough
        self.planDigest = planDigest
        self.reviewedFlags = reviewedFlags
        self.goal = goal
        self.goalUnmended = goalUnmended
    }
}

/// Reads and writes `model_memory`, one row per student.
package struct ModelMemoryRepository {
    let db: any SQLExecutor

    package init(_ db: any SQLExecutor) { self.db = db }

    /// The student's memory; nil when there is none or its row is unreadable (the worst a bad
    /// row does is one extra review).
    package func memory(userID: String) throws(StoreError) -> ModelMemory? {
        try db.queryFirst(Self.memorySQL, [.text(userID)]) { Self.decodeMemory($0) } ?? nil
    }

    /// The query `memory(userID:)` runs (one `?`, the user id), for a caller that reads it in
    /// a batch with others (`SQLExecutor.queryEach`), and how its row decodes.
    package static let memorySQL = """
        SELECT instruction_digest, settings_digest, reviewed_on, plan_from, plan_through, plan_digest, reviewed_flags,
            goal, goal_unmended
        FROM model_memory WHERE user_id = ?
        """

    package static func decodeMemory(_ s: any SQLRow) -> ModelMemory? {
        guard let from = CivilDate(s.text(3)), let through = CivilDate(s.text(4)) else { return nil }
        return ModelMemory(
            instructionDigest: s.optionalText(0), settingsDigest: s.optionalText(1),
            reviewedOn: s.optionalText(2).flatMap { CivilDate($0) }, planFrom: from, planThrough: through,
            planDigest: s.text(5),
            reviewedFlags: Set(s.text(6).split(separator: "\n").map(String.init)),
            // An unreadable goal is no goal: the model is asked to state one again.
            goal: s.optionalText(7).flatMap { text in
                (try? JSONValue(parsing: text)).flatMap { try? StatedGoal(json: $0) }
            },
            goalUnmended: Set(s.text(8).split(separator: "\n").map(String.init)))
    }

    package func store(userID: String, _ m: ModelMemory) throws(StoreError) {
        try db.write { (db) throws(StoreError) in
            try db.send(
                """
                INSERT INTO model_memory (user_id, instruction_digest, settings_digest, reviewed_on, plan_from, plan_through, plan_digest,
                    reviewed_flags, goal, goal_unmended)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (user_id) DO UPDATE SET instruction_digest = excluded.instruction_digest,
                    settings_digest = excluded.settings_digest, reviewed_on = excluded.reviewed_on,
                    plan_from = excluded.plan_from, plan_through = excluded.plan_through, plan_digest = excluded.plan_digest,
                    reviewed_flags = excluded.reviewed_flags, goal = excluded.goal, goal_unmended = excluded.goal_unmended
                """,
                [
                    .text(userID), SQLValue(m.instructionDigest), SQLValue(m.settingsDigest),
                    SQLValue(m.reviewedOn?.description), .text(m.planFrom.description),
                    .text(m.planThrough.description),
                    .text(m.planDigest), .text(m.reviewedFlags.sorted().joined(separator: "\n")),
                    SQLValue(m.goal.map { $0.json.text }), .text(m.goalUnmended.sorted().joined(separator: "\n")),
                ])
        }
    }

    package func delete(userID: String) throws(StoreError) {
        try db.write { (db) throws(StoreError) in
            try db.send("DELETE FROM model_memory WHERE user_id = ?", [.text(userID)])
        }
    }
}
