import Exchange
import Foundation
import Planning
import Store

/// `import`: writes a validated document (replan/1, or the original app's Firestore export
/// converted to one) every user in one write transaction, all or nothing. Each user's plan is
/// one changeset of origin `import` through the same committer as every other edit, so an
/// import is undoable and a second import of the same data changes nothing.
package struct Importer {
    /// One user of a document: what it holds, and the changeset that imported it.
    package struct UserResult: Sendable, Equatable {
        package var userID: String
        package var zoneIdentifier: String
        package var tasks = 0, series = 0, completedSessions = 0, focusMinutes = 0
        /// nil: checked only, or already up to date.
        package var changesetID: ChangesetID?
        /// Whether this import added the student (undoing its changeset removes them again,
        /// unless rows of their own were added since).
        package var created = false

        init(_ e: ReplanDocument.Entry) {
            userID = e.user.id
            zoneIdentifier = e.user.zone.identifier
            tasks = e.tasks.count
            series = e.tasks.filter(\.isSeries).count
            completedSessions = e.tasks.filter(\.completed).count + e.overrides.filter { $0.state == .completed }.count
            focusMinutes = e.focusSessions.reduce(0) { $0 + $1.minutes }
        }
    }

    let database: ReplanDatabase
    let now: Date

    package init(database: ReplanDatabase, now: Date) {
        self.database = database
        self.now = now
    }

    /// The focus sessions of `entry` that the user does not hold yet, as changeset edits (the
    /// changeset records them, so undo takes them back and redo brings them again). Content
    /// already stored is not added again, so importing the same export twice adds nothing.
    static func focusEdits(_ entry: ReplanDocument.Entry, db: any SQLExecutor) throws(StoreError) -> [ChangesetEdit] {
        var stored = Set<FocusRowKey>()
        if try UserRepository(db).exists(entry.user.id) {
            for f in try FocusSessionRepository(db).sessions(userID: entry.user.id) {
                stored.insert(FocusRowKey(start: f.start, minutes: f.minutes, category: f.category))
            }
        }
        var adding: [FocusRowKey: Int] = [:]
        for f in entry.focusSessions {
            let key = FocusRowKey(start: f.start, minutes: f.minutes, category: f.category)
            if !stored.contains(key) { adding[key, default: 0] += 1 }
        }
        return adding.sorted { $0.key.description < $1.key.description }.map { key, count in
            ChangesetEdit(
                seq: 0, entity: .focus, key: key.description, before: nil,
                after: key.image(userID: entry.user.id, count: count), reason: "imported focus session")
        }
    }

    /// What the input holds per user, without writing anything (`import --check`).
    package static func check(_ input: ImportInput) -> [UserResult] { input.document.entries.map(UserResult.init) }

    /// Writes the input read from `source`; a task id of another user rejects all of it,
    /// naming where the task stands in the input.
    package func commit(_ input: ImportInput, source: String) throws(UseCaseError) -> [UserResult] {
        let now = self.now
        let document = input.document
        var results: [UserResult] = []
        do throws(StoreError) {
            try database.connection.write { (db) throws(StoreError) in
                results = []
                let plans = PlanRepository(db)
                let users = UserRepository(db)
                for (u, entry) in document.entries.enumerated() {
                    let user = entry.user
                    let existing = try users.find(user.id)
                    let created = existing == nil
                    // The student's profile and settings are one edit of the changeset, so undo
                    // takes them back (and removes a student it created) and redo brings them again.
                    let profileEdit =
                        existing == user
                        ? nil
                        : ChangesetEdit(
                            seq: 0, entity: .user, key: user.id, before: existing.map(ProfileImage.image),
                            after: ProfileImage.image(user), reason: created ? "imported student" : "imported profile")
                    // Task ids are global: a task of another user with the same id is an error.
                    for (i, t) in entry.tasks.enumerated() {
                        if let owner = try plans.taskOwner(taskID: t.id), owner != user.id {
                            throw StoreError.foreignRow(
                                entity: "task", key: "\(t.id) (\(input.place(user: u, task: i)))")
                        }
                    }
                    let original =
                        try existing.map { (u) throws(StoreError) in try plans.loadPlan(user: u, window: nil) }
                        ?? UserPlan(user: user, tasks: [])
                    var working = original
                    working.user = user
                    let overrides = Dictionary(grouping: entry.overrides, by: \.taskID)
                    let slides = Dictionary(grouping: entry.slides, by: \.taskID)
                    for t in entry.tasks {
                        working.replace(t, overrides: overrides[t.id] ?? [], slides: slides[t.id] ?? [])
                    }
                    var result = UserResult(entry)
                    result.created = created
                    let today = user.zone.civil(now).date
                    let focusEdits = try Importer.focusEdits(entry, db: db)
                    var changeset =
                        PlanCommitter().prepare(
                            original: original, working: working, origin: .import, planDate: nil, now: now,
                            reasons: [:],
                            defaultReason: .manual, through: today.adding(days: user.settings.horizonDays)
                        )?.changeset
                    if changeset == nil && (!focusEdits.isEmpty || profileEdit != nil) {
                        // Only focus sessions or the profile are new: still one changeset, so they
                        // can be undone.
                        changeset = NewChangeset(
                            userID: user.id, origin: .import, planDate: nil, createdAt: now, changes: [],
                            summary: [:], report: ["edits": []])
                    }
                    if var changeset {
                        changeset.focusEdits = focusEdits
                        changeset.profileEdit = profileEdit
                        result.changesetID = try ChangesetStore(db).commit(changeset)
                    }
                    results.append(result)
                }
            }
        } catch {
            if case .foreignRow(_, let key) = error {
                throw .badInput("\(source): task id \(key) belongs to another user; nothing was imported")
            }
            throw UseCaseError(store: error)
        }
        return results
    }
}
