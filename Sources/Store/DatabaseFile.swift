#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The database file on disk, created by replan itself before SQLite sees it.
///
/// SQLite would create a missing file with the process umask (often world-readable), and the
/// database holds students' plans and model transcripts; so the file is created with open(2)
/// and mode 0600, and an existing file with looser bits is tightened. SQLite gives the `-wal`
/// and `-shm` files the database file's permissions, so they follow.
enum DatabaseFile {
    static func prepare(_ path: String) throws(StoreError) {
        let fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError.cannotOpen(path: path, reason: lastSystemError()) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StoreError.cannotOpen(path: path, reason: lastSystemError()) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw StoreError.cannotOpen(path: path, reason: "not a regular file")
        }
        if info.st_mode & 0o077 != 0, fchmod(fd, 0o600) != 0 {
            throw StoreError.cannotOpen(path: path, reason: "cannot restrict permissions to 0600: \(lastSystemError())")
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
