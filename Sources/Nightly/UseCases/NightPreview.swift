import Foundation
import Store

/// `preview`: the night one student would get now, computed and not written.
package struct NightPreview {
    let pipeline: UserPipeline

    package init(pipeline: UserPipeline) { self.pipeline = pipeline }

    package func night(userID: String, database: ReplanDatabase, now: Date) throws(UseCaseError) -> UserNight {
        try storeCall { () throws(StoreError) in
            try pipeline.prepare(userID: userID, db: database.connection, now: now).0
        }
    }
}
