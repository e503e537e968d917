import Exchange
import Foundation
import JSON
import Planning
import Store

/// `export` (and `user rm --keep-export`): a student's data as a replan/1 document, or their
/// sessions of a date range as iCalendar.
package struct Exporter {
    let database: ReplanDatabase

    package init(database: ReplanDatabase) { self.database = database }

    /// Everything of the student, as the replan/1 JSON `import` reads back.
    package func document(userID: String) throws(UseCaseError) -> JSONValue {
        let reader = PlanReader(database: database)
        let plan = try reader.plan(userID: userID, window: nil)
        let entry = ReplanDocument.Entry(
            user: plan.user, tasks: plan.sortedTasks, overrides: plan.allOverrides, slides: plan.allSlides,
            focusSessions: try reader.focusSessions(userID: userID))
        return ReplanDocument(entries: [entry]).json
    }

    /// The student's occurrences from `from` through `to` (defaults: 30 days before the
    /// student's today, 90 days after it) as an iCalendar document, with the sessions deleted
    /// since listed as cancelled.
    package func calendar(userID: String, from: CivilDate?, to: CivilDate?, now: Date) throws(UseCaseError) -> String {
        let plan = try PlanReader(database: database).plan(userID: userID, window: nil)
        let today = plan.zone.civil(now).date
        let from = from ?? today.adding(days: -30)
        let to = to ?? today.adding(days: 90)
        guard from <= to else { throw .badInput("--from \(from) is after --to \(to)") }
        let store = ChangesetStore(database.connection)
        let dropped = try storeCall { () throws(StoreError) in
            try store.droppedSessions(userID: userID, since: FeedPublisher.droppedSince(from...to, zone: plan.zone))
        }
        let moves = try storeCall { () throws(StoreError) in
            try FeedPublisher.nightMoves(userID: userID, window: from...to, zone: plan.zone, changesets: store)
        }
        return ICalendarExport.render(plan, from: from, through: to, stamp: now, dropped: dropped, moves: moves)
    }
}
