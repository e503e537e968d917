#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The database file on disk, created by replan itself before SQLite sees it.
///
/// SQLite would create a missing file with the process umask (often world-readable), and the
/// database holds students' plans and model transcripts; so a missing file is created with
/// open(2) and mode 0600, and an existing file with looser bits is tightened. SQLite gives the
/// `-wal` and `-shm` files the database file's permissions, so they follow.
///
/// An existing file is only looked at by path (stat, chmod), never opened: closing any
/// descriptor of the database file drops every POSIX lock this process holds on it, including
/// the locks of SQLite connections already open (the nightly runner opens one per worker).
/// Without those locks another process closing its connection believes it is the last one,
/// checkpoints and deletes the -wal and -shm files under the running job, and the job's later
/// commits are lost (SQLite's "How To Corrupt", §2.2).
enum DatabaseFile {
    static func prepare(_ path: String) throws(StoreError) {
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFREG else {
                throw StoreError.cannotOpen(path: path, reason: "not a regular file")
            }
            if info.st_mode & 0o077 != 0, chmod(path, 0o600) != 0 {
                throw StoreError.cannotOpen(path: path, reason: "cannot restrict permissions to 0600: \(lastSystemError())")
            }
        } else if errno == ENOENT {
            // O_EXCL: only a file this call creates is opened (and closed) here, and no
            // connection can hold locks on a file that did not exist.
            let fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0o600)
            if fd >= 0 { close(fd) } else if errno != EEXIST {
                throw StoreError.cannotOpen(path: path, reason: lastSystemError())
            }
        } else {
            throw StoreError.cannotOpen(path: path, reason: lastSystemError())
        }
        // Sidecar files left by an earlier, looser file would otherwise keep their old mode.
        for suffix in ["-wal", "-shm"] {
            var sidecar = stat()
            if stat(path + suffix, &sidecar) == 0, sidecar.st_mode & 0o077 != 0 { _ = chmod(path + suffix, 0o600) }
        }
    }

    /// The permission bits of a file (tests and diagnostics).
    static func mode(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_mode & 0o777)
    }

    static func lastSystemError() -> String { String(cString: strerror(errno)) }
}
