import Foundation
import Synchronization

/// Stops model calls for the rest of a run once one of them found the account out of quota
/// (429 `insufficient_quota`): no other user's request could fare better, so asking again
/// would only add failed requests. Shared by every user pipeline of the run; the pipeline
/// reads it through `UserPipeline.modelDisabledReason`.
package final class ModelShutoff: Sendable {
    private let stored = Mutex<String?>(nil)

    package init() {}

    /// Why the model is off for the rest of the run, once tripped.
    package var reason: String? { stored.withLock { $0 } }

    /// Turns the model off; the first reason is kept.
    package func trip(_ reason: String) {
        stored.withLock { if $0 == nil { $0 = reason } }
    }
}
