import Foundation
import JSON
import Planning

/// Commits, undoes and redoes changesets, each in one `BEGIN IMMEDIATE` transaction, and
/// answers the `log` / `show` queries about them.
///
/// Every write is checked against the rows as they are at that moment, under the write lock:
/// a commit expects each touched row to still have its `before` version (or to be absent),
/// an undo expects the `after` versions, a redo the `before` versions again. Any difference
/// throws `ChangesetConflict` listing every such row, and nothing is written; so a student's
/// own edit made meanwhile is never silently overwritten. Versions never repeat with other
/// content (`VersionClock`), so an equal version means an unchanged row.
package struct ChangesetStore {
    let db: any SQLExecutor

    package init(_ db: any SQLExecutor) { self.db = db }

    // MARK: Commit

    /// Applies a changeset and records it (state `applied`) with its edits and outbox rows.
    ///
    /// Besides `changes`, the stored edits include: every override and slide still stored
    /// for a deleted task but missing from `changes` (they go with the task; recording them
    /// lets undo bring them back), and a `statistic` row for each category of a written task
    /// that has none yet (undo removes it again).
    ///
    /// - Throws: `.conflict` (nothing written), `.unknownUser`, `.foreignRow` for a row of
    ///   another user, `.malformedRow` for an image that does not decode.
    ///
    /// - Parameter base: a statistics base counted over the plan as this changeset leaves it,
    ///   stored in place of the changeset's own `invalidate` (one statement instead of two, the
    ///   same row: see `StatisticsBaseRepository.store`).
    @discardableResult
    package func commit(_ changeset: NewChangeset, thenStoring base: StatisticsBaseRepository.Counted? = nil)
        throws(StoreError) -> ChangesetID
    {
        try db.write { (db) throws(StoreError) -> ChangesetID in
            if let edit = changeset.profileEdit {
                guard edit.entity == .user, edit.key == changeset.userID, edit.after != nil else {
                    throw StoreError.malformedRow(
                        entity: edit.entity.rawValue, key: edit.key,
                        problem: "not a user edit of the changeset's user that leaves the user in place")
                }
            }
            // The version clock, the new id's check and (without a profile edit) the student's
            // existence go out with the read ahead: one round trip on PostgreSQL instead of
            // four. The clock moves on even if a check below refuses the changeset; a version
            // is never handed out twice, gaps are allowed (`VersionClock`).
            let candidate = ChangesetID.generate(at: changeset.createdAt, suffix: ChangesetIDSuffixes.shared.take())
            var also: [(sql: String, values: [SQLValue])] = [
                (VersionClock.nextSQL(db.engine), []), (Self.idTakenSQL, [.text(candidate.rawValue)]),
            ]
            if changeset.profileEdit == nil { also.append((UserRepository.existsSQL, [.text(changeset.userID)])) }
            let applier = ChangesetApplier(db: db, userID: changeset.userID, now: changeset.createdAt)
            let answers = try applier.readAhead(changeset.changes.map { ChangesetEdit(seq: 0, $0) }, also: also)
            if changeset.profileEdit == nil && answers[2].isEmpty { throw StoreError.unknownUser(changeset.userID) }

            var listed = Set<String>()
            for change in changeset.changes {
                let entity = EditEntity(change.entity)
                guard listed.insert(ChangesetApplier.identity(entity, change.key)).inserted else {
                    throw StoreError.malformedRow(
                        entity: entity.rawValue, key: change.key, problem: "appears twice in one changeset")
                }
            }
            // The student first: every other row hangs off them, and undo (in reverse) removes
            // a student the changeset created last.
            var steps: [ChangesetEdit] = changeset.profileEdit.map { [$0] } ?? []
            // The images' JSON text of each step, where `renderText()` wrote it ahead: appended
            // with its step, so `stepText[i]` is the text of `steps[i]`.
            var stepText: [NewChangeset.ImageText?] = steps.map { _ in nil }
            for (change, text) in changeset.changesToStore {
                if change.entity == .task, change.before != nil, change.after == nil {
                    for child in try applier.storedChildren(ofTask: change.key)
                    where !listed.contains(ChangesetApplier.identity(child.entity, child.key)) {
                        steps.append(
                            ChangesetEdit(
                                seq: 0, entity: child.entity, key: child.key, before: child.image,
                                after: nil, reason: change.reason))
                        stepText.append(nil)
                    }
                }
                steps.append(ChangesetEdit(seq: 0, change))
                stepText.append(text)
            }
            for edit in changeset.focusEdits {
                guard edit.entity == .focus, listed.insert(ChangesetApplier.identity(.focus, edit.key)).inserted else {
                    throw StoreError.malformedRow(
                        entity: edit.entity.rawValue, key: edit.key, problem: "not a focus edit, or appears twice")
                }
                steps.append(edit)
                stepText.append(nil)
            }

            let conflicts = try applier.conflicts(of: steps)
            guard conflicts.isEmpty else {
                throw StoreError.conflict(ChangesetConflict(changesetID: nil, rows: conflicts))
            }

            // Statistic rows first (after the student): they hang off the user only, and undo
            // (which runs in reverse) then removes them last, after the tasks that kept them
            // alive are gone.
            let statisticEdits = try applier.statisticEdits(for: steps)
            let profile = steps.prefix { $0.entity == .user }.count
            var edits = Array(steps.prefix(profile)) + statisticEdits + steps.dropFirst(profile)
            var editText =
                Array(stepText.prefix(profile)) + Array(repeating: nil, count: statisticEdits.count)
                + stepText.dropFirst(profile)
            for i in edits.indices { edits[i].seq = i + 1 }
            // Every row this changeset writes gets one fresh version (see `VersionClock`),
            // whatever version the caller computed for its after image.
            let fresh = try VersionClock.value(of: answers[0])
            for i in edits.indices where edits[i].entity.rowEntity != nil {
                guard let stamped = VersionClock.stamp(edits[i].after, fresh) else { continue }
                edits[i].after = stamped
                if let afterText = editText[i]?.after {
                    editText[i]?.after = VersionClock.stamp(text: afterText, fresh) ?? stamped.text
                }
            }
            let earliest = try earliestAffectedDate(of: edits, tasks: applier.tasks)
            // No conflicts: a row with a before image is stored, one without is not.
            try applier.applyAll(edits)
            if let base {
                try StatisticsBaseRepository(db).store(
                    userID: changeset.userID, through: base.through, counts: base.counts, raise: 2)
            } else {
                try StatisticsBaseRepository(db).invalidate(userID: changeset.userID, earliest: earliest)
            }

            let id = answers[1].isEmpty ? candidate : try newID(at: changeset.createdAt)
            try db.send(
                """
                INSERT INTO changesets (id, user_id, created_at, origin, plan_date, state, summary, report)
                VALUES (?, ?, ?, ?, ?, 'applied', ?, ?)
                """,
                [
                    .text(id.rawValue), .text(changeset.userID), .text(Timestamp.text(changeset.createdAt)),
                    .text(changeset.origin.rawValue), SQLValue(changeset.planDate?.description),
                    .text(changeset.summaryText), .text(changeset.reportText),
                ])
            try db.sendRows(
                "INSERT INTO changeset_edits (changeset_id, seq, entity, entity_key, before, after, reason)",
                zip(edits, editText).map { edit, written in
                    [
                        .text(id.rawValue), .integer(edit.seq), .text(edit.entity.rawValue), .text(edit.key),
                        SQLValue(written.map(\.before) ?? edit.before?.text),
                        SQLValue(written.map(\.after) ?? edit.after?.text),
                        .text(edit.reason),
                    ]
                })
            try OutboxRepository(db).insert(
                changeset.outbox, userID: changeset.userID, changesetID: id, createdAt: changeset.createdAt)
            return id
        }
    }

    /// A fresh id; the next suffix while taken (another process counting from a random start
    /// in the same second makes that rare).
    private func newID(at date: Date) throws(StoreError) -> ChangesetID {
        while true {
            let id = ChangesetID.generate(at: date, suffix: ChangesetIDSuffixes.shared.take())
            let taken = try db.queryFirst(Self.idTakenSQL, [.text(id.rawValue)]) { _ in true } ?? false
            if !taken { return id }
        }
    }

    /// One row (1) when a changeset has the id.
    private static let idTakenSQL = "SELECT 1 FROM changesets WHERE id = ?"

    // MARK: Undo and redo

    /// Reverts an applied changeset: checks that every touched row still has the version the
    /// changeset left (absent rows too), then restores the before images in reverse order and
    /// marks the changeset `undone`.
    ///
    /// - Parameters:
    ///   - force: overwrite conflicting rows with the restored image (with a fresh version, see
    ///     `VersionClock`); rows whose task is gone are skipped. Rows of other users are never
    ///     touched.
    ///   - outbox: notification rows to write in the same transaction (built by the caller from
    ///     the report).
    /// - Throws: `.conflict` (unless `force`), `.alreadyUndone`, `.unknownChangeset`.
    @discardableResult
    package func undo(changesetID id: ChangesetID, force: Bool = false, now: Date, outbox: [OutboxEntry] = [])
        throws(StoreError) -> ChangesetOutcome
    {
        try flip(id, to: .undone, force: force, now: now, outbox: outbox)
    }

    /// Re-applies an undone changeset, with the same checks as `undo` against the before
    /// images. - Throws: `.conflict` (unless `force`), `.notUndone`, `.unknownChangeset`.
    @discardableResult
    package func redo(changesetID id: ChangesetID, force: Bool = false, now: Date, outbox: [OutboxEntry] = [])
        throws(StoreError) -> ChangesetOutcome
    {
        try flip(id, to: .applied, force: force, now: now, outbox: outbox)
    }

    private func flip(
        _ id: ChangesetID, to target: ChangesetState, force: Bool, now: Date,
        outbox: [OutboxEntry]
    ) throws(StoreError) -> ChangesetOutcome {
        try db.write { (db) throws(StoreError) -> ChangesetOutcome in
            var record = try changeset(id)
            switch (record.header.state, target) {
            case (.undone, .undone): throw StoreError.alreadyUndone(id)
            case (.applied, .applied): throw StoreError.notUndone(id)
            default: break
            }
            let steps = target == .undone ? record.edits.reversed().map(\.inverted) : record.edits
            let applier = ChangesetApplier(db: db, userID: record.header.userID, now: now)
            try applier.readAhead(steps)
            let conflicts = try applier.conflicts(of: steps)
            if !conflicts.isEmpty && !force {
                throw StoreError.conflict(ChangesetConflict(changesetID: id, rows: conflicts))
            }
            let changed = Dictionary(
                conflicts.filter { $0.kind == .changed }.map { (ChangesetApplier.identity($0.entity, $0.key), $0) },
                uniquingKeysWith: { a, _ in a })
            let orphaned = Set(
                conflicts.filter { $0.kind == .parentMissing }.map { ChangesetApplier.identity($0.entity, $0.key) })
            let earliestAffected = try earliestAffectedDate(of: steps, tasks: applier.tasks)
            // A forced overwrite writes content the row does not have now: a fresh version,
            // so every changeset that read the row before knows it changed.
            let fresh = changed.isEmpty ? nil : try VersionClock.next(db)
            var applied: [ChangesetEdit] = []
            for step in steps {
                let identity = ChangesetApplier.identity(step.entity, step.key)
                // A child whose task is gone cannot be restored; force skips it.
                if orphaned.contains(identity) { continue }
                // A row the check found changed (forced) is stored as found; any other looks as its before image says.
                let stored = changed[identity].map { $0.foundVersion != nil } ?? (step.before != nil)
                try applier.apply(
                    step.entity, key: step.key, image: step.after, version: changed[identity] == nil ? nil : fresh,
                    stored: stored)
                applied.append(step)
            }
            try db.send(
                "UPDATE changesets SET state = ? WHERE id = ?", [.text(target.rawValue), .text(id.rawValue)])
            // The undo of the import that created the student removed them, with every row of
            // theirs (their outbox rows too, as `user rm` does): nothing is left to invalidate
            // or notify. The changeset stays, for `redo`.
            if try UserRepository(db).exists(record.header.userID) {
                try StatisticsBaseRepository(db).invalidate(userID: record.header.userID, earliest: earliestAffected)
                try OutboxRepository(db).insert(outbox, userID: record.header.userID, changesetID: id, createdAt: now)
            }
            record.header.state = target
            return ChangesetOutcome(
                changeset: record.header, applied: applied, overwritten: conflicts, report: record.report)
        }
    }

    /// `ChangesetEdit.earliestAffectedDate` with the backward reach of the stored slides of
    /// every series the edits touch, as stored before the edits are applied (call it before
    /// applying them). One-off tasks have no slides, so their edits ask nothing.
    private func earliestAffectedDate(of edits: [ChangesetEdit], tasks: TouchedTasks) throws(StoreError) -> CivilDate? {
        var shifts: [String: Int] = [:]
        for edit in edits where edit.entity == .override || edit.entity == .slide || edit.entity == .task {
            if edit.entity == .task,
                ![edit.before, edit.after].contains(where: { ($0?["repeat"]).map { $0 != .null } ?? false })
            {
                continue
            }
            let taskID = edit.entity == .task ? edit.key : (ChildRowKey(edit.key)?.taskID ?? edit.key)
            if shifts[taskID] != nil { continue }
            shifts[taskID] = try tasks.row(taskID)?.backwardShift ?? 0
        }
        return ChangesetEdit.earliestAffectedDate(of: edits) { shifts[$0] ?? 0 }
    }

    // MARK: Queries

    static let headerColumns = "id, user_id, created_at, origin, plan_date, state, summary"

    /// One changeset with its edits and report. - Throws: `.unknownChangeset`.
    package func changeset(_ id: ChangesetID) throws(StoreError) -> ChangesetRecord {
        try db.read { (db) throws(StoreError) -> ChangesetRecord in
            let rows = try db.query(
                "SELECT \(ChangesetStore.headerColumns), report FROM changesets WHERE id = ?", [.text(id.rawValue)]
            ) {
                (s) throws(StoreError) in
                (
                    try ChangesetStore.decodeHeader(s),
                    try StoredJSON.parse(s.text(7), entity: "changeset", key: id.rawValue)
                )
            }
            guard let (header, report) = rows.first else { throw StoreError.unknownChangeset(id) }
            let edits = try db.query(
                """
                SELECT seq, entity, entity_key, before, after, reason FROM changeset_edits WHERE changeset_id = ? ORDER BY seq
                """, [.text(id.rawValue)]
            ) { (s) throws(StoreError) -> ChangesetEdit in
                let editName = "\(id)#\(s.int(0))"
                guard let entity = EditEntity(rawValue: s.text(1)) else {
                    throw StoreError.malformedRow(entity: "changeset edit", key: editName, problem: "unknown entity")
                }
                return ChangesetEdit(
                    seq: s.int(0), entity: entity, key: s.text(2),
                    before: try StoredJSON.parse(s.optionalText(3), entity: "changeset edit", key: editName),
                    after: try StoredJSON.parse(s.optionalText(4), entity: "changeset edit", key: editName),
                    reason: s.text(5))
            }
            return ChangesetRecord(header: header, edits: edits, report: report)
        }
    }

    /// Changesets newest first, of one user or of everyone.
    package func changesets(userID: String? = nil, limit: Int = 50) throws(StoreError) -> [ChangesetHeader] {
        let filter = userID == nil ? "" : "WHERE user_id = ?"
        let order = ChangesetStore.insertionOrder(db)
        let values: [SQLValue] = (userID.map { [SQLValue.text($0)] } ?? []) + [.integer(limit)]
        return try db.query(
            "SELECT \(ChangesetStore.headerColumns) FROM changesets \(filter) ORDER BY created_at DESC, \(order) DESC LIMIT ?",
            values
        ) { (s) throws(StoreError) in try ChangesetStore.decodeHeader(s) }
    }

    /// The newest changeset of a user still in effect (`undo --user U --last`).
    package func lastApplied(userID: String) throws(StoreError) -> ChangesetHeader? {
        try db.query(
            """
            SELECT \(ChangesetStore.headerColumns) FROM changesets WHERE user_id = ? AND state = 'applied'
            ORDER BY created_at DESC, \(ChangesetStore.insertionOrder(db)) DESC LIMIT 1
            """, [.text(userID)]
        ) { (s) throws(StoreError) in try ChangesetStore.decodeHeader(s) }.first
    }

    /// The column that orders changesets of the same second as they were written: SQLite's
    /// rowid; on PostgreSQL the `seq` identity (`copy-database` fills it in rowid order).
    static func insertionOrder(_ db: any SQLExecutor) -> String { db.engine == .sqlite ? "rowid" : "seq" }

    static func decodeHeader(_ s: any SQLRow) throws(StoreError) -> ChangesetHeader {
        let id = s.text(0)
        func bad(_ problem: String) -> StoreError { .malformedRow(entity: "changeset", key: id, problem: problem) }
        guard let created = Timestamp.date(s.text(2)) else { throw bad("bad created_at") }
        guard let origin = ChangesetOrigin(rawValue: s.text(3)) else { throw bad("unknown origin") }
        guard let state = ChangesetState(rawValue: s.text(5)) else { throw bad("unknown state") }
        var planDate: CivilDate?
        if let text = s.optionalText(4) {
            guard let d = CivilDate(text) else { throw bad("bad plan_date") }
            planDate = d
        }
        return ChangesetHeader(
            id: ChangesetID(id), userID: s.text(1), createdAt: created, origin: origin, planDate: planDate,
            state: state, summary: try StoredJSON.parse(s.text(6), entity: "changeset", key: id))
    }
}

