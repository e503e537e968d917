import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// At most one nightly run per database at a time: an exclusive, non-blocking `flock` on the
/// database file itself.
///
/// Why the database file and not a `<path>.lock` beside it (issue 13, item 9):
/// - the lock is keyed on what the file *is* (its device and inode), not on how its path is
///   spelled: two runs reaching one database through a symlink, a relative path or `file:`
///   meet on the same lock;
/// - there is no lock file to go wrong: a `replan run` as root used to leave a root-owned
///   `.lock` that the service user could not open, and every later night exited 73.
///
/// flock locks and SQLite's own (fcntl byte-range) locks are independent on Linux's local
/// file systems, so readers (`log`, `preview`) are not blocked. (On NFS the kernel emulates
/// flock with fcntl locks and a run would block readers; SQLite is not meant for NFS anyway.)
///
/// A descriptor opened here is never closed: closing any descriptor of the database file
/// drops every POSIX lock this process holds on it, including those of its open SQLite
/// connections (see `DatabaseFile`). Released and refused descriptors are kept per file and
/// reused, so a process holds at most a few. The kernel releases the flock when the process
/// exits in any way, SIGKILL included.
package final class RunLock: Sendable {
    /// The database file's path as given.
    package let path: String
    private let key: FileKey
    private let descriptor: Int32

    /// What a file is: its device and inode.
    struct FileKey: Hashable, Sendable {
        var device: UInt64
        var inode: UInt64
    }

    private init(path: String, key: FileKey, descriptor: Int32) {
        self.path = path
        self.key = key
        self.descriptor = descriptor
    }

    deinit {
        flock(descriptor, LOCK_UN)
        RunLock.idle.park(descriptor, for: key)
    }

    /// Takes the lock for an open database.
    package static func tryAcquire(for database: Database) throws(StoreError) -> RunLock? {
        try tryAcquire(databasePath: database.path)
    }

    /// Takes the lock for the database at `databasePath` (which must exist).
    /// - Returns: the held lock, or nil when another process (or another holder in this one)
    ///   has it.
    /// - Throws: `.cannotOpen` when the database file cannot be opened.
    package static func tryAcquire(databasePath: String) throws(StoreError) -> RunLock? {
        var info = stat()
        guard stat(DatabaseFile.literal(databasePath), &info) == 0 else {
            throw StoreError.cannotOpen(path: databasePath, reason: DatabaseFile.lastSystemError())
        }
        let key = FileKey(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        let fd: Int32
        if let parked = idle.take(for: key) {
            fd = parked
        } else {
            // Read-only is enough for flock, and never creates or changes anything.
            fd = open(DatabaseFile.literal(databasePath), O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw StoreError.cannotOpen(path: databasePath, reason: DatabaseFile.lastSystemError())
            }
            // The path may have been replaced between stat and open: key on what was opened.
            var opened = stat()
            if fstat(fd, &opened) == 0, UInt64(opened.st_dev) != key.device || UInt64(opened.st_ino) != key.inode {
                idle.park(fd, for: FileKey(device: UInt64(opened.st_dev), inode: UInt64(opened.st_ino)))
                throw StoreError.cannotOpen(
                    path: databasePath, reason: "the file was replaced while it was being locked")
            }
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let error = errno
            idle.park(fd, for: key)
            if error == EWOULDBLOCK || error == EAGAIN { return nil }
            throw StoreError.cannotOpen(path: databasePath, reason: String(cString: strerror(error)))
        }
        return RunLock(path: databasePath, key: key, descriptor: fd)
    }

    /// Descriptors not holding a lock, by file, for reuse.
    private static let idle = IdleDescriptors()

    private final class IdleDescriptors: Sendable {
        private let byKey = Mutex<[FileKey: [Int32]]>([:])

        func take(for key: FileKey) -> Int32? {
            byKey.withLock { $0[key]?.popLast() }
        }

        func park(_ fd: Int32, for key: FileKey) {
            byKey.withLock { $0[key, default: []].append(fd) }
        }
    }
}
