import Store

// The stored values the use cases hand back for rendering. They are plain values (no
// connection, no SQL); naming them here lets the command line render them without importing
// Store, so it cannot reach a repository past the use cases.

package typealias ChangesetID = Store.ChangesetID
package typealias ChangesetHeader = Store.ChangesetHeader
package typealias ChangesetRecord = Store.ChangesetRecord
package typealias ChangesetOrigin = Store.ChangesetOrigin
package typealias ChangesetState = Store.ChangesetState
package typealias RunTotals = Store.RunTotals
package typealias SharedNight = Store.SharedNights.Night
package typealias NightWorker = Store.SharedNights.Worker
package typealias NightProgress = Store.SharedNights.Progress
package typealias UserRun = Store.UserRun
package typealias UserRunRecord = Store.UserRunRecord
package typealias UserRunStatus = Store.UserRunStatus
package typealias UserRunFilter = Store.UserRunFilter
package typealias StoredOutboxEntry = Store.StoredOutboxEntry
package typealias PruneReport = Store.RetentionPruner.Report
package typealias ConflictRow = Store.ChangesetConflict.Row
