#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// At most one nightly run per database at a time: an exclusive, non-blocking `flock` on
/// `<database path>.lock`.
///
/// flock belongs to the open file, so the kernel releases it when the holder exits in any
/// way, SIGKILL included; a stale lock file is harmless and never needs cleaning up. The lock
/// is held for as long as the value lives.
public final class RunLock: Sendable {
    /// The lock file's path.
    public let path: String
    private let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path; self.descriptor = descriptor
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// Takes the lock for an open database (`<its path>.lock`).
    public static func tryAcquire(for database: Database) throws(StoreError) -> RunLock? {
        try tryAcquire(databasePath: database.path)
    }

    /// Takes the lock for the database at `databasePath`.
    /// - Returns: the held lock, or nil when another process (or another holder in this one)
    ///   has it.
    /// - Throws: `.cannotOpen` when the lock file cannot be created.
    public static func tryAcquire(databasePath: String) throws(StoreError) -> RunLock? {
        let path = databasePath + ".lock"
        let fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError.cannotOpen(path: path, reason: DatabaseFile.lastSystemError()) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let error = errno
            close(fd)
            if error == EWOULDBLOCK || error == EAGAIN { return nil }
            throw StoreError.cannotOpen(path: path, reason: String(cString: strerror(error)))
        }
        return RunLock(path: path, descriptor: fd)
    }
}