extension ChangesetStore {
    /// The reports of the student's applied nightly changesets written since `since`, oldest
    /// first (an index range of `changesets_by_user`): what the feed reads the nights' moves from.
    package func nightlyReports(userID: String, since: Date) throws(StoreError) -> [JSONValue] {
        try db.query(
            """
            SELECT id, report FROM changesets
            WHERE user_id = ? AND created_at >= ? AND origin = 'nightly' AND state = 'applied'
            ORDER BY created_at, \(ChangesetStore.insertionOrder(db))
            """, [.text(userID), .text(Timestamp.text(since))]
        ) { (s) throws(StoreError) -> JSONValue in
            let report: JSONValue = try StoredJSON.parse(s.text(1), entity: "changeset", key: s.text(0))
            return report
        }
    }

    /// One-off sessions deleted by the user's applied changesets created at or after `since`
    /// (for the iCalendar feed's cancelled events). Reads the user's changesets through
    /// `changesets_by_user` and their task deletions only.
    package func droppedSessions(userID: String, since: Date) throws(StoreError) -> [DroppedSession] {
        try db.query(
            """
            SELECT e.before, c.created_at FROM changesets c JOIN changeset_edits e ON e.changeset_id = c.id
            WHERE c.user_id = ? AND c.created_at >= ? AND c.state = 'applied'
                AND e.entity = 'task' AND e.after IS NULL AND e.before IS NOT NULL
            """, [.text(userID), .text(Timestamp.text(since))]
        ) { (s) throws(StoreError) -> DroppedSession? in
            guard let image = try? JSONValue(parsing: s.text(0)), let at = Timestamp.date(s.text(1)) else { return nil }
            return DroppedSession(image: image, droppedAt: at)
        }.compactMap { $0 }
    }
}
