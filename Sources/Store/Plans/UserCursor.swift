import Planning

/// Streams all users in id order for the nightly job, one batch of `batchSize` at a time.
///
/// Each batch is read with keyset paging (`id > last`) in its own short read, so 100k users
/// never sit in memory together, no read snapshot is held while the caller works on a user
/// (which would stop WAL checkpoints), and the caller may write on the same connection
/// between `next()` calls. Users added during the walk are seen if their id sorts later.
///
/// A user whose row does not decode (say, a time zone this system no longer knows) is thrown
/// by `next()` as `.malformedRow`; the cursor has already moved past it, so the caller can
/// record the failure and keep going.
package struct UserCursor {
    let db: any SQLExecutor
    let batchSize: Int
    private var buffer: [Result<User, StoreError>] = []
    private var position = 0
    private var lastID: String?
    private var exhausted = false

    init(db: any SQLExecutor, batchSize: Int) {
        self.db = db
        self.batchSize = max(1, batchSize)
    }

    /// The next user, or nil after the last one.
    package mutating func next() throws(StoreError) -> User? {
        if position == buffer.count {
            if exhausted { return nil }
            try fetch()
            if buffer.isEmpty { return nil }
        }
        let result = buffer[position]
        position += 1
        return try result.get()
    }

    private mutating func fetch() throws(StoreError) {
        var ids: [String] = []
        let sql =
            lastID == nil
            ? "\(UserRepository.selectUser) ORDER BY u.id LIMIT ?"
            : "\(UserRepository.selectUser) WHERE u.id > ? ORDER BY u.id LIMIT ?"
        let values: [SQLValue] = (lastID.map { [SQLValue.text($0)] } ?? []) + [.integer(batchSize)]
        buffer = try db.read { (db) throws(StoreError) in
            try db.query(sql, values) { (s) -> Result<User, StoreError> in
                ids.append(s.text(0))
                do throws(StoreError) { return .success(try UserRepository.decode(s)) } catch { return .failure(error) }
            }
        }
        position = 0
        lastID = ids.last ?? lastID
        exhausted = buffer.count < batchSize
    }
}

@available(*, unavailable, message: "a cursor reads through one connection, used from one thread")
extension UserCursor: Sendable {}
